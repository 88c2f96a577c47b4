"""The generator rebuilds the committed catalog from AWS's data, and nothing else."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from blueprints.catalog.generate import (
    CATALOG_PATH,
    KEPT_FIELDS,
    SUPPORTED_FAMILIES,
    SourceError,
    family_of,
    generate,
    load_source,
    main,
    trim_entry,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def moto_entries() -> dict:
    """moto's DescribeInstanceTypes dump, name -> entry."""
    entries, _, _, _ = load_source("moto")
    return entries


@pytest.fixture(scope="module")
def committed() -> dict:
    return json.loads(CATALOG_PATH.read_bytes())


def _describe_pages(entries: dict, page_size: int) -> list[dict]:
    """Entries cut into `aws ec2 describe-instance-types` pages."""
    items = [entries[name] for name in sorted(entries)]
    return [{"InstanceTypes": items[start : start + page_size]} for start in range(0, len(items), page_size)]


def _supported_plus_one_other(moto_entries: dict) -> dict:
    """The supported families plus an unsupported type the generator must drop."""
    chosen = {n: e for n, e in moto_entries.items() if family_of(n) in SUPPORTED_FAMILIES}
    chosen["m5.large"] = moto_entries["m5.large"]
    return chosen


def test_regenerating_from_moto_reproduces_the_committed_file_byte_for_byte():
    assert generate("moto") == CATALOG_PATH.read_bytes().decode("utf-8")


def test_output_puts_provenance_first_and_ends_with_one_newline():
    text = generate("moto")
    document = json.loads(text)
    assert list(document) == ["provenance", "instance_types"]
    assert text.endswith("}\n") and not text.endswith("\n\n")
    provenance = document["provenance"]
    assert provenance["source"] == "moto 5.2.5: moto/ec2/resources/instance_types.json.gz"
    assert provenance["command"] == "python -m blueprints.catalog.generate --source moto"
    assert provenance["families"] == list(SUPPORTED_FAMILIES)
    assert len(provenance["source_sha256"]) == 64
    [documented] = provenance["documented"]
    assert documented["file"] == "documented/p6e-gb200.json" and documented["instance_types"] == "p6e-gb200.36xlarge"
    assert documented["source_sha256"] == hashlib.sha256((CATALOG_PATH.parent / "documented" / "p6e-gb200.json").read_bytes()).hexdigest()
    assert documented["source"].startswith("assembled from AWS's documentation, not a DescribeInstanceTypes answer")


def test_committed_instance_types_are_key_sorted(committed):
    names = list(committed["instance_types"])
    assert names == sorted(names)
    p5 = committed["instance_types"]["p5.48xlarge"]
    assert list(p5) == sorted(p5)


def test_every_size_of_every_supported_family_is_kept_and_nothing_else(moto_entries, committed):
    expected = {n for n in moto_entries if family_of(n) in SUPPORTED_FAMILIES}
    # moto's dump has no p6e-gb200: its entry is the one assembled from AWS's documentation.
    assert "p6e-gb200.36xlarge" not in moto_entries
    assert set(committed["instance_types"]) == expected | {"p6e-gb200.36xlarge"}


@pytest.mark.parametrize("page_size", [10_000, 7], ids=["single-page", "paginated-list"])
def test_describe_instance_types_file_gives_the_same_entries(tmp_path, moto_entries, committed, page_size):
    pages = _describe_pages(_supported_plus_one_other(moto_entries), page_size)
    source = tmp_path / "types.json"
    source.write_text(json.dumps(pages[0] if len(pages) == 1 else pages))

    document = json.loads(generate(str(source)))

    assert document["instance_types"] == committed["instance_types"]
    assert document["provenance"]["source"] == f"aws ec2 describe-instance-types output: {source}"
    assert document["provenance"]["command"] == (f"python -m blueprints.catalog.generate --source {source}")


def test_concatenated_cli_pages_in_one_file_give_the_same_entries(tmp_path, moto_entries, committed):
    pages = _describe_pages(_supported_plus_one_other(moto_entries), 5)
    source = tmp_path / "concatenated.json"
    source.write_text("\n".join(json.dumps(page, indent=2) for page in pages))

    document = json.loads(generate(str(source)))

    assert document["instance_types"] == committed["instance_types"]


def test_family_absent_from_the_source_is_named_in_the_error(tmp_path, moto_entries):
    entries = {n: e for n, e in moto_entries.items() if family_of(n) in SUPPORTED_FAMILIES and family_of(n) != "p5en"}
    source = tmp_path / "no-p5en.json"
    source.write_text(json.dumps({"InstanceTypes": list(entries.values())}))

    with pytest.raises(SourceError, match=r"has no instance types for supported families: p5en$"):
        generate(str(source))


def test_same_type_with_different_data_in_two_pages_is_refused(tmp_path, moto_entries):
    changed = dict(moto_entries["p5.48xlarge"], CurrentGeneration=False)
    pages = [{"InstanceTypes": [moto_entries["p5.48xlarge"]]}, {"InstanceTypes": [changed]}]
    source = tmp_path / "mixed.json"
    source.write_text(json.dumps(pages))

    with pytest.raises(SourceError, match="p5.48xlarge appears twice with different data"):
        generate(str(source))


def test_entry_missing_a_field_the_model_reads_is_refused(tmp_path, moto_entries):
    entries = [e for n, e in moto_entries.items() if family_of(n) in SUPPORTED_FAMILIES]
    broken = json.loads(json.dumps(entries))
    for entry in broken:
        if entry["InstanceType"] == "g6.xlarge":
            del entry["NetworkInfo"]["NetworkCards"]
    source = tmp_path / "broken.json"
    source.write_text(json.dumps({"InstanceTypes": broken}))

    with pytest.raises(
        SourceError,
        match=r"g6\.xlarge lacks a field the catalog needs "
        r"\(KeyError: 'NetworkCards'\)",
    ):
        generate(str(source))


def test_trim_keeps_only_the_model_fields_and_leaves_absent_fields_absent(moto_entries):
    trimmed = trim_entry(moto_entries["inf2.48xlarge"])
    assert set(trimmed) <= set(KEPT_FIELDS)
    assert "GpuInfo" not in trimmed and "InstanceStorageInfo" not in trimmed
    assert set(trimmed["NetworkInfo"]) <= set(KEPT_FIELDS["NetworkInfo"])
    assert trimmed["NeuronInfo"] == moto_entries["inf2.48xlarge"]["NeuronInfo"]


def test_check_passes_on_an_unchanged_copy(tmp_path, capsys):
    copy = tmp_path / "instance_types.json"
    copy.write_bytes(CATALOG_PATH.read_bytes())

    assert main(["--check", "--output", str(copy)]) == 0
    assert "is up to date" in capsys.readouterr().out


def test_check_fails_on_a_modified_copy_and_names_the_changed_type(tmp_path, capsys):
    document = json.loads(CATALOG_PATH.read_bytes())
    document["instance_types"]["p5.48xlarge"]["NetworkInfo"]["EfaInfo"]["MaximumEfaInterfaces"] = 8
    copy = tmp_path / "instance_types.json"
    copy.write_text(json.dumps(document, indent=2) + "\n")

    assert main(["--check", "--output", str(copy)]) == 1

    error = capsys.readouterr().err
    assert f"{copy} is out of date (differing instance types: p5.48xlarge)" in error
    assert "Regenerate it with: python -m blueprints.catalog.generate --source moto" in error


def test_check_fails_when_the_file_is_missing(tmp_path, capsys):
    missing = tmp_path / "absent.json"
    assert main(["--check", "--output", str(missing)]) == 1
    assert f"{missing} does not exist" in capsys.readouterr().err


def test_writing_to_output_produces_the_generated_text(tmp_path):
    target = tmp_path / "out.json"
    assert main(["--output", str(target)]) == 0
    assert target.read_bytes() == CATALOG_PATH.read_bytes()


def test_missing_source_path_exits_with_a_message(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["--source", str(missing), "--output", str(tmp_path / "out.json")])
    assert exit_info.value.code == (f"error: cannot read --source {missing}: No such file or directory")


def test_invalid_json_source_exits_with_a_message(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"InstanceTypes": [')
    with pytest.raises(SystemExit) as exit_info:
        main(["--source", str(broken), "--output", str(tmp_path / "out.json")])
    assert str(exit_info.value.code).startswith(f"error: {broken} is not valid JSON:")


def test_wrongly_shaped_source_exits_with_a_message(tmp_path):
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"Reservations": []}')
    with pytest.raises(SystemExit) as exit_info:
        main(["--source", str(wrong), "--output", str(tmp_path / "out.json")])
    assert "does not look like `aws ec2 describe-instance-types --output json` output" in str(exit_info.value.code)


def test_command_line_bad_source_prints_one_line_and_no_traceback(tmp_path):
    missing = tmp_path / "nope.json"
    result = subprocess.run(
        [sys.executable, "-m", "blueprints.catalog.generate", "--source", str(missing), "--output", str(tmp_path / "out.json")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == f"error: cannot read --source {missing}: No such file or directory\n"


# An account's `aws ec2 describe-instance-types --instance-types p6e-gb200.36xlarge` answer, in AWS's shape: the
# documented entry plus the fields the documentation lacks, and a GPU memory and card 0 limit of its own. Those values
# are invented; the test holds the path a real answer takes, not these numbers.
GB200 = Path(__file__).resolve().parent / "fixtures" / "describe_p6e_gb200.json"


def test_an_accounts_answer_replaces_the_documented_entry_and_the_provenance_says_so():
    from blueprints.catalog import DATA_DIR, FACTS_FILE, build_catalog
    from blueprints.source import load_data

    document = json.loads(generate("moto", added=(str(GB200),)))
    provenance = document["provenance"]
    assert provenance["command"].endswith(f"--add {GB200}")
    assert [entry["instance_types"] for entry in provenance["added"]] == ["p6e-gb200.36xlarge"]
    [documented] = provenance["documented"]
    assert (documented["instance_types"], documented["replaced_by_api_answer"]) == ("", "p6e-gb200.36xlarge")
    # Every other type stays as it was; the added one is trimmed to the fields the catalog reads, like the rest.
    shipped = json.loads(CATALOG_PATH.read_bytes())["instance_types"]
    assert {name: entry for name, entry in document["instance_types"].items() if name != "p6e-gb200.36xlarge"} == {
        name: entry for name, entry in shipped.items() if name != "p6e-gb200.36xlarge"
    }
    assert "Hypervisor" not in document["instance_types"]["p6e-gb200.36xlarge"]
    catalog = build_catalog(document, load_data((DATA_DIR / FACTS_FILE).read_text("utf-8")))
    gb200 = catalog.get("p6e-gb200.36xlarge")
    assert gb200 is not None and catalog.documented() == []
    # The account's figures, not the documentation's; the family's facts still join them.
    assert (gb200.accelerator.memory_mib, gb200.network_cards[0].max_interfaces) == (188416, 7)
    assert gb200.placement_strategies == ("cluster", "partition", "spread")
    assert (gb200.accelerator_count, gb200.architecture, gb200.efa_layout_cards, gb200.vcpus) == (4, "arm64", (1, 5, 9, 13), 144)
    assert gb200.scale_up is not None and (gb200.scale_up.domain_size, gb200.scale_up.instances_per_domain) == (72, 18)


def test_an_accounts_answer_that_contradicts_the_familys_facts_is_refused_loudly(tmp_path):
    from blueprints.catalog import DATA_DIR, FACTS_FILE, build_catalog
    from blueprints.catalog.model import CatalogError
    from blueprints.source import load_data

    facts = load_data((DATA_DIR / FACTS_FILE).read_text("utf-8"))
    answer = json.loads(GB200.read_text())
    answer["InstanceTypes"][0]["GpuInfo"]["Gpus"][0]["Name"] = "GB200"
    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps(answer))
    with pytest.raises(CatalogError, match="p6e-gb200.36xlarge: EC2 reports accelerator 'GB200', accelerator_facts.yaml expects 'B200'"):
        build_catalog(json.loads(generate("moto", added=(str(renamed),))), facts)
    answer = json.loads(GB200.read_text())
    answer["InstanceTypes"][0]["NetworkInfo"]["NetworkCards"][5]["InterfaceTypes"] = ["interface"]
    no_efa_on_5 = tmp_path / "no-efa-on-5.json"
    no_efa_on_5.write_text(json.dumps(answer))
    with pytest.raises(CatalogError, match=r"families.p6e-gb200.efa_cards names card 5, which can't carry an EFA interface \(\['interface'\]\)"):
        build_catalog(json.loads(generate("moto", added=(str(no_efa_on_5),))), facts)


def test_a_documented_answer_without_a_source_for_every_value_is_refused(tmp_path):
    from blueprints.catalog.documented_types import documented_files, sources_file

    [shipped] = documented_files()
    answer = json.loads(shipped.read_text())
    answer["InstanceTypes"][0]["NetworkInfo"]["Ipv6AddressesPerInterface"] = 50
    copy = tmp_path / "p6e-gb200.json"
    copy.write_text(json.dumps(answer))
    sources_file(copy).write_bytes(sources_file(shipped).read_bytes())
    with pytest.raises(SourceError, match=r"does not account for p6e-gb200.json: NetworkInfo.Ipv6AddressesPerInterface has no source entry; "):
        generate("moto", documented=(copy,))
    sources_file(copy).unlink()
    with pytest.raises(SourceError, match="has no sources file p6e-gb200.sources.yaml"):
        generate("moto", documented=(copy,))


def test_an_added_file_that_is_not_describe_instance_types_output_is_refused(tmp_path):
    wrong = tmp_path / "types.json"
    wrong.write_text('{"Reservations": []}')
    with pytest.raises(SourceError, match="does not look like `aws ec2 describe-instance-types --output json`"):
        generate("moto", added=(str(wrong),))
