"""rlcard-leduc (RLCard 1.2.0's Leduc Hold'em) against a small independent simulator of RLCard's
rules, hand by hand; RLCard's rule agents as baselines, with values computed by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from teamleduc.baselines import baseline, baseline_strategy, baselines_for
from teamleduc.best_response import best_response, nash_conv
from teamleduc.config import PRESETS, get_config
from teamleduc.envs.game import Hand, env_game
from teamleduc.errors import ArgumentValueError, TeamLeducError
from teamleduc.evaluate import evaluate
from teamleduc.infosets import infoset_tables, parse_infoset
from teamleduc.payoffs import utilities_at
from teamleduc.tree import CHANCE, DECISION, TERMINAL, build_tree
from teamleduc.validate import validate_submission

CONFIG = get_config("rlcard-leduc")
TREE = build_tree(CONFIG)
RANKS = "JQK"


# --------------------------------------------------------------------------- the simulator


class RLCardHand:
    """RLCard's LeducholdemGame for two players, written from its rules: the small blind (seat
    ``sb``) posts 1, the other 2; the small blind acts first; ``call``/``check``/``raise`` (by 2,
    then 4 in round 2, at most 2 per round)/``fold`` (always offered); a round ends after two
    non-raising actions in a row, and round 2 starts with the seat after the one who ended
    round 1; payoffs are chips / big blind."""

    def __init__(self, sb: int):
        self.chips = [0, 0]
        self.chips[sb], self.chips[1 - sb] = 1, 2
        self.raised = list(self.chips)
        self.player = sb
        self.round = 0
        self.raises = 0
        self.quiet = 0  # non-raising actions since the last raise
        self.folded = None
        self.over = False

    def legal(self) -> str:
        """Legal actions as our letters: call/check -> c, raise -> r, fold -> f."""
        return "c" + ("r" if self.raises < 2 else "") + "f"

    def facing(self) -> bool:
        return self.raised[self.player] < max(self.raised)

    def act(self, letter: str) -> None:
        assert not self.over and letter in self.legal()
        p = self.player
        if letter == "f":
            self.folded, self.over = p, True
            return
        if letter == "c":
            add = max(self.raised) - self.raised[p]  # 0 for a check
            self.quiet += 1
        else:
            add = max(self.raised) - self.raised[p] + (2 if self.round == 0 else 4)
            self.raises += 1
            self.quiet = 1
        self.raised[p] += add
        self.chips[p] += add
        self.player = 1 - p
        if self.quiet >= 2:
            if self.round == 1:
                self.over = True
            else:
                self.round, self.raised, self.raises, self.quiet = 1, [0, 0], 0, 0

    def payoffs_bb(self, cards, public) -> list[float]:
        if self.folded is not None:
            winners = [1 - self.folded]
        else:
            pair = [p for p in (0, 1) if cards[p] == public]
            best = max(cards)
            winners = pair or [p for p in (0, 1) if cards[p] == best]
        pot = sum(self.chips)
        return [(pot / len(winners) * (p in winners) - self.chips[p]) / 2 for p in (0, 1)]


def histories(sb: int):
    """Every complete action sequence of the simulator, with the round-1 length."""
    out = []

    def walk(seq: str):
        h = RLCardHand(sb)
        for a in seq:
            h.act(a)
        if h.over:
            out.append(seq)
            return
        for a in h.legal():
            walk(seq + a)

    walk("")
    return out


def round1_length(sb: int, seq: str) -> int:
    h = RLCardHand(sb)
    for k, a in enumerate(seq):
        h.act(a)
        if h.round == 1:
            return k + 1
    return len(seq)


def walk_tree(sb: int, seq: str, community: int):
    """Our tree walked along ``seq`` below small blind ``sb``: checks actor, legal actions and
    chips against the simulator at every step; returns the terminal node."""
    sim = RLCardHand(sb)
    node = int(TREE.children[0, 3 + sb])
    for a in seq:
        if TREE.kind[node] == CHANCE:
            node = int(TREE.children[node, 3 + community])
        assert TREE.kind[node] == DECISION and TREE.actor[node] == sim.player
        legal = "".join(ch for ch, ok in zip("crf", TREE.legal[node]) if ok)
        assert legal == sim.legal()
        assert list(TREE.contrib[node]) == sim.chips
        sim.act(a)
        node = int(TREE.children[node, "crf".index(a)])
    assert TREE.kind[node] == TERMINAL and sim.over
    assert list(TREE.contrib[node]) == sim.chips
    return node, sim


# --------------------------------------------------------------------------- the rules


def test_every_hand_matches_the_simulator():
    """Every action sequence of both small blinds, every community card and deal: the same
    actor, legal actions and chips at each step, the same payoffs in big blinds; and the tree
    has exactly the simulator's terminals (a round-2 end once per community rank)."""
    ends = 0
    for sb in (0, 1):
        for seq in histories(sb):
            reaches2 = len(seq) > round1_length(sb, seq)
            for public in range(3) if reaches2 else [-1]:
                node, sim = walk_tree(sb, seq, public)
                assert TREE.community[node] == public
                for cards in itertools.product(range(3), repeat=2):
                    used = [*cards] + ([public] if public >= 0 else [])
                    if max(used.count(r) for r in used) > 2:  # two cards of each rank
                        continue
                    ours = utilities_at(TREE, node, cards, public) / CONFIG.big_blind
                    assert list(ours) == sim.payoffs_bb(cards, public)
                ends += 1
    assert ends == len(TREE.terminals) == 342


def test_hand_by_hand():
    # blinds: the small blind has 1 in, the big blind 2, and the small blind acts first
    for sb in (0, 1):
        child = int(TREE.children[0, 3 + sb])
        assert TREE.actor[child] == sb and sorted(TREE.contrib[child]) == [1, 2]
        assert TREE.contrib[child, sb] == 1
    tables = infoset_tables(TREE)

    def seat_of(string):
        return parse_infoset(CONFIG, string)[0]

    # fold is legal when not facing a bet: the big blind after the small blind calls
    s, i = parse_infoset(CONFIG, "/C:?K/SB:P1/P1:c/")
    assert s == 1 and tables[1].legal_strings[i] == "crf"
    # round 2 opened by the seat after the one who closed round 1
    assert seat_of("/C:J?/SB:P1/P1:c/P2:c/C:Q/") == 0  # P2 closed: P1 opens
    assert seat_of("/C:?J/SB:P1/P1:c/P2:r/P1:c/C:Q/") == 1  # P1 closed: P2 opens
    assert seat_of("/C:?J/SB:P2/P2:r/P1:c/C:Q/") == 1  # P1's call closed: P2 opens
    # the round-2 opener may fold without facing a bet
    _, i = parse_infoset(CONFIG, "/C:?J/SB:P2/P2:r/P1:c/C:Q/")
    assert tables[1].legal_strings[i] == "crf"
    # at most two raises per round
    _, i = parse_infoset(CONFIG, "/C:J?/SB:P1/P1:r/P2:r/")
    assert tables[0].legal_strings[i] == "cf"
    # payoffs in big blinds: the small blind folding at once loses half a big blind
    node = int(TREE.children[int(TREE.children[0, 3]), 2])
    assert list(utilities_at(TREE, node, (0, 2)) / CONFIG.big_blind) == [-0.5, 0.5]


def test_hand_by_hand_corrected():
    """The round-2 openers spelled out: an infoset string exists only for the seat to act."""
    with pytest.raises(ValueError):
        parse_infoset(CONFIG, "/C:J?/SB:P2/P2:r/P1:c/C:Q/")  # P2 opens, not P1
    # raise sizes: 2 in round 1, 4 in round 2 (chips in after r r c, then r)
    h = Hand(env_game(CONFIG))
    h.start((0, 1), 2, small_blind=0)
    for a in (1, 1, 0):  # P1 r (to 4), P2 r (to 6), P1 c (6)
        h.act(a)
    assert list(TREE.contrib[h.node]) == [6, 6] and h.to_act == 1 and h.community == 2
    h.act(1)  # P2 opens round 2 with a raise of 4
    assert list(TREE.contrib[h.node]) == [6, 10]
    assert h.infoset(0) == "/C:J?/SB:P1/P1:r/P2:r/P1:c/C:K/P2:r/"


def test_preset_and_older_presets_unchanged():
    d = CONFIG.to_dict()
    assert d["blinds"] == [1, 2] and d["ante"] == 0 and d["fold_rule"] == "always"
    assert d["dealt_blind"] is True and d["round2_order"] == "after-closer"
    for name, c in PRESETS.items():
        if name != "rlcard-leduc":
            assert not {"blinds", "dealt_blind", "round2_order", "fold_rule"} & set(c.to_dict())
    assert [t.size for t in infoset_tables(TREE)] == [288, 288]
    with pytest.raises(ArgumentValueError, match="dealt_blind needs blinds"):
        get_config("leduc", dealt_blind=True)
    with pytest.raises(ArgumentValueError, match="fold_rule"):
        get_config("leduc", fold_rule="sometimes")


# --------------------------------------------------------------------------- RLCard's agents


def test_rule_agents_act_as_rlcards_code():
    tree, tables = TREE, infoset_tables(TREE)
    for seat in (0, 1):
        v1 = baseline_strategy("rlcard-v1", tree, seat).argmax(axis=1)
        v2 = baseline_strategy("rlcard-v2", tree, seat).argmax(axis=1)
        t = tables[seat]
        np.testing.assert_array_equal(v1, np.where(t.legal[:, 1], 1, 0))  # raise, else call
        round1 = tree.round[t.node] == 0
        assert (v2[round1] == 2).all()  # V2 folds every hand in round 1 (suit tested)
        pair = tree.community[t.node] == t.rank
        assert (v2[~round1 & ~pair] == 2).all()
        assert (v2[~round1 & pair] == np.where(t.legal[~round1 & pair, 1], 1, 0)).all()
    assert set(baselines_for(CONFIG)) >= {"rlcard-v1", "rlcard-v2"}
    assert "rlcard-v1" not in baselines_for(get_config("leduc"))
    with pytest.raises(TeamLeducError, match="plays only RLCard's Leduc"):
        baseline("rlcard-v2", get_config("leduc"))


def test_rlcard_v2_against_uniform_by_hand():
    """V2 folds at its first decision. As small blind (probability 1/2) it folds at once: -1
    chip. As big blind, uniform (small blind, facing the big blind: c, r, f) folds with 1/3
    (+1 for V2) and otherwise V2 folds: -2. So V2 makes 1/2 * (-1) + 1/2 * (1/3 * 1 + 2/3 * -2)
    = -1/2 - 1/2 = -1 chip = -0.5 big blinds per hand, on either seat."""
    by_hand = 0.5 * -1 + 0.5 * (1 / 3 * 1 + 2 / 3 * -2)
    assert by_hand == pytest.approx(-1.0)
    assert evaluate("rlcard-v2", "uniform", CONFIG).value == pytest.approx(by_hand, abs=1e-12)
    assert evaluate("uniform", "rlcard-v2", CONFIG).value_b == pytest.approx(by_hand, abs=1e-12)
    # V1 against V2: V2 small blind folds (+1), V2 big blind folds to V1's raise (+2): +1.5
    assert evaluate("rlcard-v1", "rlcard-v2", CONFIG).value == pytest.approx(1.5, abs=1e-12)
    # and no strategy does better against V2: the best response makes 1.5 too
    assert best_response(CONFIG, 0, "rlcard-v2").value == pytest.approx(1.5, abs=1e-12)


def test_symmetric_game_value_and_nashconv():
    assert evaluate("uniform", "uniform", CONFIG).value == pytest.approx(0.0, abs=1e-12)
    nc = nash_conv(CONFIG, "rlcard-v2")  # both seats fold at once: BR wins 1.5 on each seat
    assert nc.nash_conv == pytest.approx(2 * (1.5 - 0.0), abs=1e-12)
    # values given the cards average over the dealt small blind: they add up to the value
    from teamleduc.payoffs import deal_probabilities

    p = deal_probabilities(CONFIG)
    given = [
        evaluate("rlcard-v1", "uniform", CONFIG, cards=f"{a},{b}").value
        for a, b in itertools.product(RANKS, repeat=2)
    ]
    total = evaluate("rlcard-v1", "uniform", CONFIG).value
    assert float(p @ np.array(given)) == pytest.approx(total, abs=1e-12)


def test_submission_for_the_wrong_leduc_names_the_mismatch(tmp_path):
    from teamleduc.baselines import export_baseline

    export_baseline("uniform", CONFIG, tmp_path / "rl")
    export_baseline("uniform", get_config("leduc"), tmp_path / "os")
    bad = validate_submission(tmp_path / "rl", "leduc")
    text = str(bad)
    assert not bad.ok and "288 lines" in text and "rlcard-leduc's count" in text
    bad = validate_submission(tmp_path / "os", "rlcard-leduc")
    text = str(bad)
    assert not bad.ok and "144 lines" in text and "leduc's count" in text
    assert validate_submission(tmp_path / "rl", "rlcard-leduc").ok


def test_env_hand_needs_the_small_blind():
    h = Hand(env_game(CONFIG))
    with pytest.raises(ArgumentValueError, match="small_blind"):
        h.start((0, 1), 2)
    with pytest.raises(ArgumentValueError, match="small_blind"):
        Hand(env_game("leduc")).start((0, 1), 2, small_blind=1)
    h.start((0, 1), 2, small_blind=1)
    assert h.to_act == 1 and h.history == "SB:P2/" and h.infoset(1) == "/C:?Q/SB:P2/"


def test_agents_study_on_rlcard_leduc_in_big_blinds():
    from teamleduc.agents.study import Study, default_bots, default_unit

    assert default_bots(CONFIG) == ("uniform", "rlcard-v1", "rlcard-v2")
    assert default_unit(CONFIG) == "bb" and default_unit(get_config("leduc")) == "chips"
    study = Study(
        CONFIG, agents=("expectiminimax",), bots=default_bots(CONFIG), max_depth=2, unit="bb"
    ).run(progress=False)
    row = next(r for r in study.rows if r.bot == "rlcard-v2")
    # the ceiling against V2 is the best response by hand: 1.5 chips = 0.75 big blinds
    assert row.ceiling == pytest.approx(1.5, abs=1e-12)
    assert "| rlcard-v2 | expectiminimax |" in study.table()
    assert f"{row.ceiling / 2:+.4f}" in study.table() and "bb/hand" in study.table()
    # the exported policy's exact value, by evaluate, is the row's value (chips)
    sub = study.final[("", "expectiminimax")]
    both = (evaluate(sub, "rlcard-v2", CONFIG).value - evaluate("rlcard-v2", sub, CONFIG).value) / 2
    assert row.value == pytest.approx(both, abs=1e-9)
    claims = study.claims()
    assert any("flattens after depth 1 against rlcard-v2" in c for c in claims)


def test_unit_bb_on_the_command_line():
    from click.testing import CliRunner

    from teamleduc.cli import cli as main

    run = CliRunner().invoke
    r = run(main, ["evaluate", "rlcard-v2", "uniform", "--preset", "rlcard-leduc", "--unit", "bb"])
    assert r.exit_code == 0 and "team A -0.500000000000" in r.output and "big blinds" in r.output
    r = run(main, ["match", "rlcard-v1", "rlcard-v2", "--preset", "rlcard-leduc", "--unit", "bb"])
    assert r.exit_code == 0 and "+0.750000000000 big blinds per hand" in r.output
    r = run(main, ["exploitability", "rlcard-v2", "--preset", "rlcard-leduc", "--unit", "bb"])
    assert r.exit_code == 0 and "NashConv: 1.500000000000" in r.output
    r = run(main, ["evaluate", "uniform", "uniform", "--preset", "leduc", "--unit", "bb"])
    assert isinstance(r.exception, TeamLeducError)  # the entry point prints it as one line
    assert "--unit bb: leduc has no blinds" in str(r.exception)
