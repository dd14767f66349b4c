"""Information sets: ids, strings and the spec's file order.

A seat's information set is (public node where it acts, its own rank). Ids follow the order of
``leduc4-infosets-player{i}.csv`` (spec section 3): nodes in depth-first pre-order, and at each
node the owner's rank weakest first, so ``id = position of node among the seat's decision nodes
* R + rank`` and line n (1-based) of the file is id n - 1.

String form (spec section 2): ``/C:<mask>/`` then ``P<k>:<a>/`` per action and ``C:<rank>/`` when
the community card is dealt, e.g. ``/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/``. The mask has
one field per seat: ``?`` for every other seat and the owner's rank name at its own seat.
Generalisation to other games: with S seats the mask has S fields; rank names longer than one
character (``kuhn-100`` names its ranks 1..100) stand in the owner's field unchanged, which still
parses uniquely because the owner's field is the only one that is not ``?``.

Extension for a dealt small blind (``rlcard-leduc``, docs/source-games.md): the root is a public
chance node picking the small-blind seat, and its edge is written ``SB:P<k>/`` (seat k posts the
small blind) right after the mask, e.g. ``/C:K?/SB:P2/P2:c/P1:r/``. Games without a dealt
blind have no such token, so their strings are the spec's unchanged.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .config import GameConfig
from .decimals import format_rows
from .outputs import write_bytes_atomic, write_text_atomic
from .rules import ACTION_CHARS
from .tree import PublicTree, build_tree


def edge_tokens(tree: PublicTree) -> list[str]:
    """Token of each node's incoming edge: ``P<k>:<a>/`` or ``C:<rank>/`` ('' at the root)."""
    config = tree.config
    width = tree.children.shape[1]
    # Code (parent's actor + 1) * width + action; the few distinct tokens are built once.
    table = [""] * ((config.num_seats + 1) * width)
    for s in range(config.num_seats):
        for a in range(3):
            table[(s + 1) * width + a] = f"P{s + 1}:{ACTION_CHARS[a]}/"
    for k, name in enumerate(config.ranks if config.has_community else ()):
        table[3 + k] = f"C:{name}/"
    parent_actor = np.where(tree.parent >= 0, tree.actor[np.maximum(tree.parent, 0)], -1)
    code = (parent_actor.astype(np.int64) + 1) * width + tree.action
    code[tree.parent < 0] = 0
    tokens = [table[c] for c in code.tolist()]
    if config.dealt_blind:  # the root's edges deal the small blind: SB:P<k>/
        for child in np.flatnonzero(tree.parent == 0).tolist():
            tokens[child] = blind_token(int(tree.action[child]) - 3)
    return tokens


def blind_token(seat: int) -> str:
    """The token of a dealt small blind, ``SB:P<k>/`` for 0-based ``seat`` (k = seat + 1)."""
    return f"SB:P{seat + 1}/"


@functools.lru_cache(maxsize=8)
def node_histories(tree: PublicTree) -> tuple[str, ...]:
    """Public history string of every node (the part of an information set after the mask)."""
    tokens = edge_tokens(tree)
    parent = tree.parent.tolist()
    hist = [""] * len(tokens)
    for i in range(1, len(tokens)):  # parent[i] < i: one pass in pre-order
        hist[i] = hist[parent[i]] + tokens[i]
    return tuple(hist)


def mask(config, seat: int, rank: int) -> str:
    """The deal field of seat ``seat`` holding ``rank``, e.g. ``??Q?``."""
    return "?" * seat + config.ranks[rank] + "?" * (config.num_seats - seat - 1)


@dataclass(frozen=True, eq=False)
class InfosetTable:
    """The information sets of one seat.

    Attributes
    ----------
    seat : 0-based seat.
    node : (n,) int32 public node of each information set.
    rank : (n,) int16 owner's rank of each information set.
    legal : (n, 3) bool legal actions in the column order c, r, f.
    id_of : (N, R) int32 information-set id of (node, rank), -1 where the seat does not act.
    """

    tree: PublicTree
    seat: int
    node: np.ndarray
    rank: np.ndarray
    legal: np.ndarray
    id_of: np.ndarray

    @property
    def size(self) -> int:
        return int(self.node.shape[0])

    @functools.cached_property
    def strings(self) -> list[str]:
        """The information-set strings in id order (the file's lines)."""
        hist = node_histories(self.tree)
        config = self.tree.config
        masks = [f"/C:{mask(config, self.seat, r)}/" for r in range(config.num_ranks)]
        return [masks[r] + hist[n] for n, r in zip(self.node.tolist(), self.rank.tolist())]

    @functools.cached_property
    def lookup(self) -> dict[str, int]:
        """String -> id (for parsing user input; not for hot paths)."""
        return {s: i for i, s in enumerate(self.strings)}

    def parse(self, string: str) -> int:
        """Id of an information-set string of this seat; ValueError if it is not one."""
        try:
            return self.lookup[string]
        except KeyError:
            raise ValueError(
                f"{string!r} is not an information set of seat {self.seat + 1} "
                f"in {self.tree.config.name}"
            ) from None

    @functools.cached_property
    def legal_strings(self) -> list[str]:
        """The legal actions of each information set as a string in the order c, r, f (``"crf"``,
        ``"cr"``, ``"cf"``, ``"c"``), in id order."""
        code = self.legal.astype(np.int64) @ np.array([1, 2, 4])
        names = ["".join(ch for k, ch in enumerate("crf") if c >> k & 1) for c in range(8)]
        return np.array(names, dtype=object)[code].tolist()

    def uniform_strategy(self) -> np.ndarray:
        """(n, 3) uniform over the legal actions (the handout's example strategy)."""
        legal = self.legal.astype(np.float64)
        return legal / legal.sum(axis=1, keepdims=True)


@functools.lru_cache(maxsize=8)
def infoset_tables(tree: PublicTree) -> tuple[InfosetTable, ...]:
    """One :class:`InfosetTable` per seat."""
    R = tree.config.num_ranks
    out = []
    for seat in range(tree.config.num_seats):
        nodes = tree.decision_nodes(seat)
        node = np.repeat(nodes, R).astype(np.int32)
        rank = np.tile(np.arange(R, dtype=np.int16), len(nodes))
        id_of = np.full((tree.num_nodes, R), -1, np.int32)
        id_of[node, rank] = np.arange(len(node), dtype=np.int32)
        legal = tree.legal[node]
        for a in (node, rank, id_of, legal):
            a.setflags(write=False)
        out.append(
            InfosetTable(tree=tree, seat=seat, node=node, rank=rank, legal=legal, id_of=id_of)
        )
    return tuple(out)


def tables_for(config: GameConfig) -> tuple[InfosetTable, ...]:
    """The information-set tables of a GameConfig (cached with its tree)."""
    return infoset_tables(build_tree(config))


@functools.lru_cache(maxsize=1)
def preset_sizes() -> dict[str, tuple[int, ...]]:
    """Information sets per seat of every preset: the line counts a submission is recognised by
    (computed once per process; about 0.15 s, most of it team-leduc's tree)."""
    from .config import PRESETS

    return {name: tuple(t.size for t in tables_for(c)) for name, c in PRESETS.items()}


def presets_with_count(seat: int, count: int, exclude: str = "") -> list[str]:
    """The presets whose 0-based ``seat`` has ``count`` information sets (but ``exclude``)."""
    return [
        name
        for name, sizes in preset_sizes().items()
        if name != exclude and seat < len(sizes) and sizes[seat] == count
    ]


def count_hint(seat: int, count: int, preset: str) -> str:
    """``"; this is team-leduc-2025's count; pass --preset team-leduc-2025"`` when ``count``
    lines fit seat ``seat`` of other presets than ``preset``, else ``""``."""
    others = presets_with_count(seat, count, exclude=preset)
    if not others:
        return ""
    names = " and ".join(f"{n}'s" for n in others)
    return f"; this is {names} count; pass --preset {others[0] if len(others) == 1 else 'P'}"


def seat_of_string(config, string: str) -> int:
    """0-based seat whose information set ``string`` is, read off its deal mask
    (``/C:??Q?/...`` is seat 3's); ValueError if the mask is not one of ``config``."""
    if not string.startswith("/C:") or "/" not in string[3:]:
        raise ValueError(f"{string!r} is not an information-set string (it starts like /C:J???/)")
    deal = string[3 : string.index("/", 3)]
    for seat in range(config.num_seats):
        before = "?" * seat
        after = "?" * (config.num_seats - seat - 1)
        owner = deal[len(before) : len(deal) - len(after)]
        if (
            deal.startswith(before)
            and deal.endswith(after)
            and owner in config.ranks
            and len(deal) == len(before) + len(owner) + len(after)
        ):
            return seat
    raise ValueError(
        f"{string!r}: the deal field {deal!r} is not one of {config.name} "
        f"({config.num_seats} fields, '?' for every seat but the owner's rank, e.g. "
        f"{mask(config, 0, 0)!r})"
    )


def parse_infoset(config, string: str) -> tuple[int, int]:
    """``(seat, id)`` of an information-set string of any seat of ``config`` (0-based seat;
    ``id`` is its 0-based line in the seat's file); ValueError naming why it is not one."""
    string = string.strip()
    seat = seat_of_string(config, string)
    return seat, tables_for(config)[seat].parse(string)


INFOSET_FILE = "leduc4-infosets-player{seat}.csv"
EXAMPLE_META = "example-meta-strategy.csv"
EXAMPLE_STRATEGY = "example-strategy0-player{seat}.csv"
#: the handout's sample as a submission folder that validates, evaluates and grades as it is
SAMPLE_FOLDER = "sample-submission"


def write_infoset_files(
    tree: PublicTree, out_dir: str | os.PathLike, examples: bool = True
) -> list[Path]:
    """Write the information-set files (and the handout's uniform example submission).

    With ``examples``, the example is written twice: as the handout's ``example-*.csv`` files
    and as the folder ``sample-submission/`` (``meta-strategy.csv``,
    ``strategy0-player{i}.csv``), a submission every command reads as it is. Returns the paths
    written, in order. Output is byte-for-byte deterministic.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in infoset_tables(tree):
        p = out / INFOSET_FILE.format(seat=table.seat + 1)
        write_text_atomic(p, "".join(s + "\n" for s in table.strings))
        written.append(p)
    if examples:
        p = out / EXAMPLE_META
        write_text_atomic(p, "0,1.0\n")
        written.append(p)
        for table in infoset_tables(tree):
            p = out / EXAMPLE_STRATEGY.format(seat=table.seat + 1)
            write_bytes_atomic(p, format_rows(table.uniform_strategy()))
            written.append(p)
        sample = out / SAMPLE_FOLDER
        sample.mkdir(exist_ok=True)
        write_text_atomic(sample / "meta-strategy.csv", "0,1.0\n")
        written.append(sample / "meta-strategy.csv")
        for table in infoset_tables(tree):
            p = sample / f"strategy0-player{table.seat + 1}.csv"
            write_bytes_atomic(p, format_rows(table.uniform_strategy()))
            written.append(p)
    return written
