"""A hand as a text table: one row per seat (card, chips in, state), then the history and pot."""

from __future__ import annotations

from .game import Hand

__all__ = ["render_table", "history_text"]


def history_text(hand: Hand) -> str:
    """The public history as ``1:r 2:f 3:f 4:c / J / 1:c 4:r`` (``/ J /``: the community card;
    where the small blind is dealt, ``SB 2`` first: seat 2 posted it)."""
    config = hand.game.config
    parts = [f"SB {hand.small_blind + 1}"] if config.dealt_blind else []
    round_of = hand.game.tree.round
    shown = False
    node = hand.root
    for seat, a in hand.actions:
        if not shown and hand.community >= 0 and round_of[node] == 1:
            parts.append(f"/ {config.ranks[hand.community]} /")
            shown = True
        parts.append(f"{seat + 1}:{'crf'[a]}")
        node = _child(hand, node, a)
    if not shown and hand.community >= 0:
        parts.append(f"/ {config.ranks[hand.community]} /")
    if not hand.actions:
        parts.append("(no action yet)")
    return " ".join(parts)


def _child(hand: Hand, node: int, a: int) -> int:
    tree = hand.game.tree
    child = int(tree.children[node, a])
    if tree.kind[child] == 1:  # chance: follow the community card
        child = int(tree.children[child, 3 + hand.community])
    return child


def render_table(hand: Hand, viewer: int | None = None) -> str:
    """The hand as text. ``viewer`` (0-based seat) sees only its own card until the showdown;
    None shows every card (the environment's full state); a note before the first hand."""
    if not hand.cards:
        return "(no hand dealt: call reset())"
    game = hand.game
    config = game.config
    tree = game.tree
    node = hand.node
    over = hand.over
    active = tree.active[node]
    showdown = over and int(active.sum()) > 1
    lines = [f"{'seat':<16}{'card':<6}{'in':>4}  state"]
    for s in range(config.num_seats):
        visible = viewer is None or s == viewer or (showdown and active[s])
        card = config.ranks[hand.cards[s]] if visible else "?"
        state = "folded" if not active[s] else ("to act" if hand.to_act == s else "")
        label = f"player_{s + 1}" + (" (you)" if viewer == s else "")
        lines.append(f"{label:<16}{card:<6}{int(tree.contrib[node, s]):>4}  {state}".rstrip())
    comm = config.ranks[hand.community] if hand.community >= 0 else "-"
    lines.append(f"community {comm}   pot {int(tree.contrib[node].sum())}")
    lines.append(f"history   {history_text(hand)}")
    return "\n".join(lines)
