"""The team strategies a run keeps for its export (:class:`Candidates`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Candidates:
    """Team strategies worth keeping for the export, per team, without duplicates.

    ``kinds[team][i]`` says where ``items[team][i]`` came from: ``"br"`` (an exact best
    response met during the run), ``"peel"`` (peeled from an average flow), ``"product"``
    (product of average marginals), ``"column"`` (a restricted-game column).
    ``batches[team][i]`` is the batch in which it was last added (:meth:`new_batch` starts
    one per average the export candidates are drawn from; see :meth:`newest`)."""

    items: tuple[list, list] = field(default_factory=lambda: ([], []))
    kinds: tuple[list, list] = field(default_factory=lambda: ([], []))
    keys: tuple[dict, dict] = field(default_factory=lambda: ({}, {}))
    batches: tuple[list, list] = field(default_factory=lambda: ([], []))
    batch: int = 0

    def add(self, team: int, strategy, kind: str = "br", batch: int | None = None) -> bool:
        """Add ``strategy`` (in ``batch``, default the current one); a strategy already
        there is not added again but moves to that batch if it is newer. True if new."""
        batch = self.batch if batch is None else batch
        k = strategy.key()
        i = self.keys[team].get(k)
        if i is not None:
            self.batches[team][i] = max(self.batches[team][i], batch)
            return False
        self.keys[team][k] = len(self.items[team])
        self.items[team].append(strategy)
        self.kinds[team].append(kind)
        self.batches[team].append(batch)
        return True

    def new_batch(self) -> int:
        """Start a new batch (e.g. before drawing candidates from a newer average)."""
        self.batch += 1
        return self.batch

    def newest(self, team: int) -> list:
        """``(strategy, kind)`` pairs of ``team``'s newest non-empty batch, in the order they
        were added. The export starts from these alone: candidates of earlier averages slow
        it down."""
        b = self.batches[team]
        last = max(b, default=0)
        return [(s, k) for s, k, i in zip(self.items[team], self.kinds[team], b) if i == last]

    def of_kind(self, team: int, kind: str) -> list:
        return [s for s, k in zip(self.items[team], self.kinds[team]) if k == kind]

    def __len__(self) -> int:
        return len(self.items[0]) + len(self.items[1])
