"""See what a strategy does: its probabilities at one information set, and one hand played.

:func:`show_infoset` (``teamleduc show``) gives the row of an information set under every
signal, and the **team's marginal** there. A correlated team draws signal k with weight
``w_k`` and then each member plays its strategy ``sigma_k``. Seen from outside, one member at
information set I plays the mixture of the signals *conditioned on that member reaching I*:

    marginal(a | I) = sum_k w_k pi_k(I) sigma_k(a | I) / sum_k w_k pi_k(I)

where ``pi_k(I)`` is the member's own probability, under signal k, of the actions that lead to
I (its reach; chance and the other seats are left out). This is the behaviour strategy that,
played by that member alone, gives every outcome the probability the mixture gives it (Kuhn's
theorem for the member's mixed strategy). It ignores what the partner's actions tell about the
signal: conditioning on those too would depend on the partner's unseen card and on the
opponents, so it is not a property of the submission alone. When no signal reaches I the
marginal is undefined and not shown.

:func:`trace_hand` (``teamleduc trace``) deals one hand with the exact deal probabilities,
draws each team's signal from its meta-strategy, plays every action from the strategies and
returns it as :func:`teamleduc.replay.replay` prints it. It samples one hand to look at; it is
never used to evaluate (evaluation is exact).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arguments import check_seed, excerpt
from .config import GameConfig, require_config
from .entrants import load_entrant
from .errors import ArgumentTypeError, TeamLeducError
from .infosets import infoset_tables, mask, parse_infoset, seat_of_string
from .payoffs import deal_community_probabilities, deal_probabilities, deals
from .replay import ReplayResult, replay
from .tree import CHANCE, build_tree


@dataclass(frozen=True, eq=False)
class InfosetView:
    """The rows of one information set under every signal, and the team's marginal.

    ``seat`` is 0-based, ``line`` 1-based; ``rows`` (K, 3) in the order c, r, f; ``reach``
    (K,) the member's own reach under each signal; ``marginal`` (3,) or None if no signal
    reaches the information set.
    """

    preset: str
    name: str
    infoset: str
    seat: int
    line: int
    legal: str
    signals: np.ndarray
    weights: np.ndarray
    reach: np.ndarray
    rows: np.ndarray
    marginal: np.ndarray | None

    @property
    def posterior(self) -> np.ndarray:
        """(K,) each signal's weight given that the member reached here (zeros if none does)."""
        w = self.weights * self.reach
        total = w.sum()
        return w / total if total > 0 else np.zeros_like(w)

    def __str__(self) -> str:
        lines = [
            f"{self.name} ({self.preset}): {self.infoset}",
            f"seat {self.seat + 1}, line {self.line} of its information-set file; legal "
            f"actions {self.legal}",
            f"{'signal':>6}  {'weight':>9}  {'reach':>9}  {'given here':>10}  "
            f"{'p_c':>9}  {'p_r':>9}  {'p_f':>9}",
        ]
        for j, w, r, q, row in zip(
            self.signals.tolist(),
            self.weights.tolist(),
            self.reach.tolist(),
            self.posterior.tolist(),
            self.rows.tolist(),
        ):
            lines.append(
                f"{j:>6}  {w:>9.6g}  {r:>9.6g}  {q:>10.6g}  " + "  ".join(f"{x:>9.6g}" for x in row)
            )
        if self.marginal is None:
            lines.append("team's marginal: undefined (no signal reaches this information set)")
        else:
            lines.append(
                "team's marginal: "
                + "  ".join(f"p_{a} {x:.6g}" for a, x in zip("crf", self.marginal.tolist()))
            )
        lines.append(
            "(the signals' rows weighted by weight x reach, the member's own probability of the "
            "actions that lead here; partner and opponents left out)"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "preset": self.preset,
            "submission": self.name,
            "infoset": self.infoset,
            "seat": self.seat + 1,
            "line": self.line,
            "legal": self.legal,
            "signals": [
                {
                    "signal": int(j),
                    "weight": float(w),
                    "reach": float(r),
                    "weight_given_here": float(q),
                    "p_c": float(row[0]),
                    "p_r": float(row[1]),
                    "p_f": float(row[2]),
                }
                for j, w, r, q, row in zip(
                    self.signals, self.weights, self.reach, self.posterior, self.rows
                )
            ],
            "marginal": None if self.marginal is None else [float(x) for x in self.marginal],
        }


def own_reach(sub, config: GameConfig, seat: int, infoset_id: int) -> np.ndarray:
    """(K,) the probability, under each signal, of seat ``seat``'s own actions on the way to
    its information set ``infoset_id`` (one step per action on the path, not per infoset)."""
    tree = build_tree(config)
    table = infoset_tables(tree)[seat]
    rank = int(table.rank[infoset_id])
    reach = np.ones(len(sub.signals))
    node = int(table.node[infoset_id])
    while tree.parent[node] >= 0:
        parent = int(tree.parent[node])
        if tree.kind[parent] != CHANCE and tree.actor[parent] == seat:
            reach = reach * sub.strategies[seat][:, table.id_of[parent, rank], tree.action[node]]
        node = parent
    return reach


def find_infoset(config: GameConfig, infoset: str) -> tuple[int, int]:
    """``(seat, id)`` of the information-set string ``infoset`` (0-based; surrounding blanks
    ignored). TypeError for a non-string; otherwise a TeamLeducError saying why it is not one,
    which shows the string escaped and at most 80 characters of it (a megabyte ``--infoset``
    or one holding terminal escape sequences is never echoed as it is)."""
    if not isinstance(infoset, str):
        raise ArgumentTypeError(f"infoset must be a str, not {type(infoset).__name__}")
    text = infoset.strip()
    try:
        return parse_infoset(config, text)
    except ValueError:
        pass
    example = f"/C:{mask(config, 0, 0)}/"
    if not text.startswith("/C:") or "/" not in text[3:]:
        why = f"not an information-set string (one starts like {example})"
    else:
        try:
            seat = seat_of_string(config, text)
        except ValueError:
            deal = text[3 : text.index("/", 3)]
            why = (
                f"the deal field {excerpt(deal, 40)} is not one of {config.name} "
                f"({config.num_seats} fields, '?' for every seat but the owner's rank, as in "
                f"{example})"
            )
        else:
            why = f"not an information set of seat {seat + 1} in {config.name}"
    raise TeamLeducError(f"infoset {excerpt(text)}: {why}")


def show_infoset(sub, config: GameConfig, infoset: str) -> InfosetView:
    """What submission ``sub`` (a path, a baseline name or a Submission) plays at the
    information set ``infoset`` (a string of any seat), per signal and as the team's marginal."""
    require_config(config)
    seat, iid = find_infoset(config, infoset)
    entrant = load_entrant(sub, config)
    s = entrant.submission
    if seat not in s.seats:
        raise TeamLeducError(
            f"{entrant.name} plays seats {','.join(str(x + 1) for x in s.seats)}, not seat "
            f"{seat + 1}"
        )
    table = infoset_tables(build_tree(config))[seat]
    reach = own_reach(s, config, seat, iid)
    rows = np.asarray(s.strategies[seat][:, iid], dtype=np.float64)
    w = np.asarray(s.probs) * reach
    marginal = (w @ rows) / w.sum() if w.sum() > 0 else None
    return InfosetView(
        preset=config.name,
        name=entrant.name,
        infoset=table.strings[iid],
        seat=seat,
        line=iid + 1,
        legal=table.legal_strings[iid],
        signals=np.asarray(s.signals),
        weights=np.asarray(s.probs, dtype=np.float64),
        reach=reach,
        rows=rows,
        marginal=marginal,
    )


@dataclass(frozen=True)
class TraceResult:
    """One hand dealt and played from the strategies; ``replay`` is the hand as
    ``teamleduc replay`` prints it, ``signals`` the signal each team drew."""

    seed: int
    names: tuple[str, str]
    signals: tuple[int, int]
    actions: str
    replay: ReplayResult

    def command(self) -> str:
        """The ``teamleduc replay`` command that replays this hand."""
        r = self.replay
        c = r.config
        cards = ",".join(c.ranks[k] for k in r.cards)
        community = f" --community {c.ranks[r.community]}" if r.community >= 0 else ""
        blind = f" --small-blind {r.small_blind + 1}" if r.small_blind >= 0 else ""
        return (
            f"teamleduc replay --preset {c.name} --cards {cards}{community}{blind} "
            f"--actions '{self.actions}'"
        )

    def __str__(self) -> str:
        teams = self.replay.config.teams
        who = ", ".join(
            f"team {'+'.join(str(s + 1) for s in t)} {n} (signal {j})"
            for t, n, j in zip(teams, self.names, self.signals)
        )
        return f"seed {self.seed}: {who}\n{self.replay}\nreplay it: {self.command()}"

    def to_dict(self) -> dict:
        return {
            "seed": self.seed,
            "submissions": list(self.names),
            "signals": list(self.signals),
            "actions": self.actions,
            "replay": self.replay.to_dict(),
            "command": self.command(),
        }


def _draw(rng: np.random.Generator, p: np.ndarray) -> int:
    p = np.asarray(p, dtype=np.float64)
    return int(rng.choice(len(p), p=p / p.sum()))


def trace_hand(team_a, team_b, config: GameConfig, seed: int = 0) -> TraceResult:
    """Deal one hand (exact deal probabilities; where the small blind is dealt, as on
    ``rlcard-leduc``, then its seat, uniformly), draw each team's signal, and play it out from
    the strategies of ``team_a`` (team A's seats) and ``team_b`` (team B's; ``team_a``'s own
    when None). The same seed gives the same hand; ``seed`` is an int ``0 <= seed < 2**63``
    (TypeError / ValueError naming it otherwise)."""
    require_config(config)
    seed = check_seed(seed)
    if len(config.teams) != 2:
        raise TeamLeducError(f"trace plays two teams; {config.name} has {len(config.teams)}")
    ea = load_entrant(team_a, config)
    eb = ea if team_b is None else load_entrant(team_b, config)
    for e, team in ((ea, config.teams[0]), (eb, config.teams[1])):
        if not set(team) <= set(e.submission.seats):
            raise TeamLeducError(
                f"{e.name} plays seats {','.join(str(s + 1) for s in e.submission.seats)}; "
                f"it must play seats {','.join(str(s + 1) for s in team)} here"
            )
    from .envs.game import Hand, env_game  # the environments' package loads gymnasium

    rng = np.random.default_rng(seed)
    d = _draw(rng, deal_probabilities(config))
    cards = [int(x) for x in deals(config)[d]]
    community = _draw(rng, deal_community_probabilities(config)[d]) if config.has_community else -1
    # the dealt small blind: one more draw, only on the presets that deal it (the hands of
    # every other preset, and so their seeds, are unchanged)
    small_blind = int(rng.integers(config.num_seats)) if config.dealt_blind else None
    signal_index = [_draw(rng, ea.submission.probs), _draw(rng, eb.submission.probs)]
    hand = Hand(env_game(config))
    hand.start(cards, community, small_blind)
    while not hand.over:
        seat = hand.to_act
        team = 0 if seat in config.teams[0] else 1
        strategy = (ea, eb)[team].submission.strategies[seat]
        hand.act(_draw(rng, strategy[signal_index[team], hand.infoset_index(seat)]))
    actions = hand.actions_text()
    names = (ea.name, eb.name)
    signals = (
        int(ea.submission.signals[signal_index[0]]),
        int(eb.submission.signals[signal_index[1]]),
    )
    result = replay(
        config,
        cards,
        actions,
        config.ranks[community] if community >= 0 else None,
        small_blind,
    )
    return TraceResult(int(seed), names, signals, actions, result)
