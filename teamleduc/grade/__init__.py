"""Round-robin grading: every submission against every other, in both seatings, exactly.

For n entrants the grader computes each entrant's correlated reach as team A, ``T_A^X``, and its
team-B weights ``W_B^Y = sum_xB C T_B^Y`` once (one tree pass per seat and signal, see
:mod:`teamleduc.evaluate`), then every team-A value:

    V[X, Y] = <T_A^X, W_B^Y>            (X as team A against Y as team B)

an n x n matrix of dot products, so a tournament costs n loads plus one matrix product.

It scales to a whole class in bounded memory:

* loading runs in ``jobs`` worker processes (:mod:`~teamleduc.grade.workers`), each writing its
  entrant's two arrays (about 36 MB on team-leduc) to the on-disk cache
  (:mod:`~teamleduc.grade.cache`) and returning only a small record
  (:mod:`~teamleduc.grade.loading`); with ``worst_case`` on, the entrant's exact worst cases as
  team A and as team B (two exact team best responses) are computed there too and kept in the
  record;
* the pair products (:mod:`~teamleduc.grade.products`) stream the cached arrays block by block,
  each block checked against its XXH3-64 checksum, as many rows and columns at once as
  ``memory`` allows (:mod:`~teamleduc.grade.memory`), through a compiled kernel that sums every
  pair in one fixed order (:mod:`~teamleduc.grade.kernel`): a grade matrix entry equals
  ``evaluate``'s value bit for bit whatever ``jobs``, the memory budget, the threads or the
  machine;
* the cache is keyed by content, preset and toolkit version, and keeps the pair values: grading
  again computes only the arrays of new or changed submissions and their pairs; an interrupted
  grading resumes (loaded entrants are kept, and the products save resume points).

Invalid submissions (anything :func:`teamleduc.files.reading.load_submission` refuses, which is
what ``teamleduc validate`` reports) are listed with their first problem and left out of the
round robin; one bad submission never stops the run. :mod:`teamleduc.standings` ranks the result;
:mod:`teamleduc.leaderboard` writes its files.

:func:`grade` (:mod:`~teamleduc.grade.run`) is the entry point; every other module of this
package is internal.
"""

from .kernel import _warmup as _warmup  # compiled by ``python -m teamleduc.warmup``
from .run import grade

__all__ = ["grade"]
