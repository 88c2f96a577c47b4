"""What a new user meets first: a YAML syntax error framed like every finding, a zone of another region answered with
the region's zones, and the note to lock the address plan before the first deployment (validate, preview, init)."""

from __future__ import annotations

from pathlib import Path

import pytest

from blueprints.source import SourceError, parse_yaml
from blueprints.yaml_syntax import GENERAL, TAB, syntax_hint
from railyard.cli import main
from railyard.commands.init import STARTER

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"


def _write(folder: Path, text: str, name: str = "bp.yaml") -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_yaml_syntax_error_gets_the_code_frame_and_a_hint(tmp_path, capsys):
    path = _write(tmp_path, "version: 1\nmetadata:\n  name: x\n  owner: [a, b\ncloud:\n  kind: aws\n")
    assert main(["validate", path]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:5:6: error [yaml.syntax] <blueprint>: YAML syntax error: did not find expected ',' or ']'",
        "       5 | cloud:",
        "         |      ^",
        "    hint: close the `[` list opened at line 4 with `]`, or write the items as a block list (`- item` per line)",
    ]


def test_a_key_indented_too_far_is_named_as_such(tmp_path, capsys):
    path = _write(tmp_path, "version: 1\nmetadata:\n  name: x\n   owner: y\n")
    assert main(["validate", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:4:9: error [yaml.syntax] <blueprint>: YAML syntax error: mapping values are not allowed in this context\n")
    assert "       4 |    owner: y\n         |         ^\n" in err
    assert "hint: a `key: value` sits where YAML expects a plain value: line this key up with the other keys" in err


def test_a_diff_side_with_a_syntax_error_is_framed_the_same_way(tmp_path, capsys):
    path = _write(tmp_path, "version: 1\nmetadata:\n\tname: x\n")
    assert main(["diff", str(EXAMPLES / "dev-g6e.yaml"), path]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:1: error [yaml.syntax]" in err and f"hint: {TAB}" in err


@pytest.mark.parametrize(
    ("problem", "opened", "line", "hint"),
    [
        (
            "did not find expected ',' or '}'",
            7,
            "",
            "close the `{` mapping opened at line 7 with `}`, or write it as a block mapping (`key: value` per line)",
        ),
        ("found character that cannot start any token", None, "\tname: x", TAB),
        ("found character that cannot start any token", None, "name: `x`", GENERAL),
        ("something PyYAML may say one day", None, "", GENERAL),
    ],
)
def test_each_problem_gets_its_hint(problem, opened, line, hint):
    assert syntax_hint(problem, opened, line) == hint


def test_a_zone_of_another_region_is_answered_with_the_regions_zones(tmp_path, capsys):
    text = (
        (EXAMPLES / "dev-g6e.yaml")
        .read_text()
        .replace("availability_zones: [us-west-2a, us-west-2b]", "availability_zones: [us-west-2a, us-east-1b]")
    )
    path = _write(tmp_path, text)
    assert main(["validate", path, "--json"]) == 1
    out = capsys.readouterr().out
    assert '"code": "cloud.zone-outside-region"' in out
    assert '"hint": "use zones of us-west-2: us-west-2a, us-west-2b, us-west-2c, us-west-2d"' in out
    assert "availability zone 'us-east-1b' is not in region 'us-west-2'" in out


def test_an_unlocked_plan_is_noted_by_validate_and_preview_and_the_note_goes_once_locked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert "railyard lock railyard.yaml --write" in STARTER and "docs/day2.md" in STARTER
    capsys.readouterr()
    assert main(["validate", "railyard.yaml"]) == 0
    out = capsys.readouterr().out
    assert ("railyard.yaml:14:3: info [compile.unlocked] cloud: the address plan isn't locked: cloud.subnet_cidrs pins none of its 4 subnets") in out
    assert "hint: before the first deployment, run `railyard lock FILE --write`" in out and "docs/day2.md" in out
    assert main(["preview", "railyard.yaml"]) == 0
    assert "[compile.unlocked]" in capsys.readouterr().out
    assert main(["lock", "railyard.yaml", "--write"]) == 0
    capsys.readouterr()
    assert main(["validate", "railyard.yaml"]) == 0
    assert "compile.unlocked" not in capsys.readouterr().out


def test_a_blueprint_in_a_vpc_of_its_own_team_gets_no_lock_note(capsys):
    assert main(["validate", str(EXAMPLES / "existing-infrastructure.yaml")]) in (0, 1)
    assert "compile.unlocked" not in capsys.readouterr().out


def test_the_readme_quickstart_names_the_lock_step():
    quickstart = (EXAMPLES.parents[1] / "README.md").read_text().split("## Quickstart", 1)[1].split("## ", 1)[0]
    assert "railyard lock railyard.yaml --write" in quickstart


def test_a_yaml_syntax_error_is_a_yaml_syntax_finding_at_the_broken_place():
    with pytest.raises(SourceError) as raised:
        parse_yaml("version: 1\nmetadata:\n  name: x\n  owner: [a, b\ncloud:\n  kind: aws\n", "bp.yaml")
    finding = raised.value.finding
    assert finding is not None
    assert (finding.code, finding.severity, finding.file, finding.line, finding.column) == ("yaml.syntax", "error", "bp.yaml", 5, 6)
    assert finding.message == "YAML syntax error: did not find expected ',' or ']'"
    assert finding.hint.startswith("close the `[` list opened at line 4 with `]`")


@pytest.mark.parametrize(
    ("written", "why"), [("2026-12-41T11:30:00Z", "day is out of range for month"), ("2026-02-29T00:00:00Z", "day is out of range")]
)
def test_a_date_no_calendar_has_is_a_located_error_not_a_traceback(tmp_path, capsys, written, why):
    text = (EXAMPLES / "p5-capacity-block.yaml").read_text(encoding="utf-8")
    line = text.splitlines().index("      start: 2026-12-01T11:30:00Z") + 1
    path = _write(tmp_path, text.replace("      start: 2026-12-01T11:30:00Z", f"      start: {written}"))
    assert main(["validate", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{line}:14: YAML value error: '{written}' reads as a date or time, but {why}")
    assert "write a real one, such as 2026-12-01T11:30:00Z" in err and "Traceback" not in err
