"""TMECor solver: ``solve(config, method=...)`` and its result.

One entry point, like :func:`scipy.optimize.linprog`: the method name is checked against
:data:`METHODS` and dispatched to one module per algorithm:

====================  ==========================================================================
``"dcfr"``            discounted CFR on both teams' belief DAGs (:mod:`.dag_cfr`, the default)
``"cfr+"``            CFR+ on both DAGs (:mod:`.dag_cfr`)
``"pcfr+"``           predictive CFR+ on both DAGs (:mod:`.dag_cfr`)
``"double-oracle"``   column generation over joint pure strategies with exact best responses,
                      restricted games solved by HiGHS (:mod:`.column_generation`)
====================  ==========================================================================

Every run ends with an export (:mod:`.export`): both teams' strategies as mixtures of
product strategies, within the edition's signal budget (:mod:`.budget`): at most
``max_signals`` merged into one CSV submission, or up to ``max_signals`` per team in the
2025 team zips. The reported bounds and gap are
those of the **exported submission**, measured with exact team best responses
(:func:`teamleduc.best_response.exploitability`); the progress measurements of the run (average
strategies of a regret minimiser, restricted equilibria of the double oracle) are exact too,
but of the strategies inside the algorithm.

Example
-------
>>> from teamleduc.solver import solve
>>> r = solve("kuhn", method="dcfr", time_limit=5, target_gap=1e-6)   # doctest: +SKIP
>>> print(r.lower, r.upper)                                           # doctest: +SKIP
-0.0555555... -0.0555555...

Modules: :mod:`.driver` (:func:`solve`), :mod:`.plan` (the checked arguments and the time
phases), :mod:`.session` and :mod:`.steps` (one session's state and its steps: main phase,
export, refinement, verified result), :mod:`.stop_flag`, :mod:`.resumed`; :mod:`.methods`
(:data:`METHODS`) and the adapters :mod:`.regret_algorithm`, :mod:`.double_oracle_algorithm`;
:mod:`.result` (:class:`SolveResult`, :func:`write_outputs`); the algorithms :mod:`.dag_cfr` and
:mod:`.column_generation`; the export :mod:`.export`, :mod:`.stratify`, its refinement policy
:mod:`.refine` and refiner :mod:`.team_refinement`; :mod:`.budget`, :mod:`.checkpoint`,
:mod:`.report`; the records :mod:`.mixtures`, :mod:`.candidates`, :mod:`.measurement`. The
belief DAG they run on is :mod:`teamleduc.dag`. This package face only re-exports.
"""

from .budget import EXPORT_FORMATS, native_format
from .driver import DEFAULT_TIME_LIMIT, solve
from .driver import _warmup as _warmup  # compiled by ``python -m teamleduc.warmup``
from .measurement import Measurement
from .methods import DEFAULT_METHOD, METHODS
from .result import (
    INTERRUPTED,
    ITERATION_LIMIT,
    SOLVED,
    STATUS_MESSAGES,
    TARGET_REACHED,
    TIME_LIMIT,
    SolveResult,
    write_outputs,
)

__all__ = [
    "solve",
    "SolveResult",
    "METHODS",
    "DEFAULT_METHOD",
    "DEFAULT_TIME_LIMIT",
    "Measurement",
    "STATUS_MESSAGES",
    "TARGET_REACHED",
    "TIME_LIMIT",
    "ITERATION_LIMIT",
    "INTERRUPTED",
    "SOLVED",
    "write_outputs",
    "EXPORT_FORMATS",
    "native_format",
]
