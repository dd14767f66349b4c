"""Arguments of ``teamleduc.api`` checked where they enter: a bad one is refused with
ArgumentTypeError / ArgumentValueError (or the output rule's refusal) naming it, before any
work, and nothing is written; a missing submission is the toolkit's error and a
FileNotFoundError."""

import os
import stat

import pytest

import teamleduc.api as tl
from teamleduc.cli import main
from teamleduc.errors import ArgumentTypeError, ArgumentValueError, TeamLeducError
from teamleduc.outputs import OutputExistsError

KUHN = "kuhn"


@pytest.fixture(scope="module")
def kuhn_sub(tmp_path_factory):
    """A valid kuhn submission folder (the uniform baseline)."""
    path = tmp_path_factory.mktemp("subs") / "uniform"
    tl.write_submission(tl.baseline("uniform", KUHN), path)
    return path


def listing(folder) -> list[str]:
    return sorted(os.listdir(folder))


# ------------------------------------------------------------------ 1. validate's cap


def test_validate_cap_is_an_int_of_zero_or_more(kuhn_sub):
    assert tl.validate_submission(kuhn_sub, KUHN, cap=0).ok
    assert tl.validate_submission(kuhn_sub, KUHN, cap=3).ok
    with pytest.raises(ArgumentValueError, match="cap must be 0 or more, not -1"):
        tl.validate_submission(kuhn_sub, KUHN, cap=-1)  # used to report made-up errors
    for cap in (1.5, float("nan"), "x", None, True):
        with pytest.raises(ArgumentTypeError, match="cap must be an int"):
            tl.validate_submission(kuhn_sub, KUHN, cap=cap)


# ------------------------------------------------------------------ 2. grade's out


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_grade_refuses_a_device_out_before_any_work(monkeypatch):
    import teamleduc.grade.run as run

    def no_work(*args, **kwargs):
        raise AssertionError("graded before the output was checked")

    monkeypatch.setattr(run, "_grade", no_work)
    existed = os.path.exists("/dev/null.cache")
    with pytest.raises(TeamLeducError, match="refused: it is a character device"):
        tl.grade(["uniform"], KUHN, out="/dev/null")
    assert os.path.exists("/dev/null.cache") == existed
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_grade_refuses_an_existing_file_out_without_a_cache(tmp_path, monkeypatch):
    import teamleduc.grade.run as run

    monkeypatch.setattr(run, "_grade", lambda *a, **k: pytest.fail("graded first"))
    target = tmp_path / "f"
    target.write_text("keep me")
    with pytest.raises(OutputExistsError, match="already exists"):
        tl.grade(["uniform"], KUHN, out=target)
    assert target.read_text() == "keep me"
    assert listing(tmp_path) == ["f"]  # no f.cache


def test_grade_refuses_an_empty_entry_and_reads_an_iterator_once():
    with pytest.raises(ArgumentValueError, match="submissions: an entry is empty"):
        tl.grade([""], KUHN)
    r = tl.grade(iter(["uniform", "cautious"]), KUHN, worst_case=False)
    assert sorted(r.names) == ["cautious", "uniform"]


# ------------------------------------------------------------------ 3. overwrite


def test_overwrite_must_be_a_bool(tmp_path, kuhn_sub):
    sub = tl.baseline("cautious", KUHN)
    target = tmp_path / "out"
    tl.write_submission(tl.baseline("uniform", KUHN), target)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    with pytest.raises(ArgumentTypeError, match="overwrite must be True or False, not str 'no'"):
        tl.write_submission(sub, target, overwrite="no")  # used to replace it
    with pytest.raises(ArgumentTypeError, match="overwrite must be True or False"):
        tl.build_submission(lambda infoset, legal: (1, 0, 0), KUHN, out=target, overwrite="no")
    with pytest.raises(ArgumentTypeError, match="overwrite"):
        tl.write_infoset_files(KUHN, tmp_path / "infosets", overwrite="yes")
    with pytest.raises(ArgumentTypeError, match="overwrite"):
        tl.solve(KUHN, out_dir=tmp_path / "run", overwrite="no")
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert listing(tmp_path) == ["out"]


# ------------------------------------------------------------------ 4. load_submission's seats


@pytest.mark.parametrize(
    "seats, error, words",
    [
        ("a", ArgumentTypeError, "seats: a sequence of 0-based seats"),
        ((0.5,), ArgumentTypeError, "seats: a seat is a 0-based int 0..1"),
        (5, ArgumentTypeError, "seats: a sequence of 0-based seats"),
        ((0, 0), ArgumentValueError, "a seat is given twice"),
        ((1, 2), ArgumentValueError, r"0-based seat 2 is not in 0..1 \(seats are numbered from 0"),
        ((), ArgumentValueError, "seats: no seat given"),
    ],
)
def test_load_and_validate_check_their_seats(kuhn_sub, seats, error, words):
    with pytest.raises(error, match=words):
        tl.load_submission(kuhn_sub, KUHN, seats=seats)
    with pytest.raises(error, match=words):
        tl.validate_submission(kuhn_sub, KUHN, seats=seats)


def test_seats_that_are_not_whole_teams_are_named_from_zero(tmp_path):
    path = tmp_path / "tiny"
    tl.write_submission(tl.baseline("uniform", "tiny-team-leduc"), path)
    with pytest.raises(ArgumentValueError, match=r"\(0, 2\) and \(1, 3\), numbered from 0"):
        tl.load_submission(path, "tiny-team-leduc", seats=(0, 1))
    assert tl.load_submission(path, "tiny-team-leduc", seats=(2, 0)).seats == (0, 2)


def test_load_submission_accepts_numpy_seats(kuhn_sub):
    import numpy as np

    assert tl.load_submission(kuhn_sub, KUHN, seats=np.arange(2)).seats == (0, 1)


# ------------------------------------------------------------------ 5. solve


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        (dict(max_signals=1.5), ArgumentTypeError, "max_signals"),
        (dict(max_signals=0), ArgumentValueError, "max_signals"),
        (dict(max_signals=101), ArgumentValueError, "max_signals"),
        (dict(time_limit="5"), ArgumentTypeError, "time_limit"),
        (dict(time_limit=None), ArgumentTypeError, "time_limit"),
        (dict(time_limit=True), ArgumentTypeError, "time_limit"),
        (dict(time_limit=0), ArgumentValueError, "time_limit"),
        (dict(time_limit=float("inf")), ArgumentValueError, "time_limit"),
        (dict(target_gap="x"), ArgumentTypeError, "target_gap"),
        (dict(target_gap=-1), ArgumentValueError, "target_gap"),
        (dict(refine_seconds="x"), ArgumentTypeError, "refine_seconds"),
        (dict(refine_seconds=float("nan")), ArgumentValueError, "refine_seconds"),
        (dict(max_iterations="5"), ArgumentTypeError, "max_iterations"),
        (dict(max_iterations=1.5), ArgumentTypeError, "max_iterations"),
        (dict(max_iterations=0), ArgumentValueError, "max_iterations"),
        (dict(out_dir=3), ArgumentTypeError, "out_dir"),
        (dict(out_dir=""), ArgumentValueError, "out_dir"),
        (dict(resume=3), ArgumentTypeError, "resume"),
        (dict(progress=3), ArgumentTypeError, "progress"),
        (dict(method=3), ArgumentTypeError, "method"),
        (dict(method="simplex"), ArgumentValueError, "method"),
        (dict(export_format=3), ArgumentTypeError, "export_format"),
        (dict(export_format="zip"), ArgumentValueError, "export format"),
        (dict(handle_sigint="no"), ArgumentTypeError, "handle_sigint"),
        (dict(checkpoint_interval=-1), ArgumentValueError, "checkpoint_interval"),
        (dict(bogus=1), ArgumentTypeError, "bogus"),
    ],
)
def test_solve_checks_every_argument_before_running(tmp_path, monkeypatch, kwargs, error, name):
    import teamleduc.solver.driver as driver

    monkeypatch.setattr(driver, "_run", lambda plan: pytest.fail("ran with a bad argument"))
    out = tmp_path / "run"
    kwargs = {"out_dir": out, **kwargs}
    with pytest.raises(error, match=name):
        tl.solve(KUHN, **kwargs)
    assert listing(tmp_path) == []


def test_solve_arguments_as_the_solver_takes_them():
    from teamleduc.solver.plan import check_solve_arguments

    checked = check_solve_arguments(
        KUHN, None, refine_seconds="auto", time_limit=2, max_iterations=None, max_signals=3
    )
    assert checked["config"] is tl.get_config(KUHN)
    assert checked["refine_seconds"] is None and checked["time_limit"] == 2.0
    assert checked["max_signals"] == 3 and checked["method"] is None
    with pytest.raises(ArgumentValueError, match="needs exactly two"):
        check_solve_arguments("kuhn-3p")


# ------------------------------------------------------------------ 6. a preset name as config


def test_a_preset_name_is_a_config_everywhere(tmp_path):
    sub = tl.baseline("uniform", KUHN)
    assert tl.write_submission(sub, tmp_path / "w2", config=KUHN) == tmp_path / "w2"
    assert sub.problems(KUHN) == [] and sub.check(KUHN) is None
    assert sub.problems(tl.get_config(KUHN)) == []
    with pytest.raises(ArgumentValueError, match="unknown preset 'kuhnn'"):
        sub.check("kuhnn")
    with pytest.raises(ArgumentTypeError, match="preset must be"):
        sub.problems(3)
    with pytest.raises(ArgumentTypeError, match="inputs must be a path or a list of paths"):
        tl.write_submission(sub, tmp_path / "w3", inputs=3)
    assert not (tmp_path / "w3").exists()
    # one path stands for a list of it (never taken letter by letter)
    tl.write_submission(sub, tmp_path / "w4", inputs=str(tmp_path / "w2"))
    with pytest.raises(TeamLeducError, match="refused: it is or holds the input"):
        tl.write_submission(sub, tmp_path, overwrite=True, inputs=str(tmp_path / "w2"))


# ------------------------------------------------------------------ 7. write_infoset_files


def test_write_infoset_files_follows_the_output_rule(tmp_path):
    tree = tl.build_tree(tl.get_config(KUHN))
    if os.path.exists("/dev/null"):
        with pytest.raises(TeamLeducError, match="refused: it is a character device"):
            tl.write_infoset_files(tree, "/dev/null")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    f = tmp_path / "f"
    f.write_text("keep me")
    with pytest.raises(OutputExistsError, match="already exists"):
        tl.write_infoset_files(tree, f)
    assert f.read_text() == "keep me"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(TeamLeducError, match="named pipe"):
        tl.write_infoset_files(tree, fifo, overwrite=True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert listing(tmp_path) == ["f", "fifo"]  # no temporary sibling left
    out = tmp_path / "infosets"
    paths = tl.write_infoset_files(KUHN, out)
    assert paths[0] == out / "leduc4-infosets-player1.csv" and all(p.is_file() for p in paths)
    with pytest.raises(OutputExistsError, match="already exists"):
        tl.write_infoset_files(KUHN, out)
    assert tl.write_infoset_files(KUHN, out, examples=False, overwrite=True) == paths[:2]
    assert listing(out) == ["leduc4-infosets-player1.csv", "leduc4-infosets-player2.csv"]


# ------------------------------------------------------------------ 8. an empty path


def test_an_empty_path_is_not_the_current_folder(tmp_path, monkeypatch, kuhn_sub):
    work = tmp_path / "cwd"
    work.mkdir()
    tl.write_submission(tl.baseline("uniform", KUHN), work / "sub")
    monkeypatch.chdir(work)
    tree = tl.build_tree(tl.get_config(KUHN))
    sub = tl.baseline("uniform", KUHN)
    for call, name in [
        (lambda: tl.load_submission("", KUHN), "path"),
        (lambda: tl.validate_submission("", KUHN), "path"),
        (lambda: tl.evaluate("", "uniform", KUHN), "team_a"),
        (lambda: tl.evaluate("uniform", "", KUHN), "team_b"),
        (lambda: tl.match("", "uniform", KUHN), "x"),
        (lambda: tl.match("uniform", "", KUHN), "y"),
        (lambda: tl.exploitability(KUHN, ""), "submission"),
        (lambda: tl.best_response(KUHN, 0, ""), "opponent"),
        (lambda: tl.write_infoset_files(tree, ""), "out_dir"),
        (lambda: tl.write_submission(sub, ""), "path"),
        (lambda: tl.build_submission(lambda i, legal: (1, 0, 0), KUHN, out=""), "out"),
        (lambda: tl.grade([""], KUHN), "submissions"),
    ]:
        with pytest.raises(ArgumentValueError, match=rf"^{name}\b.*empty"):
            call()
    assert listing(work) == ["sub"] and listing(work / "sub") == listing(kuhn_sub)


# ------------------------------------------------------------------ 9. the argument classes


@pytest.mark.parametrize("policy", [None, 3, "uniform"])
def test_build_submission_refuses_a_policy_of_the_wrong_type(policy):
    with pytest.raises(ArgumentTypeError, match="a policy is a function"):
        tl.build_submission(policy, KUHN)


def test_bad_arguments_raise_the_argument_errors():
    rows = lambda infoset, legal: (1, 0, 0)  # noqa: E731
    with pytest.raises(ArgumentValueError, match="missing='foo': use 'error' or 'uniform'"):
        tl.build_submission({}, KUHN, missing="foo")
    with pytest.raises(ArgumentTypeError, match="missing must be"):
        tl.build_submission(rows, KUHN, missing=None)
    with pytest.raises(ArgumentValueError, match=r"weights \[0.5\] must be non-negative"):
        tl.build_submission(rows, KUHN, weights=[0.5])
    with pytest.raises(ArgumentTypeError, match=r"the policy returned \['1', '0', '0'\]"):
        tl.build_submission(lambda infoset, legal: ["1", "0", "0"], KUHN)
    with pytest.raises(ArgumentValueError, match=r"the policy returned \(1, 0\)"):
        tl.build_submission(lambda infoset, legal: (1, 0), KUHN)
    with pytest.raises(ArgumentValueError, match="baseline 'random-pure:-1'"):
        tl.baseline("random-pure:-1", KUHN)
    with pytest.raises(ArgumentValueError, match="baseline 'cfr:abc'"):
        tl.baseline("cfr:abc", KUHN)
    with pytest.raises(ArgumentValueError, match="cfr:N needs 1 <= N"):
        tl.baseline("cfr:0", KUHN)
    with pytest.raises(ArgumentValueError, match="^string: '' is not an information-set"):
        tl.parse_infoset(KUHN, "")
    with pytest.raises(ArgumentValueError, match="^string: .*not an information set of seat"):
        tl.parse_infoset(KUHN, "/C:J?/P1:x/")
    long = tl.parse_infoset  # a megabyte string is not echoed whole
    with pytest.raises(ArgumentValueError) as e:
        long(KUHN, "/C:" + "x" * 1_000_000)
    assert len(str(e.value)) < 1_000


def test_policy_submission_probs_are_argument_errors():
    from teamleduc.envs import policy_submission

    table = tl.infoset_table(KUHN, 1).uniform_strategy()
    with pytest.raises(ArgumentValueError, match="probs"):
        policy_submission([{1: table}, {1: table}], KUHN, probs=[0.2, 0.2])
    with pytest.raises(ArgumentValueError, match="probs"):
        policy_submission([{1: table}], KUHN, probs=[float("nan")])


def test_the_command_shows_an_argument_error_in_one_line(tmp_path, capsys):
    out = tmp_path / "b"
    with pytest.raises(SystemExit) as e:
        main(["baseline", "random-pure:-1", "--preset", KUHN, "--out", str(out)])
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert err.startswith("error: unknown baseline 'random-pure:-1'") and err.count("\n") == 1
    assert not out.exists()


# ------------------------------------------------------------------ 10. a missing path


def test_a_missing_submission_is_a_toolkit_error_and_a_file_not_found(tmp_path):
    missing = tmp_path / "nope"
    for call in (
        lambda: tl.load_submission(missing, KUHN),
        lambda: tl.validate_submission(missing, KUHN),
    ):
        with pytest.raises(TeamLeducError, match="no such file or folder") as e:
            call()
        assert isinstance(e.value, FileNotFoundError) and e.value.exit_code == 2
    with pytest.raises(TeamLeducError, match="no such submission folder"):
        tl.evaluate(missing, "uniform", KUHN)
