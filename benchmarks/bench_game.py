"""Game engine: time to build the team-leduc tree and write the four information-set files.

Target (issue 2): under 2 s on the 2-core machine.
"""

import tempfile
import time


def main() -> None:
    from teamleduc.config import get_config
    from teamleduc.infosets import infoset_tables, write_infoset_files
    from teamleduc.tree import build_tree

    for preset in ("team-leduc", "team-leduc-2025"):
        config = get_config(preset)
        build_tree.cache_clear()
        infoset_tables.cache_clear()
        t0 = time.perf_counter()
        tree = build_tree(config)
        t1 = time.perf_counter()
        with tempfile.TemporaryDirectory() as d:
            write_infoset_files(tree, d, examples=False)
        t2 = time.perf_counter()
        target = 2.0
        print(
            f"{preset:>16}: build tree {t1 - t0:.3f} s, write {config.num_seats} infoset files "
            f"{t2 - t1:.3f} s, total {t2 - t0:.3f} s (target {target:.1f} s, ratio {(t2 - t0) / target:.2f})"
        )
