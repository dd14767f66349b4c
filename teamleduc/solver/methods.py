"""The solver's methods (:data:`METHODS`) and their adapters to the driver's interface.

The driver (:mod:`.driver`) runs any algorithm through one small interface: ``step``,
``measure``, ``export_candidates``, ``export_alternatives``, ``direct_export``, ``stratified``,
``refine_opponents``, ``release_scratch``, ``state``/``load_state``.
:class:`.regret_algorithm.RegretAlgorithm` adapts the regret minimisers of :mod:`.dag_cfr`,
:class:`.double_oracle_algorithm.DoubleOracleAlgorithm` the column generation of
:mod:`.column_generation` (each algorithm imported on first use: they compile kernels).
"""

from __future__ import annotations

from ..config import GameConfig
from .candidates import Candidates
from .double_oracle_algorithm import DoubleOracleAlgorithm
from .regret_algorithm import RegretAlgorithm

#: method name -> module (one module per algorithm)
METHODS = {
    "dcfr": "dag_cfr",
    "cfr+": "dag_cfr",
    "pcfr+": "dag_cfr",
    "double-oracle": "column_generation",
}
DEFAULT_METHOD = "dcfr"


def make_algorithm(
    method: str, config: GameConfig, candidates: Candidates | None = None
) -> RegretAlgorithm | DoubleOracleAlgorithm:
    """The driver's adapter of ``method`` (a key of :data:`METHODS`) on ``config``."""
    if METHODS[method] == "dag_cfr":
        return RegretAlgorithm(config, method)
    return DoubleOracleAlgorithm(config, candidates)
