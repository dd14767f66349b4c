"""Information-set strings and files: the spec's examples, order, uniqueness, parse-back."""

import hashlib
import re

import numpy as np
import pytest
from click.testing import CliRunner

from teamleduc.cli import cli
from teamleduc.config import PRESETS, get_config
from teamleduc.infosets import infoset_tables, write_infoset_files
from teamleduc.tree import build_tree


@pytest.fixture(scope="module")
def leduc4():
    return infoset_tables(build_tree(get_config("team-leduc")))


@pytest.mark.parametrize(
    "string, seat",
    [
        ("/C:J???/", 0),
        ("/C:???K/P1:r/P2:f/P3:f/", 3),
        ("/C:J???/P1:r/P2:f/P3:f/P4:c/C:J/P1:c/P4:r/", 0),
    ],
)
def test_spec_examples_exist(leduc4, string, seat):
    i = leduc4[seat].parse(string)
    assert leduc4[seat].strings[i] == string


def test_first_lines_follow_the_spec_order(leduc4):
    assert leduc4[0].strings[:4] == [
        "/C:J???/",
        "/C:Q???/",
        "/C:K???/",
        "/C:J???/P1:c/P2:c/P3:c/P4:c/C:J/",
    ]
    assert leduc4[1].strings[:3] == ["/C:?J??/P1:c/", "/C:?Q??/P1:c/", "/C:?K??/P1:c/"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_strings_unique_and_parse_back(name):
    tree = build_tree(PRESETS[name])
    for t in infoset_tables(tree):
        strings = t.strings
        assert len(set(strings)) == len(strings) == t.size
        sample = range(0, t.size, max(1, t.size // 500))
        for i in sample:
            assert t.parse(strings[i]) == i
            assert t.id_of[t.node[i], t.rank[i]] == i


def test_string_grammar_and_ranks(leduc4):
    pat = re.compile(r"^/C:[JQK?]{4}/(P[1-4]:[crf]/)*(C:[JQK]/(P[1-4]:[crf]/)*)?$")
    for t in leduc4:
        for s in t.strings[::997]:
            assert pat.match(s), s
            mask = s[3:7]
            assert mask.count("?") == 3 and mask[t.seat] != "?"


def test_order_is_preorder_then_rank(leduc4):
    t = leduc4[2]
    assert (np.diff(t.node) >= 0).all()
    assert (t.rank.reshape(-1, 3) == np.arange(3)).all()


def test_kuhn_100_multi_character_ranks():
    t = infoset_tables(build_tree(get_config("kuhn-100")))[1]
    assert t.strings[:2] == ["/C:?1/P1:c/", "/C:?2/P1:c/"]
    assert t.strings[t.parse("/C:?100/P1:r/")] == "/C:?100/P1:r/"


def test_unknown_string_is_a_clear_error(leduc4):
    with pytest.raises(ValueError, match="not an information set of seat 1"):
        leduc4[0].parse("/C:?J??/")


def test_files_are_deterministic(tmp_path):
    tree = build_tree(get_config("team-leduc-2025"))
    a, b = tmp_path / "a", tmp_path / "b"
    pa = write_infoset_files(tree, a)
    pb = write_infoset_files(tree, b)

    def digest(paths):
        return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]

    assert digest(pa) == digest(pb)
    lines = (a / "leduc4-infosets-player1.csv").read_text().split("\n")
    assert lines[-1] == "" and len(lines) - 1 == 11_565
    assert (a / "example-meta-strategy.csv").read_text() == "0,1.0\n"
    ex = np.loadtxt(a / "example-strategy0-player2.csv", delimiter=",")
    t = infoset_tables(tree)[1]
    assert np.allclose(ex.sum(axis=1), 1) and (ex[~t.legal] == 0).all()
    assert np.allclose(ex[t.legal.all(axis=1)], 1 / 3)


def test_infosets_command(tmp_path):
    res = CliRunner().invoke(cli, ["infosets", "--preset", "kuhn", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "leduc4-infosets-player2.csv").read_text().splitlines() == [
        "/C:?J/P1:c/",
        "/C:?Q/P1:c/",
        "/C:?K/P1:c/",
        "/C:?J/P1:r/",
        "/C:?Q/P1:r/",
        "/C:?K/P1:r/",
    ]


def test_info_command():
    res = CliRunner().invoke(cli, ["info", "--preset", "team-leduc", "--json"])
    assert res.exit_code == 0, res.output
    assert '"infosets_per_seat": [\n    147660' in res.output


def test_the_sample_submission_folder_is_the_handouts_example(tmp_path):
    from teamleduc.evaluate import evaluate
    from teamleduc.validate import validate_submission

    config = get_config("tiny-team-leduc")
    tree = build_tree(config)
    write_infoset_files(tree, tmp_path)
    sample = tmp_path / "sample-submission"
    assert sorted(p.name for p in sample.iterdir()) == [
        "meta-strategy.csv",
        *(f"strategy0-player{i}.csv" for i in range(1, 5)),
    ]
    for i in range(1, 5):  # the same bytes as the handout's example files
        assert (sample / f"strategy0-player{i}.csv").read_bytes() == (
            tmp_path / f"example-strategy0-player{i}.csv"
        ).read_bytes()
    assert validate_submission(sample, config).ok
    # uniform against uniform: the sample is the uniform baseline, bit for bit
    assert evaluate(sample, "uniform", config).value == evaluate("uniform", "uniform", config).value
