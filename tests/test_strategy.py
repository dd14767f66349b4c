"""A strategy from code: build_submission from a function, a mapping, a DataFrame or arrays."""

from __future__ import annotations

import numpy as np
import pytest

from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.files.reading import load_submission
from teamleduc.infosets import parse_infoset, seat_of_string, tables_for
from teamleduc.strategy import build_submission, infoset_frame, infoset_table, seats_of

PRESET = "tiny-team-leduc"


def raise_with_top(infoset: str, legal: str):
    """Raise with the top rank when legal, else call; fold a low card facing a bet."""
    top = infoset.split("/")[1].strip("?C:") == get_config(PRESET).ranks[-1]
    if top and "r" in legal:
        return (0.0, 1.0, 0.0)
    if not top and "f" in legal:
        return (0.25, 0.0, 0.75) if "r" not in legal else (0.25, 0.25, 0.5)
    return (1.0, 0.0, 0.0)


def expected_arrays(config):
    """The same policy written row by row from the tables (brute force)."""
    out = {}
    for t in tables_for(config):
        rows = np.zeros((t.size, 3))
        for i in range(t.size):
            legal = "".join(ch for ch, ok in zip("crf", t.legal[i]) if ok)
            rows[i] = raise_with_top(t.strings[i], legal)
        out[t.seat] = rows
    return out


def test_function_mapping_frame_and_arrays_give_the_same_submission(tmp_path):
    config = get_config(PRESET)
    want = expected_arrays(config)
    from_function = build_submission(raise_with_top, PRESET)
    mapping = {
        s: tuple(want[t.seat][i]) for t in tables_for(config) for i, s in enumerate(t.strings)
    }
    from_mapping = build_submission(mapping, PRESET)
    frame = infoset_frame(PRESET)
    rows = np.concatenate([want[s] for s in range(4)])
    frame["p_c"], frame["p_r"], frame["p_f"] = rows.T
    from_frame = build_submission(frame.sample(frac=1.0, random_state=1), PRESET)  # any order
    from_arrays = build_submission({s + 1: want[s] for s in range(4)}, PRESET)
    for sub in (from_function, from_mapping, from_frame, from_arrays):
        assert sub.seats == (0, 1, 2, 3) and sub.num_signals == 1
        for s in range(4):
            np.testing.assert_array_equal(sub.strategies[s][0], want[s])
    # written, it reads back bit for bit
    build_submission(raise_with_top, PRESET, out=tmp_path / "sub")
    back = load_submission(tmp_path / "sub", PRESET)
    for s in range(4):
        np.testing.assert_array_equal(back.strategies[s][0], want[s])


def test_signals_with_weights_and_one_team():
    def always_call(infoset, legal):
        return (1.0, 0.0, 0.0)

    sub = build_submission([always_call, raise_with_top], PRESET, seats="a", weights=[0.25, 0.75])
    assert sub.seats == (0, 2)
    np.testing.assert_array_equal(sub.probs, [0.25, 0.75])
    assert (sub.strategies[0][0][:, 0] == 1).all()
    np.testing.assert_array_equal(sub.strategies[2][1], expected_arrays(get_config(PRESET))[2])
    assert build_submission(always_call, PRESET, seats=(2, 4)).seats == (1, 3)
    assert build_submission(always_call, PRESET, seats="2,4").seats == (1, 3)


def test_frame_columns_and_tables_are_one_based():
    frame = infoset_frame(PRESET, seats=(2, 4))
    t = infoset_table(PRESET, 2)
    assert list(frame.seat.unique()) == [2, 4]
    first = frame[frame.seat == 2].iloc[5]
    assert first.line == 6 and first.infoset == t.strings[5]
    assert first.legal == "".join(ch for ch, ok in zip("crf", t.legal[5]) if ok)
    assert list(t.legal_strings[:3]) == list(frame.legal[:3])
    assert t.parse(t.strings[7]) == 7
    config = get_config("team-leduc")
    assert parse_infoset(config, "/C:??Q?/P1:r/P2:c/") == (
        2,
        tables_for(config)[2].parse("/C:??Q?/P1:r/P2:c/"),
    )
    assert seat_of_string(get_config("kuhn-100"), "/C:?57/P1:r/") == 1
    with pytest.raises(ValueError, match="deal field"):
        seat_of_string(config, "/C:??Q/P1:r/")
    with pytest.raises(TeamLeducError, match="seats 1..4"):
        infoset_table(PRESET, 0)


def test_errors_name_the_information_set():
    t = infoset_table(PRESET, 1)
    with pytest.raises(TeamLeducError) as e:
        build_submission(lambda i, legal: (0.0, 0.0, 1.0), PRESET)
    # fold is illegal at the first information set of seat 1
    assert f"seat 1, line 1, {t.strings[0]} (legal {t.legal_strings[0]})" in str(e.value)
    assert "fold is not legal here" in str(e.value)
    with pytest.raises(TeamLeducError, match="expected three numbers"):
        build_submission(lambda i, legal: (1.0, 0.0), PRESET)
    with pytest.raises(TeamLeducError, match="no probabilities, e.g. /C:"):
        build_submission({t.strings[0]: (1, 0, 0)}, PRESET)
    sub = build_submission({t.strings[0]: (0, 1, 0)}, PRESET, missing="uniform")
    np.testing.assert_array_equal(sub.strategies[0][0][0], [0, 1, 0])
    np.testing.assert_array_equal(sub.strategies[0][0][1:], t.uniform_strategy()[1:])
    with pytest.raises(TeamLeducError, match="not information sets of tiny-team-leduc"):
        build_submission({"/C:X???/": (1, 0, 0)}, PRESET)
    with pytest.raises(TeamLeducError, match=r"expected \(368, 3\)"):
        build_submission({s: np.zeros((3, 3)) for s in (1, 2, 3, 4)}, PRESET)
    with pytest.raises(TeamLeducError, match="sum to 1"):
        build_submission([raise_with_top, raise_with_top], PRESET, weights=[0.5, 0.6])
    with pytest.raises(TeamLeducError, match="whole"):
        seats_of(get_config(PRESET), (1, 2))
    with pytest.raises(TeamLeducError, match="a policy is a function"):
        build_submission(42, PRESET)


def test_out_refuses_an_existing_folder(tmp_path):
    build_submission(raise_with_top, PRESET, out=tmp_path / "s")
    with pytest.raises(TeamLeducError, match="overwrite=True"):
        build_submission(raise_with_top, PRESET, out=tmp_path / "s")
    build_submission(raise_with_top, PRESET, out=tmp_path / "s", overwrite=True)
