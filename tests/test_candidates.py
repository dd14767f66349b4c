"""The export's candidate strategies (:mod:`teamleduc.solver.candidates`): batches, kept
across a checkpoint.
"""

from __future__ import annotations

import numpy as np

from teamleduc.config import get_config
from teamleduc.solver.dag_cfr import dcfr


def test_candidate_batches():
    """A candidate met again moves to the newer batch; the newest non-empty batch is what the
    export reads; batches survive a checkpoint."""
    from teamleduc.dag import extract_pure
    from teamleduc.solver import checkpoint as ckpt
    from teamleduc.solver.candidates import Candidates
    from teamleduc.solver.dag_cfr import RegretMinimizer

    rm = RegretMinimizer(get_config("tiny-team-leduc"), dcfr())
    d = rm.game.dags[0]
    pures = [extract_pure(d, score=np.random.default_rng(i).random(d.num_rows)) for i in range(3)]
    cand = Candidates()
    cand.add(0, pures[0])
    cand.add(0, pures[1], "peel")
    cand.new_batch()
    assert [k for _, k in cand.newest(0)] == ["br", "peel"]  # batch 1 is still empty
    assert cand.add(0, pures[2], "peel")
    assert not cand.add(0, pures[0])  # met again: moves to batch 1
    assert [s.key() for s, _ in cand.newest(0)] == [pures[0].key(), pures[2].key()]
    assert cand.newest(1) == []
    assert len(cand.items[0]) == 3 and cand.batches[0] == [1, 0, 1]

    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        config = get_config("tiny-team-leduc")
        ckpt.save(
            folder,
            ckpt.Checkpoint(config.name, "dcfr", 0, 0.0, [], rm.state(), cand, config.to_dict()),
        )
        back = ckpt.load(folder, config).candidates
    assert back.batches[0] == [1, 0, 1] and back.batch == 1
    assert [s.key() for s in back.items[0]] == [s.key() for s in cand.items[0]]
