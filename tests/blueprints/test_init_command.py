"""`railyard init`: lists the shipped examples, writes one or a starter into the working folder, never overwrites unasked."""

from __future__ import annotations

from pathlib import Path

from railyard.cli import main
from railyard.commands.init import STARTER, summary

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"


def test_list_names_every_shipped_example_with_its_header_line(capsys):
    assert main(["init", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(path.stem for path in EXAMPLES.glob("*.yaml"))
    assert "dev-g6e                  A one-node g6e dev box: one L40S node for notebooks and small experiments" in lines
    assert all(len(line.split(None, 1)[1]) > 20 for line in lines)


def test_a_header_comment_gives_its_first_sentence_cut_at_a_word():
    assert summary("# Short one. More text.\n# and more\nversion: 1\n") == "Short one"
    long = "# " + "word " * 40 + "\nversion: 1\n"
    assert summary(long) == ("word " * 21).strip() + "…"


def test_the_starter_is_written_and_validates_with_no_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    said = "wrote a starter blueprint to railyard.yaml; next: railyard validate railyard.yaml, "
    assert capsys.readouterr().out == said + "and before the first deployment railyard lock railyard.yaml --write\n"
    assert (tmp_path / "railyard.yaml").read_text() == STARTER
    assert main(["validate", "railyard.yaml"]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_an_example_is_written_under_its_name_or_the_output_path(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", "dev-g6e"]) == 0
    assert (tmp_path / "dev-g6e.yaml").read_text() == (EXAMPLES / "dev-g6e.yaml").read_text()
    assert main(["init", "p5-capacity-block.yaml", "--output", "mine.yaml"]) == 0
    assert (tmp_path / "mine.yaml").read_text() == (EXAMPLES / "p5-capacity-block.yaml").read_text()


def test_an_existing_file_is_kept_unless_forced(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "railyard.yaml").write_text("mine\n")
    assert main(["init"]) == 2
    assert capsys.readouterr().err == "railyard init: railyard.yaml exists; pass --force to overwrite it, or --output PATH to write elsewhere\n"
    assert (tmp_path / "railyard.yaml").read_text() == "mine\n"
    assert main(["init", "--force"]) == 0
    assert (tmp_path / "railyard.yaml").read_text() == STARTER


def test_an_unknown_example_exits_two_with_the_closest_names(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", "dev-g6"]) == 2
    assert capsys.readouterr().err == "railyard init: no example 'dev-g6'; did you mean dev-g6e? `railyard init --list` names them\n"
    assert list(tmp_path.iterdir()) == []


def test_a_path_that_cant_be_written_exits_two_without_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--output", "missing/railyard.yaml"]) == 2
    assert capsys.readouterr().err == "railyard init: can't write missing/railyard.yaml: No such file or directory\n"


def test_the_starter_passes_every_mandatory_policy_of_the_pack(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["preview", "railyard.yaml", "--policies"]) == 0
    out = capsys.readouterr().out
    assert "0 mandatory, 0 advisory violation(s)" in out and "ok: no mandatory violations" in out
