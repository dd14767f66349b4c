"""Byte-level mutations of valid submissions (CSV, meta-strategy, zip, .npy) fed to the readers:
each is accepted, or refused with the toolkit's own error naming the file; nothing else ever
escapes (no RecursionError, KeyError, BadZipFile, ...)."""

import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teamleduc.baselines import baseline
from teamleduc.config import get_config
from teamleduc.errors import TeamLeducError
from teamleduc.files.format2025 import write_team_zip
from teamleduc.files.reading import load_submission
from teamleduc.files.writing import write_submission
from teamleduc.validate import validate_submission

CONFIG = get_config("kuhn")
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def mutations(data: bytes):
    """Up to 8 byte edits: overwrite, insert, delete, or truncate."""
    edit = st.tuples(
        st.sampled_from(["set", "insert", "delete", "truncate"]),
        st.integers(0, max(len(data) - 1, 0)),
        st.integers(0, 255),
    )
    return st.lists(edit, min_size=1, max_size=8)


def mutate(data: bytes, edits) -> bytes:
    b = bytearray(data)
    for kind, at, value in edits:
        at = min(at, len(b))
        if kind == "set" and at < len(b):
            b[at] = value
        elif kind == "insert":
            b[at:at] = bytes([value]) * (1 + value % 7)
        elif kind == "delete":
            del b[at : at + 1 + value % 5]
        elif kind == "truncate":
            del b[at:]
    return bytes(b)


def check_readers(path: Path, names: tuple[str, ...]) -> None:
    """The readers accept ``path`` or refuse it with a TeamLeducError naming one of ``names``;
    validate_submission never raises for it and names the file in its first error."""
    report = validate_submission(path, CONFIG)
    if not report.ok:
        text = " ".join(str(f) for f in report.errors[:1]) + " " + str(report)
        assert any(n in text for n in names), text
    try:
        load_submission(path, CONFIG)
    except TeamLeducError as e:
        assert any(n in str(e) for n in names) or e.findings[0].file is None, str(e)
        assert not report.ok


@pytest.fixture(scope="module")
def csv_folder(tmp_path_factory) -> Path:
    return write_submission(baseline("cautious", CONFIG), tmp_path_factory.mktemp("f") / "sub")


@pytest.fixture(scope="module")
def csv_zip(tmp_path_factory) -> Path:
    return write_submission(baseline("cautious", CONFIG), tmp_path_factory.mktemp("z") / "s.zip")


@pytest.fixture(scope="module")
def npy_zip(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("n") / "team13.zip"
    return write_team_zip(baseline("aggressive", CONFIG), path, CONFIG, (0,))


@pytest.mark.parametrize("member", ["strategy0-player1.csv", "meta-strategy.csv"])
@SETTINGS
@given(data=st.data())
def test_mutated_csv_files(tmp_path, csv_folder, member, data):
    original = (csv_folder / member).read_bytes()
    edits = data.draw(mutations(original))
    folder = tmp_path / f"m{abs(hash(tuple(edits))) % 10**9}"
    folder.mkdir()
    for p in csv_folder.iterdir():
        (folder / p.name).write_bytes(p.read_bytes())
    (folder / member).write_bytes(mutate(original, edits))
    check_readers(folder, (member, folder.name))


@pytest.mark.parametrize("fixture", ["csv_zip", "npy_zip"])
@SETTINGS
@given(data=st.data())
def test_mutated_zip_archives(tmp_path, request, fixture, data):
    src = request.getfixturevalue(fixture)
    original = src.read_bytes()
    edits = data.draw(mutations(original))
    path = tmp_path / f"m{abs(hash(tuple(edits))) % 10**9}-{src.name}"
    path.write_bytes(mutate(original, edits))
    check_readers(path, (path.name, ".npy", ".csv"))


@SETTINGS
@given(data=st.data())
def test_mutated_npy_members(tmp_path, npy_zip, data):
    member = "strategy0-player1.npy"
    with zipfile.ZipFile(npy_zip) as z:
        files = {i.filename: z.read(i) for i in z.infolist()}
    edits = data.draw(mutations(files[member][:160]))  # the header and the first rows
    files[member] = mutate(files[member][:160], edits) + files[member][160:]
    path = tmp_path / f"m{abs(hash(tuple(edits))) % 10**9}" / "team13.zip"
    path.parent.mkdir()
    with zipfile.ZipFile(path, "w") as z:
        for name, blob in files.items():
            z.writestr(name, blob)
    check_readers(path, (member,))
