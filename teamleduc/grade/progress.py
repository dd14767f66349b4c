"""The progress bars of a grading (loading, pair products), on the terminal only. Internal to
:mod:`teamleduc.grade`."""

from __future__ import annotations


def progress_bar(total: int, desc: str, enabled: bool, unit: str = "sub"):
    """A tqdm bar of ``total`` steps, shown when ``enabled`` and stderr is a terminal."""
    from tqdm import tqdm

    # disable=None: shown on a terminal only, so redirected output stays clean
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        disable=None if enabled else True,
        leave=False,
        dynamic_ncols=True,
    )
