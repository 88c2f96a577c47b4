"""`railyard lock`: the plan's subnet ranges written into a blueprint or a stack file, in place, and honoured."""

from pathlib import Path

import pytest
import yaml

from railyard.address_lock import LockWriteError, set_pins
from railyard.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"
PINS = {"private-us-east-1a": "10.0.0.0/20", "public-us-east-1a": "10.0.16.0/27"}


def test_pins_are_added_under_cloud_keeping_comments_and_order():
    text = "# my cluster\nversion: 1\ncloud:\n  kind: aws  # the only one\n  vpc_cidr: 10.0.0.0/16\n\n# pools follow\npools: []\n"
    updated = set_pins(text, ("cloud",), PINS)
    assert updated.startswith("# my cluster\nversion: 1\ncloud:\n  kind: aws  # the only one\n  vpc_cidr: 10.0.0.0/16\n  subnet_cidrs:\n")
    assert "# pools follow\npools: []\n" in updated
    assert yaml.safe_load(updated)["cloud"]["subnet_cidrs"] == PINS


def test_pins_already_there_are_replaced_not_duplicated():
    text = "cloud:\n  subnet_cidrs:\n    private-old: 10.9.0.0/24\n  kind: aws\n"
    updated = set_pins(text, ("cloud",), PINS)
    assert yaml.safe_load(updated)["cloud"] == {"kind": "aws", "subnet_cidrs": PINS}
    assert "private-old" not in updated


def test_a_stack_file_gets_the_pins_in_its_overrides_creating_the_keys_it_lacks():
    text = "# prod\nconfig:\n  railyard:blueprint: blueprints/x.yaml\n  railyard:overrides:\n    metadata:\n      environment: prod\n"
    updated = set_pins(text, ("config", "railyard:overrides", "cloud"), PINS)
    document = yaml.safe_load(updated)
    assert document["config"]["railyard:overrides"] == {"metadata": {"environment": "prod"}, "cloud": {"subnet_cidrs": PINS}}
    assert document["config"]["railyard:blueprint"] == "blueprints/x.yaml"


def test_a_section_written_on_one_line_is_refused_rather_than_rewritten():
    with pytest.raises(LockWriteError, match="written on one line"):
        set_pins("cloud: {kind: aws, vpc_cidr: 10.0.0.0/16}\n", ("cloud",), PINS)


def test_lock_write_pins_every_planned_subnet_and_a_second_lock_changes_nothing(tmp_path, capsys):
    path = tmp_path / "p5.yaml"
    path.write_text((EXAMPLES / "p5-capacity-block.yaml").read_text())
    assert main(["lock", str(path), "--write"]) == 0
    pinned = path.read_text()
    assert set(yaml.safe_load(pinned)["cloud"]["subnet_cidrs"]) == {
        "efa-ultra-use1a",
        "private-us-east-1a",
        "private-us-east-1b",
        "public-us-east-1a",
        "public-us-east-1b",
    }
    assert main(["lock", str(path), "--write"]) == 0
    assert path.read_text() == pinned
    assert main(["validate", str(path)]) == 0


def test_lock_prints_the_block_without_write_and_refuses_an_invalid_blueprint(tmp_path, capsys):
    assert main(["lock", str(EXAMPLES / "dev-g6e.yaml")]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[1:3] == ["cloud:", "  subnet_cidrs:"]
    bad = tmp_path / "bad.yaml"
    bad.write_text((EXAMPLES / "dev-g6e.yaml").read_text().replace("vpc_cidr: 10.20.0.0/16", "vpc_cidr: 10.20.0.0/12"))
    assert main(["lock", str(bad), "--write"]) == 1
    assert "nothing pinned" in capsys.readouterr().err
    assert "subnet_cidrs" not in bad.read_text()
