"""Baselines: each rule on named information sets, validity on every preset, export round trip."""

import numpy as np
import pytest

from teamleduc.baselines import (
    BASELINES,
    baseline,
    baseline_strategy,
    canonical_name,
    is_baseline,
    parse_baseline,
)
from teamleduc.cli import main
from teamleduc.config import PRESETS, get_config
from teamleduc.errors import TeamLeducError
from teamleduc.files.reading import load_submission
from teamleduc.infosets import infoset_tables
from teamleduc.tree import build_tree

NAMES = list(BASELINES) + ["random-pure:7"]


def act(name, seat, infoset, preset="team-leduc"):
    """The action letter (or the distribution, if mixed) of a baseline at one information set."""
    tree = build_tree(get_config(preset))
    table = infoset_tables(tree)[seat - 1]
    row = baseline_strategy(name, tree, seat - 1)[table.parse(infoset)]
    return "crf"[int(np.argmax(row))] if row.max() == 1.0 else tuple(row)


@pytest.mark.parametrize("preset", [p for p in PRESETS if p != "team-leduc"])
@pytest.mark.parametrize("name", NAMES)
def test_every_baseline_is_a_valid_submission(preset, name):
    config = get_config(preset)
    sub = baseline(name, config)
    assert sub.problems(config) == []
    assert sub.num_signals == 1 and sub.seats == tuple(range(config.num_seats))
    if name != "uniform":
        for s in sub.seats:  # pure: one action with probability 1 per row
            assert set(np.unique(sub.strategies[s])) <= {0.0, 1.0}


def test_uniform_is_the_handout_example():
    tree = build_tree(get_config("team-leduc"))
    for s, t in enumerate(infoset_tables(tree)):
        np.testing.assert_array_equal(baseline_strategy("uniform", tree, s), t.uniform_strategy())
    assert act("uniform", 2, "/C:?Q??/P1:r/") == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert act("uniform", 1, "/C:J???/") == pytest.approx((0.5, 0.5, 0.0))


def test_always_call():
    assert act("always-call", 1, "/C:K???/") == "c"
    assert act("always-call", 2, "/C:?J??/P1:r/") == "c"


def test_aggressive_raises_whenever_legal():
    assert act("aggressive", 1, "/C:J???/") == "r"
    assert act("aggressive", 4, "/C:???J/P1:r/P2:r/P3:r/") == "r"
    # seat 1 raised already this round: it may not raise again, so it calls
    assert act("aggressive", 1, "/C:J???/P1:r/P2:r/P3:r/P4:r/") == "c"
    # a new round: raising is legal again
    assert act("aggressive", 1, "/C:J???/P1:r/P2:c/P3:c/P4:c/C:K/") == "r"


@pytest.mark.parametrize(
    "seat_rank, facing, expected",
    [
        # first to act (no bet to face): J and Q check, K raises
        ("J???", "", "c"),
        ("Q???", "", "c"),
        ("K???", "", "r"),
    ],
)
def test_cautious_opening(seat_rank, facing, expected):
    assert act("cautious", 1, f"/C:{seat_rank}/{facing}") == expected


def test_cautious_facing_a_bet():
    assert act("cautious", 2, "/C:?J??/P1:r/") == "f"  # weak: fold
    assert act("cautious", 2, "/C:?Q??/P1:r/") == "c"  # medium: call
    assert act("cautious", 2, "/C:?K??/P1:r/") == "r"  # strong: raise
    # strong but has raised already this round: call
    assert act("cautious", 1, "/C:K???/P1:r/P2:r/P3:c/P4:c/") == "c"


def test_cautious_round_two_pairs_are_strong():
    base = "P1:c/P2:c/P3:c/P4:c/"
    assert act("cautious", 1, f"/C:J???/{base}C:J/") == "r"  # pair of J: raise
    assert act("cautious", 1, f"/C:J???/{base}C:Q/") == "c"  # weak, nothing to face: check
    assert act("cautious", 2, f"/C:?J??/{base}C:K/P1:r/") == "f"  # weak facing a bet: fold
    assert act("cautious", 2, f"/C:?Q??/{base}C:K/P1:r/") == "c"  # medium facing a bet: call
    assert act("cautious", 2, f"/C:?Q??/{base}C:Q/P1:r/") == "r"  # pair of Q: raise


def test_random_pure_is_seeded_legal_and_seat_independent():
    config = get_config("team-leduc-2025")
    tree = build_tree(config)
    a = baseline("random-pure:5", config)
    b = baseline("random-pure:5", config, seats=(1, 3))
    c = baseline("random-pure:6", config)
    for s in (1, 3):
        np.testing.assert_array_equal(a.strategies[s], b.strategies[s])
    assert any(not np.array_equal(a.strategies[s], c.strategies[s]) for s in range(4))
    t = infoset_tables(tree)[0]
    chosen = np.argmax(a.strategies[0][0], axis=1)
    assert t.legal[np.arange(t.size), chosen].all()
    # roughly uniform over the legal actions: at root-like rows with c, r legal, both occur
    counts = np.bincount(chosen, minlength=3)
    assert counts[0] > 0 and counts[1] > 0 and counts[2] > 0
    assert canonical_name("random-pure") == "random-pure:0"
    np.testing.assert_array_equal(
        baseline("random-pure", config).strategies[2],
        baseline("random-pure:0", config).strategies[2],
    )


def test_names():
    assert parse_baseline("Random-Pure:12") == ("random-pure", 12)
    assert (
        is_baseline("cautious")
        and not is_baseline("./cautious")
        and not is_baseline("random-pure:x")
    )
    with pytest.raises(TeamLeducError, match="unknown baseline"):
        parse_baseline("tight")


def test_export_round_trip(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["baseline", "cautious", "--preset", "tiny-team-leduc", "--out", str(tmp_path / "c")])
    assert e.value.code == 0
    config = get_config("tiny-team-leduc")
    loaded = load_submission(tmp_path / "c", config)
    ref = baseline("cautious", config)
    for s in range(4):
        np.testing.assert_array_equal(loaded.strategies[s], ref.strategies[s])
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["meta-strategy.csv"] + [
        f"strategy0-player{i}.csv" for i in range(1, 5)
    ]
    # an existing folder is not replaced without --overwrite (or its alias --force)
    with pytest.raises(SystemExit) as e:
        main(
            ["baseline", "aggressive", "--preset", "tiny-team-leduc", "--out", str(tmp_path / "c")]
        )
    assert e.value.code == 2 and "--overwrite" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(
            [
                "baseline",
                "aggressive",
                "--preset",
                "tiny-team-leduc",
                "--out",
                str(tmp_path / "c"),
                "--force",
            ]
        )
    assert e.value.code == 0
