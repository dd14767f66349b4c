"""Resolving submission arguments (teamleduc.entrants): names, baselines, paths and folders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from teamleduc import api
from teamleduc.config import get_config
from teamleduc.entrants import (
    Entrant,
    NamedPath,
    baseline_or_path,
    entrant_name,
    load_entrant,
    repeated_paths,
)
from teamleduc.errors import TeamLeducError


@pytest.fixture
def here(tmp_path, monkeypatch):
    """An empty current folder."""
    folder = tmp_path / "here"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_named_path_parse(here):
    assert NamedPath.parse("alice=subs/a.zip") == NamedPath("alice", "subs/a.zip")
    assert NamedPath.parse("  alice  =  subs/a.zip ") == NamedPath("alice", "subs/a.zip")
    assert NamedPath.parse("bob=baseline:cautious") == NamedPath("bob", "baseline:cautious")
    assert NamedPath.parse("a=b=c") == NamedPath("a", "b=c")  # the first '=' separates
    assert NamedPath.parse("subs/a.zip") == "subs/a.zip"
    assert NamedPath.parse("x=") == "x="  # no path: graded (and refused) as a path
    (here / "k=v").mkdir()
    assert NamedPath.parse("k=v") == "k=v"  # an existing path keeps its '='
    with pytest.raises(TeamLeducError, match=r"argument '=p': empty name"):
        NamedPath.parse("=p")
    with pytest.raises(TeamLeducError, match=r"argument '   =p': empty name"):
        NamedPath.parse("   =p")
    with pytest.raises(TeamLeducError, match="name of 1,001 characters"):
        NamedPath.parse("n" * 1001 + "=p")
    with pytest.raises(TeamLeducError, match="path of 4,097 characters"):
        NamedPath.parse("n=" + "p" * 4097)


def test_named_path_checks_its_fields():
    assert NamedPath(" a ", Path("subs") / "a.zip") == NamedPath("a", "subs/a.zip")
    with pytest.raises(TeamLeducError, match="NamedPath: empty name"):
        NamedPath(" ", "p")
    with pytest.raises(TeamLeducError, match="NamedPath: empty path for a"):
        NamedPath("a", "  ")
    with pytest.raises(TeamLeducError, match="NUL"):
        NamedPath("a", "p\0q")


def test_entrant_name(here):
    assert entrant_name("subs/alice.zip") == "alice"
    assert entrant_name("subs/alice.ZIP") == "alice"
    assert entrant_name("subs/a.zip.zip") == "a.zip"
    assert entrant_name("subs/bob/") == "bob"
    assert entrant_name(Path("subs") / "carol") == "carol"
    assert entrant_name(".zip") == ".zip"  # nothing left without the suffix
    assert entrant_name(".") == "here"  # the folder's own name


def test_baseline_or_path(here):
    assert baseline_or_path("cautious") == "cautious"
    assert baseline_or_path("  CAUTIOUS ") == "cautious"
    assert baseline_or_path("baseline:cautious") == "cautious"
    assert baseline_or_path("Baseline: Random-Pure") == "random-pure:0"
    assert baseline_or_path("random-pure:3") == "random-pure:3"
    assert baseline_or_path("cfr:10") == "cfr:10"
    assert baseline_or_path("subs/a.zip") is None
    assert baseline_or_path("cautiously") is None
    assert baseline_or_path(Path("cautious")) is None  # a path object is always a path
    with pytest.raises(TeamLeducError, match="unknown baseline 'baseline:nope'"):
        baseline_or_path("baseline:nope")


def test_a_baseline_name_that_is_also_a_folder_is_refused(here, tmp_path):
    (here / "cautious").mkdir()
    (here / "uniform").write_text("x")
    with pytest.raises(TeamLeducError) as e:
        baseline_or_path("cautious")
    assert str(e.value) == (
        f"'cautious' is both a baseline and a folder in {here.resolve()}: write "
        "./cautious for the folder, or baseline:cautious for the baseline"
    )
    with pytest.raises(TeamLeducError, match="'uniform' is both a baseline and a file in"):
        baseline_or_path("uniform")
    assert baseline_or_path("baseline:cautious") == "cautious"
    assert baseline_or_path("./cautious") is None
    # with another base folder, the current folder does not matter
    assert baseline_or_path("cautious", base=tmp_path) == "cautious"
    with pytest.raises(TeamLeducError, match="both a baseline and a folder"):
        baseline_or_path("cautious", base=here)


def test_load_a_baseline(here):
    entrant = load_entrant("aggressive", get_config("kuhn"))
    assert (entrant.name, entrant.source, entrant.num_signals) == ("aggressive", "baseline", 1)
    reference = api.baseline("aggressive", "kuhn")
    assert entrant.submission.seats == (0, 1)
    for s in (0, 1):
        assert np.array_equal(entrant.submission.strategies[s], reference.strategies[s])
    named = load_entrant(NamedPath("me", "baseline:random-pure:2"), get_config("kuhn"))
    assert (named.name, named.source) == ("me", "baseline")
    assert load_entrant(entrant, get_config("kuhn")) is entrant


def test_load_a_folder_and_a_zip(here):
    sub = api.baseline("random-pure:5", "tiny-team-leduc", seats=(0, 2))
    api.write_submission(sub, here / "team", config=api.get_config("tiny-team-leduc"))
    api.write_submission(sub, here / "team.zip")
    for spec, name in [("team", "team"), (here / "team.zip", "team")]:
        entrant = load_entrant(spec, get_config("tiny-team-leduc"))
        assert isinstance(entrant, Entrant)
        assert (entrant.name, entrant.source) == (name, str(spec))
        assert entrant.submission.seats == (0, 2)
        assert np.array_equal(entrant.submission.probs, sub.probs)
        for s in (0, 2):
            assert np.array_equal(entrant.submission.strategies[s], sub.strategies[s])
    assert load_entrant("team", get_config("tiny-team-leduc"), seats=[0, 2]).submission.seats == (
        0,
        2,
    )
    with pytest.raises(TeamLeducError) as e:
        load_entrant(
            "team", get_config("tiny-team-leduc"), seats=[1, 3], role="team B's submission"
        )
    assert "team B's submission team" in str(e.value)
    with pytest.raises(TeamLeducError, match=r"team: plays seats 1,3, not 2,4 \(needed here\)"):
        load_entrant("team", get_config("tiny-team-leduc"), seats=[0, 2], require=[0, 1, 2, 3])


def test_load_a_missing_path(here):
    with pytest.raises(TeamLeducError) as e:
        load_entrant("nowhere", get_config("kuhn"), role="team A's submission")
    message = str(e.value)
    assert message.startswith("team A's submission nowhere: no such submission folder or .zip")
    assert "and not a baseline (baselines: uniform, always-call" in message
    with pytest.raises(TeamLeducError) as e:
        load_entrant(Path("nowhere"), get_config("kuhn"))
    assert str(e.value) == "nowhere: no such submission folder or .zip"
    with pytest.raises(TypeError, match="expected a path, a baseline name"):
        load_entrant(3.5, get_config("kuhn"))


def test_repeated_paths(here):
    (here / "a").mkdir()
    (here / "b.zip").write_bytes(b"")
    specs = ["a", "./a", NamedPath("x", "a"), "b.zip", "missing", "uniform", "b.zip", "c=d"]
    assert repeated_paths(specs) == [("a", ["a", "a", "x"]), ("b.zip", ["b", "b"])]
    assert repeated_paths(["a", "b.zip", "uniform", "uniform"]) == []
