"""The preset of a submission found from its files: line counts, 2025 formats, solve reports."""

from __future__ import annotations

import json

import pytest

from teamleduc.baselines import export_baseline
from teamleduc.config import PRESETS, get_config
from teamleduc.entrants import resolve_preset
from teamleduc.errors import TeamLeducError
from teamleduc.files.format2025 import write_submission_2025
from teamleduc.files.model import uniform_submission
from teamleduc.files.preset_detection import choose_preset, fit_presets
from teamleduc.infosets import preset_sizes, tables_for
from teamleduc.validate import validate_submission

from .cli_run import run


def test_the_count_table_is_every_presets_information_sets():
    sizes = preset_sizes()
    assert set(sizes) == set(PRESETS)
    assert sizes["team-leduc"] == (147_660,) * 4 and sizes["team-leduc-2025"] == (11_565,) * 4
    assert sizes["kuhn"] == (6, 6) and sizes["leduc"] == (144, 144)
    for name, c in PRESETS.items():
        assert sizes[name] == tuple(t.size for t in tables_for(c))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_presets_own_files_are_found(tmp_path, preset):
    export_baseline("uniform", get_config(preset), tmp_path / "sub")
    assert choose_preset([tmp_path / "sub"]).name == preset
    fit = fit_presets(tmp_path / "sub")
    assert fit.fits == (preset,) and not fit.partial
    assert fit.counts == dict(enumerate(preset_sizes()[preset]))


def test_the_2025_formats_and_team_submissions_are_found(tmp_path):
    config = get_config("team-leduc-2025")
    write_submission_2025(uniform_submission(config), tmp_path / "zips", config)
    assert choose_preset([tmp_path / "zips"]).name == "team-leduc-2025"
    assert choose_preset([tmp_path / "zips" / "team24.zip"]).name == "team-leduc-2025"
    export_baseline("uniform", get_config("small-team-leduc"), tmp_path / "s.zip")
    assert choose_preset([tmp_path / "s.zip"]).name == "small-team-leduc"


def test_an_ambiguous_team_submission_is_refused_with_the_presets_that_fit(tmp_path):
    # seats 1 and 3 of tiny-team have 16 information sets, as do those of kuhn-3p
    config = get_config("tiny-team")
    sub = tmp_path / "team13"
    from teamleduc.files.writing import write_submission

    write_submission(uniform_submission(config, seats=(0, 2)), sub, config=config)
    with pytest.raises(TeamLeducError) as e:
        choose_preset([sub])
    assert "seat 1: 16 lines, seat 3: 16 lines" in str(e.value)
    assert "fit kuhn-3p, tiny-team; pass --preset" in str(e.value)
    # a solve report beside it decides
    (tmp_path / "solve-report.json").write_text(json.dumps({"preset": "tiny-team"}))
    assert choose_preset([sub]).name == "tiny-team"


def test_a_colliding_preset_is_refused_unless_the_2025_format_decides(tmp_path, monkeypatch):
    twin = get_config("team-leduc-2025").replace(name="twin-2025")
    monkeypatch.setitem(PRESETS, "twin-2025", twin)
    preset_sizes.cache_clear()
    try:
        export_baseline("uniform", get_config("team-leduc-2025"), tmp_path / "csv")
        with pytest.raises(TeamLeducError, match="fit team-leduc-2025, twin-2025"):
            choose_preset([tmp_path / "csv"])
        config = get_config("team-leduc-2025")
        write_submission_2025(uniform_submission(config), tmp_path / "zips", config)
        assert choose_preset([tmp_path / "zips"]).name == "team-leduc-2025"
    finally:
        monkeypatch.delitem(PRESETS, "twin-2025")
        preset_sizes.cache_clear()


def test_several_submissions_vote_and_a_tie_is_refused(tmp_path):
    for name, preset in [("a", "kuhn"), ("b", "kuhn"), ("c", "leduc")]:
        export_baseline("uniform", get_config(preset), tmp_path / name)
    paths = [tmp_path / n for n in "abc"]
    assert choose_preset(paths).name == "kuhn"  # c will be reported invalid, with its preset
    with pytest.raises(TeamLeducError, match="fit different presets") as e:
        choose_preset(paths[1:])
    assert "pass --preset with one of kuhn, leduc" in str(e.value)
    # baseline names and given presets are left alone
    assert resolve_preset(None, ["uniform", tmp_path / "c"]).name == "leduc"
    assert resolve_preset(get_config("team-leduc"), [tmp_path / "c"]).name == "team-leduc"
    assert resolve_preset(None, ["uniform", "cautious"]).name == "team-leduc"


def test_unreadable_or_broken_files_do_not_vote(tmp_path):
    (tmp_path / "empty").mkdir()
    assert choose_preset([tmp_path / "empty"]).name == "team-leduc"
    export_baseline("uniform", get_config("leduc"), tmp_path / "bad")
    p = tmp_path / "bad" / "strategy0-player2.csv"
    p.write_text(p.read_text() + "1,0,0\n")  # 145 lines: seat 1 still says leduc
    fit = fit_presets(tmp_path / "bad")
    assert fit.fits == ("leduc",) and fit.partial
    report = validate_submission(tmp_path / "bad", choose_preset([tmp_path / "bad"]))
    assert not report.ok and "145 lines where seat 2 of leduc" in str(report.errors[0])


def test_a_pandas_header_row_is_not_counted(tmp_path):
    export_baseline("uniform", get_config("kuhn"), tmp_path / "k")
    p = tmp_path / "k" / "strategy0-player1.csv"
    p.write_text(",0,1,2\n" + p.read_text())
    assert fit_presets(tmp_path / "k").fits == ("kuhn",)


def test_a_mismatch_names_the_preset_that_matches(tmp_path, capsys):
    export_baseline("uniform", get_config("team-leduc-2025"), tmp_path / "s")
    code, out, err = run(capsys, ["validate", str(tmp_path / "s"), "--preset", "team-leduc"])
    assert code == 1
    assert (
        "11,565 lines where seat 1 of team-leduc has 147,660 information sets (one line each); "
        "this is team-leduc-2025's count; pass --preset team-leduc-2025" in out
    )
    config = get_config("team-leduc-2025")
    write_submission_2025(uniform_submission(config), tmp_path / "z", config)
    code, out, err = run(
        capsys, ["validate", str(tmp_path / "z" / "team13.zip"), "--preset", "team-leduc"]
    )
    assert code == 1 and "pass --preset team-leduc-2025" in out


def test_commands_without_preset(tmp_path, capsys):
    export_baseline("uniform", get_config("kuhn"), tmp_path / "k")
    code, out, _ = run(capsys, ["validate", str(tmp_path / "k")])
    assert code == 0 and "preset kuhn" in out
    code, out, _ = run(capsys, ["exploitability", str(tmp_path / "k"), "--json"])
    assert code == 0 and json.loads(out)["nash_conv"] == pytest.approx(0.916666666667)
    code, out, _ = run(capsys, ["match", str(tmp_path / "k"), "uniform", "--json"])
    assert code == 0 and json.loads(out)["preset"] == "kuhn"
    code, out, err = run(capsys, ["best-response", str(tmp_path / "k"), "--against", "a"])
    assert code in (0, 2) and "kuhn" in out + err
    export_baseline("uniform", get_config("tiny-team"), tmp_path / "t")
    for seat in (2, 4):
        (tmp_path / "t" / f"strategy0-player{seat}.csv").unlink()
    code, out, err = run(capsys, ["validate", str(tmp_path / "t")])
    assert code == 2 and "fit kuhn-3p, tiny-team; pass --preset" in err
    code, out, err = run(capsys, ["validate", str(tmp_path / "t"), "--preset", "tiny-team"])
    assert code == 0, out + err
