"""The restricted games of the double oracle (:mod:`teamleduc.solver.column_generation`): its
matrix-game solver.
"""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.solver.column_generation import solve_matrix_game


def test_matrix_game_solver_on_rock_paper_scissors():
    M = np.array([[0.0, -1, 1], [1, 0, -1], [-1, 1, 0]]) + 2.0
    lam, mu, value = solve_matrix_game(M)
    assert value == pytest.approx(2.0, abs=1e-9)
    np.testing.assert_allclose(lam, 1 / 3, atol=1e-9)
    np.testing.assert_allclose(mu, 1 / 3, atol=1e-9)
