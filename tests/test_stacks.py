"""Stack-limited Leduc (``leduc-stack50``, the pokercamp page's game): the rules hand by hand
against the independent simulator, the tree against the simulator's every history, the older
presets unchanged, and every command of the toolkit on the new preset."""

import json

import pytest

from teamleduc import rules
from teamleduc.config import PRESETS, get_config
from teamleduc.errors import TeamLeducError
from teamleduc.infosets import infoset_tables
from teamleduc.payoffs import chance_utility, deal_community_probabilities, deals
from teamleduc.replay import replay
from teamleduc.tree import CHANCE, DECISION, TERMINAL, build_tree

from . import simulator
from .cli_run import run

S50 = get_config("leduc-stack50")
Q, K, A = 0, 1, 2


def raises(n: int, first: int = 1) -> list[str]:
    """``n`` raises in turn starting with seat ``first``."""
    return [f"{1 + (first - 1 + i) % 2}:r" for i in range(n)]


def simulate(actions: list[str], cards, community=None):
    """Play ``actions`` (``SEAT:LETTER``) in the simulator; (final state, legal letters
    before each action, outcome of the last action)."""
    st = simulator.start(S50)
    seen, outcome = [], None
    for token in actions:
        seat, a = int(token[0]) - 1, token[2]
        assert st["turn"] == seat, (token, st)
        seen.append(simulator.legal(S50, st))
        outcome = simulator.act(S50, st, a)
        if outcome == "round-over" and st["round"] == 0:
            simulator.new_round(S50, st, 1)
            if not st["to_act"]:
                outcome = "all-in-showdown"
    return st, seen, outcome


def test_preset_is_the_page_game():
    c = S50
    assert (c.num_seats, c.ranks, c.suits, c.ante, c.raise_sizes, c.stack) == (
        2,
        ("Q", "K", "A"),
        2,
        1,
        (2, 4),
        50,
    )
    assert c.raise_rule == "no-cap"
    assert c.to_dict()["stack"] == 50
    # the older presets have no stack and their dictionaries are unchanged
    for name, config in PRESETS.items():
        if name != "leduc-stack50":
            assert config.stack is None and "stack" not in config.to_dict()


def test_stack_validation():
    with pytest.raises(ValueError, match="two seats"):
        get_config("team-leduc", stack=50)
    with pytest.raises(ValueError, match="needs a stack"):
        get_config("leduc", raise_rule="no-cap")
    with pytest.raises(ValueError, match="exceed the ante"):
        get_config("leduc-stack50", stack=1)


def test_check_check_and_fold_only_facing_a_bet():
    st, seen, outcome = simulate(["1:c", "2:c"], [K, Q])
    assert seen == ["cr", "cr"]  # no fold without a bet, check-check ends the round
    assert outcome == "round-over" and st["bets"] == [1, 1]
    r = replay(S50, "K,Q", "1:c 2:c / 1:c 2:r 1:f", community="A")
    assert [s.legal for s in r.steps] == ["cr", "cr", "cr", "cr", "crf"]
    assert r.utilities == (-1.0, 1.0)
    with pytest.raises(TeamLeducError, match="not facing a bet"):
        replay(S50, "K,Q", "1:f")


def test_all_in_raise_for_less_than_a_full_raise_round_1():
    # 24 raises of 2 take the level from 1 to 49; the 25th is all-in for one chip
    acts = raises(25)
    st, seen, _ = simulate(acts, [K, A])
    assert st["bets"] == [50, 49]
    assert all(s in ("cr", "crf") for s in seen) and seen[-1] == "crf"
    tree = build_tree(S50)
    node = 0
    for _ in acts:
        node = int(tree.children[node, 1])
    assert tree.contrib[node].tolist() == [50, 49]
    # facing the all-in: fold or call, no raise (the simulator agrees)
    st2, seen2, _ = simulate(acts + ["2:c"], [K, A])
    assert seen2[-1] == "cf"
    assert tree.legal[node].tolist() == [True, False, True]
    with pytest.raises(TeamLeducError, match="all-in"):
        replay(S50, "K,A", " ".join(acts + ["2:r"]), community="Q")


def test_no_betting_after_a_called_all_in():
    acts = raises(25) + ["2:c"]
    st, _, outcome = simulate(acts, [K, A])
    assert outcome == "all-in-showdown" and st["bets"] == [50, 50]
    tree = build_tree(S50)
    node = 0
    for tok in acts:
        node = int(tree.children[node, "crf".index(tok[2])])
    assert tree.kind[node] == CHANCE
    kids = tree.children[node, 3:]
    assert (tree.kind[kids] == TERMINAL).all()  # the card is dealt, then the showdown
    for comm, expected in ((Q, (-50.0, 50.0)), (K, (50.0, -50.0)), (A, (-50.0, 50.0))):
        r = replay(S50, "K,A", " ".join(acts), community="QKA"[comm])
        assert r.utilities == expected
        assert simulator.utilities(S50, st, [K, A], comm) == list(expected)
    with pytest.raises(TeamLeducError, match="an all-in was called: no more betting"):
        replay(S50, "K,A", " ".join(acts + ["1:c"]), community="Q")


def test_all_in_in_round_2_and_ties_split():
    # check-check, then 12 raises of 4 take round 2 from 1 to 49; the 13th is all-in for 1
    acts = ["1:c", "2:c"] + raises(13, first=1)
    st, seen, _ = simulate(acts, [Q, Q])
    assert st["bets"] == [50, 49]
    st, seen, outcome = simulate(acts + ["2:c"], [Q, Q])
    assert seen[-1] == "cf" and outcome == "round-over"
    r = replay(S50, "Q,Q", "1:c 2:c / " + " ".join(acts[2:] + ["2:c"]), community="A")
    assert r.utilities == (0.0, 0.0)  # equal ranks split the pot
    r = replay(S50, "Q,K", "1:c 2:c / " + " ".join(acts[2:] + ["2:c"]), community="Q")
    assert r.utilities == (50.0, -50.0)  # the pair beats the higher card


def test_seat_1_acts_first_in_each_round():
    tree = build_tree(S50)
    assert tree.actor[0] == 0
    firsts = tree.children[tree.kind == CHANCE][:, 3:].ravel()
    dec = firsts[tree.kind[firsts] == DECISION]
    assert len(dec) and (tree.actor[dec] == 0).all()


def test_every_terminal_matches_the_simulator():
    """Every public history of the simulator is one terminal per community card, with the
    same payoffs for every deal; and the tree has no other terminal."""
    tree = build_tree(S50)
    x = deals(S50)
    joint = deal_community_probabilities(S50)
    util = chance_utility(tree, (0,))
    term_index = {int(z): i for i, z in enumerate(tree.terminals)}
    found = set()
    for hist, final in simulator.all_histories(S50):
        communities = range(3) if final["round"] == 1 else [None]
        for comm in communities:
            node = 0
            for _r, seat, a in hist:
                if tree.kind[node] == CHANCE:
                    node = int(tree.children[node, 3 + comm])
                assert tree.kind[node] == DECISION and tree.actor[node] == seat
                node = int(tree.children[node, "crf".index(a)])
            if tree.kind[node] == CHANCE:  # a called all-in
                node = int(tree.children[node, 3 + comm])
            assert tree.kind[node] == TERMINAL
            assert tree.contrib[node].tolist() == final["bets"]
            found.add(node)
            z = term_index[node]
            for d in range(len(x)):
                u = simulator.utilities(S50, final, [int(c) for c in x[d]], comm)
                # a fold before the community card: the deal's probability alone
                w = joint[d, comm] if comm is not None else joint[d].sum()
                assert util[z, d] == pytest.approx(w * u[0], abs=1e-12)
    assert found == set(int(z) for z in tree.terminals)


def test_sizes_and_older_presets_unchanged():
    assert [t.size for t in infoset_tables(build_tree(S50))] == [3444, 3444]
    assert [t.size for t in infoset_tables(build_tree(get_config("leduc")))] == [144, 144]
    state = rules.initial_state(S50)
    assert rules.legal_actions(S50, state) == (rules.CALL, rules.RAISE)


# --------------------------------------------------------------------------- every command


P = ["--preset", "leduc-stack50"]


def test_info_and_infosets(capsys, tmp_path):
    code, out, _ = run(capsys, ["info", *P])
    assert code == 0 and "ranks Q K A" in out and "stack 50" in out and "3,444" in out
    code, out, _ = run(capsys, ["infosets", *P, "--out", str(tmp_path)])
    assert code == 0
    lines = (tmp_path / "leduc4-infosets-player2.csv").read_text().splitlines()
    assert len(lines) == 3444 and lines[:3] == ["/C:?Q/P1:c/", "/C:?K/P1:c/", "/C:?A/P1:c/"]


def test_replay_command(capsys):
    acts = " ".join(raises(25) + ["2:c"])
    code, out, _ = run(
        capsys, ["replay", *P, "--cards", "K,A", "--community", "K", "--actions", acts]
    )
    assert code == 0 and "seat 1 +50" in out
    code, _, err = run(capsys, ["replay", *P, "--cards", "K,A", "--actions", acts + " 1:c"])
    assert code == 2 and "an all-in was called: no more betting" in err
    short = " ".join(raises(25) + ["2:r"])
    code, _, err = run(capsys, ["replay", *P, "--cards", "K,A", "--actions", short])
    assert code == 2 and "no raise against an all-in player" in err


def test_validate_evaluate_exploitability_best_response(capsys, tmp_path):
    sub = tmp_path / "agg"
    assert run(capsys, ["baseline", "aggressive", *P, "--out", str(sub)])[0] == 0
    code, out, _ = run(capsys, ["validate", str(sub), *P, "--seats", "all"])
    assert code == 0
    # aggressive against itself: every hand is all-in preflop, a showdown of equal stakes
    # and chance is symmetric between the seats, so the value is exactly 0
    code, out, _ = run(capsys, ["evaluate", str(sub), "aggressive", *P, "--json"])
    assert code == 0 and json.loads(out)["value"] == pytest.approx(0.0, abs=1e-12)
    code, out, _ = run(capsys, ["exploitability", "always-call", *P, "--json"])
    assert code == 0
    code, out, _ = run(capsys, ["best-response", "always-call", *P, "--against", "a", "--json"])
    assert code == 0
    code, out, _ = run(capsys, ["match", "cautious", "uniform", *P])
    assert code == 0


def test_solve_and_grade(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        [
            "solve",
            *P,
            "--max-iterations",
            "30",
            "--time-limit",
            "6",  # the LP export takes what the 30 iterations leave (it took 35 s of 60)
            "--quiet",
            "--out",
            str(tmp_path / "s"),
        ],
    )
    assert code == 0
    code, out, _ = run(
        capsys,
        [
            "grade",
            str(tmp_path / "s" / "submission"),
            "--baselines",
            "uniform,cautious",
            *P,
            "--json",
            "--out",
            str(tmp_path / "grading"),
        ],
    )
    assert code == 0 and len(json.loads(out)["leaderboard"]) == 3
    assert (tmp_path / "grading" / "leaderboard.md").exists()
