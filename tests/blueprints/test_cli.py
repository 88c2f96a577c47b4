"""The CLI's contract: exit 0/1/2, one JSON object with --json, the source line and caret in text, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from railyard.cli import main
from tests.blueprints.base import BASE, line_of, mutate


def write(tmp_path, text: str, name: str = "bp.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_valid_blueprint_exits_zero(tmp_path, capsys):
    assert main(["validate", write(tmp_path, BASE)]) == 0
    assert "ok: no errors" in capsys.readouterr().out


def test_error_finding_exits_one_and_shows_the_line_with_a_caret(tmp_path, capsys):
    text = mutate("    capacity_gib: 2400\n", "    capacity_gib: 3000\n")
    path, line = write(tmp_path, text), line_of(text, "capacity_gib: 3000")
    assert main(["validate", path]) == 1
    out = capsys.readouterr().out
    assert f"{path}:{line}:19: error [fsx.capacity-step] storage[0].capacity_gib:" in out
    assert f"    {line:>4} |     capacity_gib: 3000" in out
    assert "         |                   ^" in out
    assert "hint: use 4800, the next legal size" in out


def test_json_output_is_one_object_with_findings_and_summary(tmp_path, capsys):
    text = mutate("    role: training\n", "    role: trainer\n")
    path = write(tmp_path, text)
    assert main(["validate", path, "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["blueprint"] == path and document["ok"] is False
    (finding,) = document["findings"]
    assert set(finding) >= {"code", "severity", "path", "line", "message", "hint"}
    assert (finding["code"], finding["path"], finding["line"]) == ("schema.invalid-value", "pools[0].role", line_of(text, "role: trainer"))
    assert document["summary"]["error"] == 1


def test_missing_file_exits_two_without_traceback(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 2
    err = capsys.readouterr().err
    assert "file not found" in err and "Traceback" not in err


def test_yaml_syntax_error_exits_two_with_its_line(tmp_path, capsys):
    path = write(tmp_path, "version: 1\nmetadata: {name: x\n")
    assert main(["validate", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3:") and "YAML syntax error" in err


def test_same_blueprint_gives_byte_identical_json(tmp_path, capsys):
    path = write(tmp_path, BASE)
    main(["validate", path, "--json"])
    first = capsys.readouterr().out
    main(["validate", path, "--json"])
    assert capsys.readouterr().out == first


def test_catalog_json_records_its_provenance(capsys):
    assert main(["catalog", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert "moto" in document["provenance"]["source"]


def test_module_entry_point_runs_without_traceback(tmp_path):
    path = write(tmp_path, "pools: [\n")
    done = subprocess.run([sys.executable, "-m", "railyard", "validate", path], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_the_top_level_help_lists_every_command_with_its_help(capsys):
    from railyard.commands import COMMANDS, command

    with pytest.raises(SystemExit) as leaving:
        main(["--help"])
    assert leaving.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out and command(name).HELP.split()[0] in out


def test_a_misspelt_command_is_refused_with_every_choice_named(capsys):
    with pytest.raises(SystemExit) as leaving:
        main(["valdate", "x.yaml"])
    assert leaving.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'valdate'" in err and "'validate'" in err and "'diff'" in err
