"""show and trace: what a strategy plays at an information set, and one hand played from it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from teamleduc.baselines import export_baseline
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.explain import show_infoset, trace_hand
from teamleduc.files.model import Submission
from teamleduc.files.writing import write_submission
from teamleduc.infosets import mask, tables_for
from teamleduc.replay import replay

from .cli_run import run

PRESET = "tiny-team-leduc"


def random_submission(config, signals=3, seed=0):
    rng = np.random.default_rng(seed)
    strategies = {}
    for t in tables_for(config):
        x = rng.random((signals, t.size, 3)) * t.legal
        x[rng.random(x.shape) < 0.25] = 0  # some actions never played: some zero reaches
        x = np.where(x.sum(axis=2, keepdims=True) > 0, x, t.legal)
        strategies[t.seat] = x / x.sum(axis=2, keepdims=True)
    probs = rng.random(signals)
    return Submission(np.arange(signals) * 7, probs / probs.sum(), range(4), strategies)


def reach_from_string(sub, config, seat, string):
    """The member's own reach, read off the string: each of its actions in the history is a
    row of the file at the history before it (independent of the tree's arrays)."""
    table = tables_for(config)[seat]
    prefix = string[: string.index("/", 3) + 1]  # /C:<mask>/
    tokens = string[len(prefix) :].split("/")[:-1]
    reach = np.ones(len(sub.signals))
    for k, tok in enumerate(tokens):
        if tok.startswith(f"P{seat + 1}:"):
            before = prefix + "".join(t + "/" for t in tokens[:k])
            reach *= sub.strategies[seat][:, table.parse(before), "crf".index(tok[-1])]
    return reach


def test_show_gives_the_submissions_own_rows_and_the_reach_weighted_marginal():
    config = get_config(PRESET)
    sub = random_submission(config)
    rng = np.random.default_rng(1)
    for seat in range(4):
        t = tables_for(config)[seat]
        for i in rng.choice(t.size, 25, replace=False).tolist():
            view = show_infoset(sub, config, t.strings[i])
            assert (view.seat, view.line, view.legal) == (seat, i + 1, t.legal_strings[i])
            np.testing.assert_array_equal(view.rows, sub.strategies[seat][:, i])
            reach = reach_from_string(sub, config, seat, t.strings[i])
            np.testing.assert_allclose(view.reach, reach, rtol=1e-12, atol=0)
            w = sub.probs * reach
            if w.sum() > 0:
                np.testing.assert_allclose(view.marginal, w @ view.rows / w.sum(), rtol=1e-12)
            else:
                assert view.marginal is None


def test_the_marginal_plays_like_the_mixture_for_the_member_alone():
    # Kuhn's theorem: the product of the member's marginals along its path is the mixture's
    # probability of the member's own actions, sum_k w_k pi_k(I), at every information set
    config = get_config(PRESET)
    sub = random_submission(config, signals=4, seed=5)
    seat = 2
    t = tables_for(config)[seat]
    for i in range(0, t.size, 7):
        string = t.strings[i]
        prefix = string[: string.index("/", 3) + 1]
        tokens = string[len(prefix) :].split("/")[:-1]
        product = 1.0
        for k, tok in enumerate(tokens):
            if tok.startswith(f"P{seat + 1}:"):
                view = show_infoset(sub, config, prefix + "".join(x + "/" for x in tokens[:k]))
                product *= 0.0 if view.marginal is None else view.marginal["crf".index(tok[-1])]
        mixture = float(sub.probs @ reach_from_string(sub, config, seat, string))
        assert product == pytest.approx(mixture, rel=1e-12, abs=1e-15)


def test_show_on_the_command_line(tmp_path, capsys):
    config = get_config(PRESET)
    sub = random_submission(config, signals=2)
    write_submission(sub, tmp_path / "s", config=config)
    t = tables_for(config)[1]
    code, out, err = run(capsys, ["show", str(tmp_path / "s"), "--infoset", t.strings[4], "--json"])
    assert code == 0, err
    data = json.loads(out)
    assert data["preset"] == PRESET and data["seat"] == 2 and data["line"] == 5
    assert [s["signal"] for s in data["signals"]] == [0, 7]
    assert [s["p_r"] for s in data["signals"]] == sub.strategies[1][:, 4, 1].tolist()
    code, out, err = run(capsys, ["show", str(tmp_path / "s"), "--infoset", "/C:X???/"])
    assert code == 2 and "deal field" in err
    with pytest.raises(TeamLeducError, match="plays seats 1,3, not seat 2"):
        show_infoset(sub.restrict((0, 2)), config, t.strings[0])


@pytest.mark.parametrize("seed", range(12))
def test_trace_is_replay_of_actions_the_strategies_can_play(seed):
    config = get_config(PRESET)
    a = random_submission(config, signals=3, seed=seed)
    b = random_submission(config, signals=2, seed=100 + seed)
    r = trace_hand(a, b, config, seed=seed)
    cards = ",".join(config.ranks[k] for k in r.replay.cards)
    community = config.ranks[r.replay.community] if r.replay.community >= 0 else None
    again = replay(config, cards, r.actions, community)
    assert str(again) == str(r.replay)
    assert str(trace_hand(a, b, config, seed=seed)) == str(r)  # the same seed, the same hand
    ka = int(np.flatnonzero(a.signals == r.signals[0])[0])
    kb = int(np.flatnonzero(b.signals == r.signals[1])[0])
    for step in r.replay.steps:
        sub, k = (a, ka) if step.seat in config.teams[0] else (b, kb)
        assert sub.strategies[step.seat][k, step.infoset_id, "crf".index(step.action)] > 0
        assert (
            step.infoset
            == mask(config, step.seat, r.replay.cards[step.seat]).join(["/C:", "/"])
            + step.infoset.split("/", 2)[2]
        )


def test_trace_on_the_command_line_prints_what_replay_prints(tmp_path, capsys):
    export_baseline("cautious", get_config(PRESET), tmp_path / "c")
    code, out, err = run(capsys, ["trace", str(tmp_path / "c"), "uniform", "--seed", "4"])
    assert code == 0, err
    first, *body, last = out.strip().splitlines()
    assert first.startswith("seed 4: team 1+3 c (signal 0), team 2+4 uniform (signal 0)")
    argv = last.removeprefix("replay it: teamleduc ").split(" --actions ")
    code, replayed, _ = run(capsys, argv[0].split() + ["--actions", argv[1].strip("'")])
    assert code == 0 and replayed.strip().splitlines() == body


def test_a_pandas_csv_gets_one_diagnosis(tmp_path, capsys):
    export_baseline("uniform", get_config("leduc"), tmp_path / "s")
    rows = tables_for(get_config("leduc"))[0].uniform_strategy()
    for kwargs, what in [
        ({}, "a header row and an index column (its defaults)"),
        ({"header": False}, "an index column;"),
    ]:
        pd.DataFrame(rows).to_csv(tmp_path / "s" / "strategy0-player1.csv", **kwargs)
        code, out, _ = run(capsys, ["validate", str(tmp_path / "s")])
        assert code == 1
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and what in errors[0]
        assert "df.to_csv(path, header=False, index=False)" in errors[0]
    # a header row alone is one line too many and one bad line, as any extra line is
    pd.DataFrame(rows).to_csv(tmp_path / "s" / "strategy0-player1.csv", index=False)
    code, out, _ = run(capsys, ["validate", str(tmp_path / "s")])
    assert code == 1 and "145 lines where seat 1 of leduc has 144" in out
    pd.DataFrame(rows).to_csv(tmp_path / "s" / "strategy0-player1.csv", header=False, index=False)
    assert run(capsys, ["validate", str(tmp_path / "s")])[0] == 0


def test_trace_on_rlcard_leduc_deals_the_small_blind(capsys):
    """rlcard-leduc deals the small blind: trace draws it from its seed (both seats over a few
    seeds), plays the hand below it, and its replay command names it (--small-blind K)."""
    config = get_config("rlcard-leduc")
    blinds = set()
    for seed in range(8):
        r = trace_hand("uniform", "rlcard-v1", config, seed=seed)
        sb = r.replay.small_blind
        assert sb in (0, 1)
        blinds.add(sb)
        assert all(f"/SB:P{sb + 1}/" in s.infoset for s in r.replay.steps)
        assert r.replay.steps[0].seat == sb  # the small blind acts first
        assert f"--small-blind {sb + 1} " in r.command()
        assert r.to_dict()["replay"]["small_blind"] == sb + 1
        cards = ",".join(config.ranks[k] for k in r.replay.cards)
        community = config.ranks[r.replay.community] if r.replay.community >= 0 else None
        again = replay(config, cards, r.actions, community, small_blind=sb)
        assert str(again) == str(r.replay)
        assert str(trace_hand("uniform", "rlcard-v1", config, seed=seed)) == str(r)
    assert blinds == {0, 1}
    code, out, err = run(capsys, ["trace", "rlcard-v1", "--preset", "rlcard-leduc", "--seed", "1"])
    assert code == 0, err
    first, *body, last = out.strip().splitlines()
    assert "small blind seat" in body[0]
    argv = last.removeprefix("replay it: teamleduc ").split(" --actions ")
    assert "--small-blind" in argv[0]
    code, replayed, _ = run(capsys, argv[0].split() + ["--actions", argv[1].strip("'")])
    assert code == 0 and replayed.strip().splitlines() == body


def test_trace_elsewhere_names_no_small_blind():
    r = trace_hand("uniform", None, get_config("leduc"), seed=3)
    assert r.replay.small_blind == -1 and "--small-blind" not in r.command()
