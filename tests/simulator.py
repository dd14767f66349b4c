"""An independent, deliberately naive step-by-step simulator of the rules (for tests only).

Written from the spec's text without reusing teamleduc.rules or teamleduc.tree: it replays an
action string on explicit cards and returns every seat's utility, or says which action is
illegal. Tests compare it with the vectorised tree and payoff arrays.
"""

from __future__ import annotations


def _stack(config):
    """Chips a seat starts with (ante included), or None when unlimited."""
    return getattr(config, "stack", None)


def legal(config, st) -> str:
    """Legal action letters for the seat to act in state ``st`` (a dict).

    With a stack (the pokercamp page): raising needs chips left after calling and an opponent
    who is not all-in; otherwise no cap ("no-cap") or the raise rule as in the spec."""
    seat = st["turn"]
    out = "c"
    stack = _stack(config)
    may_raise = True
    if config.raise_rule == "once-per-player":
        may_raise = seat not in st["raisers"]
    elif config.raise_rule == "cap":
        may_raise = st["raises"] < config.max_raises
    if stack is not None:
        chips_after_call = stack - max(st["bets"])
        opponent_all_in = any(st["bets"][s] == stack for s in st["alive"] if s != seat)
        may_raise = may_raise and chips_after_call > 0 and not opponent_all_in
    if may_raise:
        out += "r"
    if st["bets"][seat] < max(st["bets"]):
        out += "f"
    return out


def new_round(config, st, rnd):
    st["round"] = rnd
    st["raisers"] = set()
    st["raises"] = 0
    st["to_act"] = [s for s in range(config.num_seats) if s in st["alive"]]
    st["turn"] = st["to_act"][0]
    stack = _stack(config)
    if stack is not None and sum(st["bets"][s] < stack for s in st["alive"]) < 2:
        st["to_act"] = []  # an all-in was called: no more betting, straight to showdown
        st["turn"] = None


def start(config):
    st = {"bets": [config.ante] * config.num_seats, "alive": set(range(config.num_seats))}
    new_round(config, st, 0)
    return st


def copy_state(st) -> dict:
    """A copy of a hand's state that :func:`act` may change without touching ``st``."""
    return {
        "bets": list(st["bets"]),
        "alive": set(st["alive"]),
        "round": st["round"],
        "raisers": set(st["raisers"]),
        "raises": st["raises"],
        "to_act": list(st["to_act"]),
        "turn": st["turn"],
    }


def act(config, st, a: str):
    """Apply action letter ``a``; returns 'continue', 'round-over' or 'hand-over'."""
    seat = st["turn"]
    assert a in legal(config, st), (a, st)
    level = max(st["bets"])
    stack = _stack(config)
    if a == "c":
        st["bets"][seat] = level
        st["to_act"].remove(seat)
    elif a == "r":
        st["bets"][seat] = level + config.raise_sizes[st["round"]]
        if stack is not None and st["bets"][seat] > stack:
            st["bets"][seat] = stack  # short of a full raise: all-in
        st["raisers"].add(seat)
        st["raises"] += 1
        st["to_act"] = [s for s in st["alive"] if s != seat]
    else:
        st["alive"].discard(seat)
        st["to_act"].remove(seat)
    if len(st["alive"]) == 1:
        return "hand-over"
    if not st["to_act"]:
        return "round-over"
    n = config.num_seats
    for k in range(1, n + 1):
        if (seat + k) % n in st["to_act"]:
            st["turn"] = (seat + k) % n
            break
    return "continue"


def utilities(config, st, cards, community):
    pot = sum(st["bets"])
    alive = sorted(st["alive"])
    if len(alive) == 1:
        win = alive
    else:

        def strength(s):
            paired = community is not None and cards[s] == community
            return (1 if paired else 0, cards[s])

        best = max(strength(s) for s in alive)
        win = [s for s in alive if strength(s) == best]
    return [(pot / len(win) if s in win else 0.0) - st["bets"][s] for s in range(config.num_seats)]


def all_histories(config):
    """Every complete public action history as a list of (round, letters) tuples, DFS order
    c, r, f (the community card is not part of it)."""
    out = []

    def rec(st, hist):
        for a in "crf":
            if a not in legal(config, st):
                continue
            st2 = copy_state(st)
            res = act(config, st2, a)
            h2 = hist + [(st["round"], st["turn"], a)]
            if res == "hand-over" or (
                res == "round-over" and st2["round"] == config.num_rounds - 1
            ):
                out.append((h2, st2))
            elif res == "round-over":
                new_round(config, st2, st2["round"] + 1)
                if st2["to_act"]:
                    rec(st2, h2)
                else:  # all-in called: the last card is dealt, no more betting
                    out.append((h2, st2))  # (st2["round"] says the community card is out)
            else:
                rec(st2, h2)

    rec(start(config), [])
    return out
