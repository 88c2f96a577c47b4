"""The instance rule (`blueprints/rules/instance.py`): a type the catalog lacks (with the closest), one it assembled
from documentation (a note). Exact code, path, message and hint."""

from __future__ import annotations

from blueprints.catalog import load_catalog
from tests.blueprints.base import BASE, load, mutate

CATALOG_HINT = "`python -m railyard catalog` lists every supported type"


def _found(text: str, code: str) -> list[tuple[str, tuple[object, ...], str, str]]:
    return [(finding.severity, finding.path, finding.message, finding.hint) for finding in load(text).findings if finding.code == code]


def test_a_misspelt_type_names_the_three_closest() -> None:
    text = mutate("    instance_type: inf2.48xlarge\n", "    instance_type: p5.48xlarg\n")
    assert _found(text, "pool.unknown-instance-type") == [
        (
            "error",
            ("pools", 1, "instance_type"),
            "instance type 'p5.48xlarg' is not in the accelerator catalog",
            f"did you mean 'p5.48xlarge' or 'p5e.48xlarge' or 'p5.4xlarge'? {CATALOG_HINT}",
        )
    ]


def test_a_type_like_none_names_only_the_catalog_command() -> None:
    [item] = _found(mutate("    instance_type: inf2.48xlarge\n", "    instance_type: zz9.huge\n"), "pool.unknown-instance-type")
    assert item[3] == CATALOG_HINT


def test_catalog_types_get_no_instance_finding() -> None:
    assert _found(BASE, "pool.unknown-instance-type") + _found(BASE, "pool.documented-instance-type") == []


def test_a_documented_type_gets_a_note_naming_how_to_replace_it() -> None:
    documented = sorted(load_catalog().documented())[0]
    text = mutate("    instance_type: inf2.48xlarge\n", f"    instance_type: {documented}\n")
    [item] = _found(text, "pool.documented-instance-type")
    assert item[:2] == ("info", ("pools", 1, "instance_type"))
    assert item[2] == (
        f"{documented}'s catalog entry is assembled from AWS's documentation, not a DescribeInstanceTypes answer: the network "
        "cards' interface limits and the API's names for some values are derived or assumed (blueprints/catalog/documented/, "
        "each value with its source)"
    )
    assert item[3] == (
        f"replace it with your account's answer: save `aws ec2 describe-instance-types --instance-types {documented} --output "
        "json` to a file and run `python -m blueprints.catalog.generate --add FILE`"
    )
