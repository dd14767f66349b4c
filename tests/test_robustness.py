"""The fuzz round's classes of failure (issue 21): crafted .npy headers, corrupt or foreign
checkpoints, non-finite numbers, which submission is at fault, unused files by the thousand."""

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from teamleduc.baselines import baseline
from teamleduc.config import get_config
from teamleduc.files.format2025 import write_team_zip
from teamleduc.files.writing import write_submission
from teamleduc.grade import grade

from .cli_run import run

PRESET = "tiny-team-leduc"
CONFIG = get_config(PRESET)


# ------------------------------------------------------------------ 1. .npy headers


def npy_with_header(header: str, data: bytes) -> bytes:
    raw = header.encode("latin1")
    raw += b" " * (63 - (10 + len(raw)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(raw).to_bytes(2, "little") + raw + data


SHAPE = "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }"
CRAFTED = {
    "unary minus": SHAPE % ("(" + "-" * 20000 + "1, 3)"),
    "nested brackets": SHAPE % ("(" * 5000 + ")" * 5000),
    "nested lists": SHAPE % ("[" * 3000 + "]" * 3000),
    "a call": SHAPE % "(__import__('os').getpid(), 3)",
    "an expression": SHAPE % "(2**64, 3)",
    "a huge integer": SHAPE % ("(" + "9" * 4000 + ", 3)"),
    "a set": SHAPE % "{1, 3}",
    "unbalanced": SHAPE % "((1, 3)",
    "not a dict": "[1, 2, 3]",
}


@pytest.fixture(scope="module")
def team_zip(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("npy") / "team13.zip"
    write_team_zip(baseline("uniform", CONFIG), path, CONFIG, (0, 2))
    return path


def with_member(src: Path, dst: Path, member: str, data: bytes) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, data if info.filename == member else zin.read(info))
    return dst


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_npy_header_is_a_precise_error(tmp_path, capsys, team_zip, case):
    member = "strategy0-player1.npy"
    with zipfile.ZipFile(team_zip) as z:
        body = z.read(member)[128:]
    bad = with_member(
        team_zip, tmp_path / "team13.zip", member, npy_with_header(CRAFTED[case], body)
    )
    code, out, err = run(capsys, ["validate", str(bad), "--preset", PRESET])
    assert code == 1 and "internal error" not in out + err and "Traceback" not in out + err
    assert f"{member}:" in out and "team13.zip" in out
    code, out, err = run(capsys, ["validate", str(bad), "--preset", PRESET, "--json"])
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert report["errors"][0]["file"] == member
    # evaluate names the archive and the member; grade lists it as an invalid entry
    code, out, err = run(capsys, ["evaluate", str(bad), "uniform", "--preset", PRESET])
    assert code == 1 and str(bad) in err and member in err and "internal error" not in err
    folder = tmp_path / "both"
    folder.mkdir()
    bad.rename(folder / "team13.zip")
    write_team_zip(baseline("uniform", CONFIG), folder / "team24.zip", CONFIG, (1, 3))
    result = grade([folder], PRESET, baselines="uniform,cautious", worst_case=False)
    assert len(result.invalid) == 1
    message = result.invalid[0].message
    assert message.startswith(f"team13.zip/{member}: ") and "internal error" not in message


def test_plain_headers_still_pass(tmp_path, capsys, team_zip):
    """numpy's own headers (1.0 and 2.0, Fortran order, float32) stay accepted."""
    member = "strategy0-player1.npy"
    with zipfile.ZipFile(team_zip) as z:
        values = np.load(z.open(member))
    for name, array, version in (
        ("f", np.asfortranarray(values), (1, 0)),
        ("v2", values, (2, 0)),
        ("f32", values.astype(np.float32), (1, 0)),
    ):
        path = tmp_path / f"{name}.npy"
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=version)
        bad = with_member(team_zip, tmp_path / f"{name}.zip", member, path.read_bytes())
        code, out, _ = run(capsys, ["validate", str(bad), "--preset", PRESET])
        assert code == 0, out


# ------------------------------------------------------------------ 2. checkpoints


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    from teamleduc.solver import solve

    out = tmp_path_factory.mktemp("ck") / "run"
    # the iteration count ends it; the time limit is a guard (3 s was missed under load)
    solve("kuhn", "dcfr", time_limit=600, max_iterations=30, out_dir=out, handle_sigint=False)
    return out


def _arrays(run_folder):
    with np.load(run_folder / "checkpoint.npz") as z:
        return {k: z[k] for k in z.files}


def _meta(arrays):
    return json.loads(str(arrays["meta"]))


def _corrupt(run_folder, case):
    a = _arrays(run_folder)
    meta = _meta(a)
    if case == "metadata a list":
        a["meta"] = np.array(json.dumps([meta]))
    elif case == "metadata not JSON":
        a["meta"] = np.array("{not json")
    elif case == "no meta":
        del a["meta"]
    elif case.startswith("no "):
        del meta[case[3:]]
        a["meta"] = np.array(json.dumps(meta))
    elif case == "history entry without a field":
        meta["history"][0].pop("lower")
        a["meta"] = np.array(json.dumps(meta))
    elif case == "history entry not a number":
        meta["history"][0]["seconds"] = "soon"
        a["meta"] = np.array(json.dumps(meta))
    elif case == "iterations negative":
        meta["iterations"] = -3
        a["meta"] = np.array(json.dumps(meta))
    elif case == "action out of range":
        a["cand0/0"] = a["cand0/0"].copy()
        a["cand0/0"][0, 0] = 9
    elif case == "illegal action":
        # kuhn has no fold without a bet: action 2 (fold) at the first information set
        a["cand0/0"] = a["cand0/0"].copy()
        a["cand0/0"][0, 0] = 2
    elif case == "wrong width":
        a["cand0/0"] = a["cand0/0"][:, :-1]
    elif case == "kinds missing":
        del a["cand1/kind"]
    elif case == "state array short":
        a["alg/reg0"] = a["alg/reg0"][:-1]
    elif case == "state array missing":
        del a["alg/cum1"]
    elif case == "state not finite":
        a["alg/reg1"] = np.full_like(a["alg/reg1"], np.nan)
    elif case == "another game":
        meta["config"]["num_ranks"] = 99
        a["meta"] = np.array(json.dumps(meta))
    return a


CHECKPOINT_CASES = [
    "metadata a list",
    "metadata not JSON",
    "no meta",
    "no iterations",
    "no history",
    "no config",
    "history entry without a field",
    "history entry not a number",
    "iterations negative",
    "action out of range",
    "illegal action",
    "wrong width",
    "kinds missing",
    "state array short",
    "state array missing",
    "state not finite",
    "another game",
]


@pytest.mark.parametrize("case", CHECKPOINT_CASES + ["truncated", "not a zip", "empty"])
def test_a_bad_checkpoint_is_refused_before_anything_runs(tmp_path, capsys, run_folder, case):
    bad = tmp_path / "bad"
    bad.mkdir()
    ck = bad / "checkpoint.npz"
    if case == "truncated":
        ck.write_bytes((run_folder / "checkpoint.npz").read_bytes()[:2000])
    elif case == "not a zip":
        ck.write_text("hello")
    elif case == "empty":
        ck.write_bytes(b"")
    else:
        np.savez(ck, **_corrupt(run_folder, case))
    out = tmp_path / "out"
    code, stdout, err = run(
        capsys,
        ["solve", "--preset", "kuhn", "--resume", str(bad), "--out", str(out), "--quiet"],
    )
    assert code == 2, (case, stdout, err)
    assert f"checkpoint {ck}" in err and "internal error" not in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["bad"]


def test_a_good_checkpoint_still_resumes(tmp_path, run_folder):
    from teamleduc.solver import solve

    r = solve("kuhn", time_limit=600, max_iterations=40, resume=run_folder, out_dir=tmp_path / "o")
    assert r.iterations == 40 and (tmp_path / "o" / "checkpoint.npz").is_file()


# ------------------------------------------------------------------ 3. numbers


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "Infinity", "1e999", "NaN"])
@pytest.mark.parametrize("option", ["--time-limit", "--target-gap", "--refine-seconds"])
def test_non_finite_numbers_are_refused_alike(tmp_path, capsys, option, value):
    code, out, err = run(
        capsys, ["solve", "--preset", "kuhn", option, value, "--out", str(tmp_path / "o")]
    )
    assert code == 2 and f"Invalid value for '{option}'" in err and "not a finite number" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--time-limit", "0", "not positive"),
        ("--time-limit", "-5", "not positive"),
        ("--target-gap", "-1e-3", "below the minimum"),
        ("--refine-seconds", "-1", "below the minimum"),
        ("--time-limit", "ten", "is not a number"),
        ("--refine-seconds", "soon", "is not a number or 'auto'"),
    ],
)
def test_meaningless_numbers_are_refused(tmp_path, capsys, option, value, words):
    code, _, err = run(capsys, ["solve", "--preset", "kuhn", option, value])
    assert code == 2 and words in err


def test_library_refuses_infinite_time_limit():
    from teamleduc.solver import solve

    for bad in (float("inf"), float("nan"), -1.0):
        with pytest.raises(ValueError, match="time_limit"):
            solve("kuhn", time_limit=bad)


# ------------------------------------------------------------------ 5. which submission


@pytest.fixture()
def two_subs(tmp_path):
    good = write_submission(baseline("uniform", CONFIG), tmp_path / "good")
    broken = write_submission(baseline("uniform", CONFIG), tmp_path / "broken")
    lines = (broken / "strategy0-player2.csv").read_text().splitlines(keepends=True)
    lines[3] = "x,y,z\n"
    (broken / "strategy0-player2.csv").write_text("".join(lines))
    team = tmp_path / "team13"
    write_submission(baseline("uniform", CONFIG).restrict((0, 2)), team)
    return good, broken, team


def test_evaluate_and_match_name_the_submission_at_fault(capsys, two_subs):
    good, broken, team = two_subs
    cases = [
        (["evaluate", str(good), str(broken)], f"team B's submission {broken}: "),
        (["match", str(good), str(broken)], f"Y {broken}: "),
        (["match", str(broken), str(good)], f"X {broken}: "),
        (["match", str(good), str(team)], f"Y {team}: plays seats 1,3, not 2,4"),
        (["evaluate", str(team), str(team)], f"team B's submission {team}: "),
        (["exploitability", str(broken)], f"SUB {broken}: "),
        (["evaluate", "nowhere", str(good)], "team A's submission nowhere: no such"),
    ]
    for argv, expected in cases:
        code, out, err = run(capsys, argv + ["--preset", PRESET])
        assert code in (1, 2) and expected in err, (argv, err)
        if "x,y,z" in (broken / "strategy0-player2.csv").read_text() and expected.endswith(": "):
            assert "strategy0-player2.csv" in err or "no such" in err or "team13" in err


def test_unused_files_are_summarised(tmp_path, capsys, two_subs):
    good, _, _ = two_subs
    for i in range(2000):
        (good / f"notes{i:04d}.txt").write_text("")
    code, out, err = run(capsys, ["validate", str(good), "--preset", PRESET])
    warnings = [line for line in out.splitlines() if line.startswith("warning")]
    assert code == 0 and len(warnings) == 6
    assert "1,995 more unused files not listed (the first 5 are)" in warnings[-1]
    code, out, err = run(
        capsys, ["convert", str(good), str(tmp_path / "c"), "--to", "csv", "--preset", PRESET]
    )
    assert code in (0, None) and len(err.strip().splitlines()) == 6 and str(good) in err
