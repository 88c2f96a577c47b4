"""railyard/change/replace_table.py on small inputs: how a path's effect is read, how the table file is loaded, and how
each source (a terraform-provider-aws tree, a Pulumi schema, a pulumi-kubernetes tree) becomes a part, down to each
entry's fields and the generator's command-line refusals. The pulumi_aws SDK's name lookups are replaced by a stated
camelCase rule where a fixture type is not in the SDK; no preview runs."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from types import MappingProxyType, SimpleNamespace

import pytest

import railyard.change.replace_table as replace_table
import railyard.change.sdk_names as sdk_names
from railyard.change.replace_table import (
    OUTPUT,
    Effect,
    ReplaceTable,
    ResourceRules,
    emitted_types,
    from_kubernetes,
    from_schema,
    from_terraform,
    load_table,
    read_manifest,
    render,
    terraform_name,
)
from railyard.change.terraform_source import CONDITIONAL, REPLACE, UPDATE

FIXTURES = Path(__file__).parent / "fixtures"
PROVIDER = FIXTURES / "provider"
KUBERNETES = FIXTURES / "kubernetes"
WIDGET = "aws:demo/widget:Widget"
SDK_VERSION = importlib.metadata.version("pulumi_aws")


def _rules(inputs: dict, default: str = "unknown") -> ResourceRules:
    return ResourceRules("t", "t", MappingProxyType(inputs), (), default)


# --- ResourceRules.effect and ReplaceTable ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "path", "effect"),
    [
        ({"a": REPLACE, "a.b": UPDATE}, "a.b", Effect(REPLACE, "a")),  # the outermost replacing block wins
        ({"a": UPDATE, "a.b": REPLACE}, "a.b.c", Effect(REPLACE, "a.b")),  # a replacing block found at any depth
        ({"a": UPDATE, "a.b": REPLACE}, "a.c", Effect("unknown", "a.c")),  # a sibling of a listed child: unknown
        ({"a": UPDATE, "a.b": REPLACE, "a.b.c.d": UPDATE}, "a.b.c", Effect(REPLACE, "a.b")),  # a replacing block beats its listed children
        ({"spec": UPDATE, "specific": REPLACE}, "spec.x", Effect(UPDATE, "spec")),  # `specific` is no child of `spec`
        ({"spec": UPDATE, "spec.mode": CONDITIONAL}, "spec.mode.x", Effect(CONDITIONAL, "spec.mode")),
        ({"spec": CONDITIONAL}, "spec", Effect(CONDITIONAL, "spec")),
        ({}, "x.y", Effect("unknown", "x.y")),
    ],
)
def test_an_inputs_effect(inputs, path, effect):
    assert _rules(inputs).effect(path) == effect


def test_an_unlisted_child_takes_the_default_the_resource_has():
    assert _rules({"spec": UPDATE, "spec.mode": REPLACE}, default=UPDATE).effect("spec.other") == Effect(UPDATE, "spec.other")


def test_the_table_describes_its_parts_in_provider_order_and_a_part_that_says_nothing():
    table = ReplaceTable(MappingProxyType({"k": {"described": "B"}, "a": {"described": "A"}, "m": {}}), MappingProxyType({}))
    assert table.described == "A; B; unknown source"
    assert table.rules("t") is None


def test_load_table_reads_each_entrys_default_recomputed_and_optional_computed_or_their_absence(tmp_path):
    path = tmp_path / "table.json"
    raw = {
        "parts": {
            "aws": {
                "source": {"described": "X"},
                "resources": {
                    "aws:a/b:C": {"source_name": "aws_c", "inputs": {"size": UPDATE}, "recomputed": ["v"], "optional_computed": ["size"]},
                },
            },
            "kubernetes": {
                "source": {"described": "Y"},
                "resources": {"kubernetes:core/v1:Pod": {"source_name": "core/v1/Pod", "inputs": {}, "default": UPDATE}},
            },
        }
    }
    path.write_text(json.dumps(raw))
    table = load_table(path)
    assert table.rules("aws:a/b:C") == ResourceRules("aws:a/b:C", "aws_c", MappingProxyType({"size": UPDATE}), ("v",), "unknown", frozenset({"size"}))
    assert table.rules("kubernetes:core/v1:Pod") == ResourceRules("kubernetes:core/v1:Pod", "core/v1/Pod", MappingProxyType({}), (), UPDATE, None)
    assert table.described == "X; Y"
    assert dict(table.source["aws"]) == {"described": "X"}


# --- emitted types and Terraform names --------------------------------------------------------------------------------


def test_emitted_types_are_the_aws_and_kubernetes_resources_of_every_example_previewed(tmp_path):
    for name in ("b.yaml", "a.yaml", "notes.txt"):
        (tmp_path / name).write_text("")
    types = {
        "a.yaml": ["aws:ec2/vpc:Vpc", "railyard:index:Cluster", "pulumi:providers:aws", "aws:index/provider:Provider"],
        "b.yaml": ["kubernetes:core/v1:Namespace", "random:index/id:Id", "aws:ec2/vpc:Vpc", "awsx:ec2/vpc:Vpc"],
    }
    seen = []

    def preview(path: str):
        seen.append(Path(path).name)
        return SimpleNamespace(resources=[SimpleNamespace(type=token) for token in types[Path(path).name]])

    assert emitted_types(tmp_path, preview) == ["aws:ec2/vpc:Vpc", "kubernetes:core/v1:Namespace"]
    assert seen == ["a.yaml", "b.yaml"]


def test_emitted_types_preview_with_the_offline_preview_unless_given_one(tmp_path, monkeypatch):
    import railyard.mocked

    (tmp_path / "a.yaml").write_text("")
    monkeypatch.setattr(railyard.mocked, "run_preview", lambda path: SimpleNamespace(resources=[SimpleNamespace(type="aws:s3/bucket:Bucket")]))
    assert emitted_types(tmp_path) == ["aws:s3/bucket:Bucket"]


@pytest.mark.parametrize(
    ("token", "candidates", "name"),
    [
        ("aws:eks/nodeGroup:NodeGroup", {"aws_eks_node_group", "aws_node_group"}, "aws_eks_node_group"),  # the module's name first
        ("aws:ec2/subnet:Subnet", {"aws_subnet", "aws_vpc"}, "aws_subnet"),  # EC2's resources drop the module
        ("aws:ec2/subnet:Subnet", {"aws_ec2_subnet"}, "aws_ec2_subnet"),
        ("aws:fsx/lustreFileSystem:LustreFileSystem", {"aws_fsx_lustre_file_system"}, "aws_fsx_lustre_file_system"),
        ("aws:ec2/subnet:Subnet", {"aws_subnets"}, None),
    ],
)
def test_a_types_terraform_name_follows_the_bridges_naming(token, candidates, name):
    assert terraform_name(token, candidates) == name


# --- the manifest of single files ----------------------------------------------------------------------------------------


def test_a_manifest_refuses_every_file_with_neither_a_full_commit_nor_a_note_naming_them_in_order(tmp_path):
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"z.go": {"commit": None}, "a.go": "A" * 40, "m.go": {"commit": "1" * 40}, "n.go": "1" * 41}))
    with pytest.raises(ValueError) as raised:
        read_manifest(manifest)
    assert str(raised.value) == f"{manifest}: give a full 40-character commit (or a note saying why there is none) for a.go, n.go, z.go"
    # A file with no commit but a note saying why is accepted as it is.
    manifest.write_text(json.dumps({"h.go": {"commit": None, "note": "the index names no commit"}}))
    assert read_manifest(manifest) == {"h.go": {"commit": None, "note": "the index names no commit"}}


# --- a part from terraform-provider-aws source ----------------------------------------------------------------------------


def _camel(path: str) -> str:
    return ".".join(part.split("_")[0] + "".join(word.title() for word in part.split("_")[1:]) for part in path.split("."))


@pytest.fixture
def sdk(monkeypatch):
    """The SDK's lookups for the fixture's types: the widget is known; `template_version` is computed only (no input)."""
    monkeypatch.setattr(sdk_names, "sdk_has", lambda token: token == WIDGET)
    monkeypatch.setattr(sdk_names, "wire_path", lambda token, path: None if path == "template_version" or token != WIDGET else _camel(path))
    monkeypatch.setattr(
        sdk_names, "resource_output", lambda token, attribute: "templateVersionOut" if (token, attribute) == (WIDGET, "template_version") else None
    )


WIDGET_INPUTS = {
    "imageType": REPLACE,
    "kind": REPLACE,
    "label": UPDATE,
    "limits": REPLACE,
    "limits.max": UPDATE,
    "placement": UPDATE,
    "placement.weight": CONDITIONAL,
    "placement.zone": REPLACE,
    "rule": UPDATE,
    "rule.port": UPDATE,
    "size": CONDITIONAL,
    "tags": UPDATE,
}


def test_a_whole_checkout_gives_each_known_type_its_entry_and_names_the_rest_not_covered(sdk):
    part = from_terraform(PROVIDER, "abc123 (2025-01-01)", [WIDGET, "aws:demo/gadget:Gadget", "aws:demo/absent:Absent"])
    assert part["not_covered"] == ["aws:demo/absent:Absent", "aws:demo/gadget:Gadget"]  # no file; a file but not in the SDK
    assert part["source"] == {
        "kind": "terraform-provider-aws",
        "revision": "abc123 (2025-01-01)",
        "described": "hashicorp/terraform-provider-aws abc123 (2025-01-01): ForceNew and CustomizeDiff",
        "names_from": f"pulumi_aws {SDK_VERSION}",
    }
    assert part["resources"] == {
        WIDGET: {
            "source_name": "aws_demo_widget",
            "file": "internal/service/demo/widget.go",
            "revision": "abc123",
            "inputs": WIDGET_INPUTS,
            "optional_computed": ["imageType"],
            "recomputed": ["templateVersionOut"],
            "unresolved": [],
            "not_inputs": ["template_version"],
        }
    }
    assert list(part["resources"][WIDGET]["inputs"]) == sorted(WIDGET_INPUTS)


def test_an_output_the_sdk_does_not_name_takes_its_inputs_wire_name_else_its_own(monkeypatch, sdk):
    monkeypatch.setattr(sdk_names, "resource_output", lambda token, attribute: None)
    assert from_terraform(PROVIDER, "r", [WIDGET])["resources"][WIDGET]["recomputed"] == ["template_version"]
    monkeypatch.setattr(sdk_names, "wire_path", lambda token, path: _camel(path) if token == WIDGET else None)
    entry = from_terraform(PROVIDER, "r", [WIDGET])["resources"][WIDGET]
    assert entry["recomputed"] == ["templateVersion"] and entry["not_inputs"] == []


def test_file_by_file_records_each_files_commit_and_date_and_the_helper_files(sdk):
    files = {
        "internal/service/demo/widget.go": {"commit": "c" * 40, "date": "2025-02-02"},
        "names/consts.go": {"commit": "d" * 40},
        "internal/tags/schema.go": {"commit": None, "note": "read from an index"},
    }
    part = from_terraform(PROVIDER, "file by file", [WIDGET], files, None)
    entry = part["resources"][WIDGET]
    assert (entry["revision"], entry["revision_date"]) == ("c" * 40, "2025-02-02")
    assert part["source"] == {
        "kind": "terraform-provider-aws",
        "assembled": "file by file",
        "revision": "file by file",
        "described": "hashicorp/terraform-provider-aws file by file at 1 commits (each resource names its own): ForceNew, CustomizeDiff",
        "helpers": {"internal/tags/schema.go": "read from an index", "names/consts.go": "d" * 40},
        "names_from": f"pulumi_aws {SDK_VERSION}",
    }
    undated = from_terraform(PROVIDER, "file by file", [WIDGET], {"internal/service/demo/widget.go": {"commit": "c" * 40}})
    assert "revision_date" not in undated["resources"][WIDGET]


def test_file_by_file_refuses_a_read_file_the_manifest_gives_no_commit(sdk):
    for files in ({}, {"internal/service/demo/widget.go": {"commit": None, "note": "lost"}}):
        with pytest.raises(ValueError) as raised:
            from_terraform(PROVIDER, "file by file", [WIDGET], files)
        assert str(raised.value) == f"internal/service/demo/widget.go is in {PROVIDER} but the manifest gives no commit for it"


def test_file_by_file_keeps_an_entry_with_its_own_commit_and_leaves_a_type_no_part_had_not_covered(sdk):
    previous = {
        "source": {"revision": "e" * 40 + " (2024-04-17, between two tags)"},
        "resources": {
            "aws:demo/absent:Absent": {"source_name": "aws_demo_absent", "file": "a.go", "revision": "f" * 40},
            "aws:demo/gadget:Gadget": {"source_name": "aws_demo_gadget", "file": "g.go"},
        },
    }
    types = ["aws:demo/absent:Absent", "aws:demo/gadget:Gadget", "aws:demo/never:Never"]
    part = from_terraform(PROVIDER, "file by file", types, {}, previous)
    assert part["resources"] == {
        "aws:demo/absent:Absent": {"file": "a.go", "revision": "f" * 40, "source_name": "aws_demo_absent"},
        "aws:demo/gadget:Gadget": {
            "file": "g.go",
            "revision": "e" * 40,
            "revision_date": "2024-04-17, between two tags",
            "source_name": "aws_demo_gadget",
        },
    }
    assert list(part["resources"]["aws:demo/gadget:Gadget"]) == ["file", "revision", "revision_date", "source_name"]
    assert part["not_covered"] == ["aws:demo/never:Never"]
    assert part["source"]["described"].startswith("hashicorp/terraform-provider-aws file by file at 2 commits")
    # With no previous part, nothing is kept.
    assert from_terraform(PROVIDER, "file by file", types, {}, None)["not_covered"] == types


# --- a part from a Pulumi schema --------------------------------------------------------------------------------------


def test_a_schema_follows_item_and_map_types_once_and_ignores_references_it_cannot_follow():
    schema = {
        "resources": {
            "aws:d/w:W": {
                "inputProperties": {
                    "rules": {"type": "array", "items": {"$ref": "#/types/aws:d/Rule:Rule"}},
                    "byName": {"type": "object", "additionalProperties": {"$ref": "#/types/aws:d/Rule:Rule"}},
                    "self": {"$ref": "#/types/aws:d/Node:Node"},
                    "gone": {"$ref": "#/types/aws:d/Gone:Gone"},
                    "external": {"$ref": "pulumi.json#/Archive"},
                }
            },
            "aws:d/empty:Empty": {},
        },
        "types": {
            "aws:d/Rule:Rule": {"properties": {"port": {"type": "integer", "willReplaceOnChanges": True}}},
            "aws:d/Node:Node": {"properties": {"next": {"$ref": "#/types/aws:d/Node:Node"}, "value": {"type": "string"}}},
        },
    }
    part = from_schema(schema, "aws@7.0.0", ["aws:d/w:W", "aws:d/empty:Empty"])
    assert part["resources"]["aws:d/w:W"] == {
        "source_name": "aws:d/w:W",
        "file": "(the package schema)",
        "inputs": {
            "byName": UPDATE,
            "byName.port": REPLACE,
            "external": UPDATE,
            "gone": UPDATE,
            "rules": UPDATE,
            "rules.port": REPLACE,
            "self": UPDATE,
            "self.next": UPDATE,  # a type inside itself is followed once
            "self.value": UPDATE,
        },
        "recomputed": [],
        "unresolved": [],
        "not_inputs": [],
    }
    assert part["resources"]["aws:d/empty:Empty"]["inputs"] == {}
    assert part["source"] == {
        "kind": "pulumi-schema",
        "revision": "aws@7.0.0",
        "described": "Pulumi schema aws@7.0.0, willReplaceOnChanges",
        "recomputed_from": "nothing",
    }
    assert part["not_covered"] == []


def test_a_schema_without_types_or_resources_covers_nothing():
    assert from_schema({}, "r", ["aws:d/w:W"])["not_covered"] == ["aws:d/w:W"]
    # A reference into a schema that has no types is an input of its own and nothing under it.
    schema = {"resources": {"aws:d/w:W": {"inputProperties": {"p": {"$ref": "#/types/aws:d/P:P"}}}}}
    assert from_schema(schema, "r", ["aws:d/w:W"])["resources"]["aws:d/w:W"]["inputs"] == {"p": UPDATE}
    # A type with no properties adds nothing under the input that reads it.
    schema["types"] = {"aws:d/P:P": {"type": "object"}}
    assert from_schema(schema, "r", ["aws:d/w:W"])["resources"]["aws:d/w:W"]["inputs"] == {"p": UPDATE}


def test_a_schema_keeps_what_updates_recompute_from_the_part_it_replaces_and_names_that_part():
    schema = {"resources": {"aws:d/w:W": {}, "aws:d/v:V": {}}}
    previous = {"source": {"described": "the file-by-file part"}, "resources": {"aws:d/w:W": {"recomputed": ["latestVersion"]}}}
    part = from_schema(schema, "r", ["aws:d/w:W", "aws:d/v:V"], previous)
    assert (part["resources"]["aws:d/w:W"]["recomputed"], part["resources"]["aws:d/v:V"]["recomputed"]) == (["latestVersion"], [])
    assert part["source"]["recomputed_from"] == "the file-by-file part"


# --- a part from pulumi-kubernetes source ---------------------------------------------------------------------------------


def test_each_kind_gets_its_force_new_fields_as_wire_paths_and_an_unlisted_kind_the_metadata_fields():
    tokens = ["kubernetes:apps/v1:Widget", "kubernetes:core/v1:Claim", "kubernetes:helm.sh/v3:Release", "kubernetes:batch/v1:Job"]
    part = from_kubernetes(KUBERNETES, "v4.1", tokens)
    metadata = {"metadata.name": REPLACE, "metadata.namespace": REPLACE}
    assert part["resources"]["kubernetes:apps/v1:Widget"] == {
        "source_name": "apps/v1/Widget",
        "file": "provider/pkg/provider/diff.go",
        "inputs": {**metadata, "spec.template.image": REPLACE},
        "default": UPDATE,
        "recomputed": [],
        "unresolved": [],
        "not_inputs": [],
    }
    assert part["resources"]["kubernetes:core/v1:Claim"]["inputs"] == {**metadata, "spec.accessModes": REPLACE, "spec.selector.matchLabels": REPLACE}
    release = part["resources"]["kubernetes:helm.sh/v3:Release"]
    assert (release["file"], release["inputs"]) == ("provider/pkg/provider/helm_release.go", {"name": REPLACE, "namespace": REPLACE})
    job = part["resources"]["kubernetes:batch/v1:Job"]
    assert (job["source_name"], job["inputs"]) == ("batch/v1/Job", metadata)
    assert part["source"] == {"kind": "pulumi-kubernetes", "revision": "v4.1", "described": "pulumi/pulumi-kubernetes v4.1: forceNew fields"}
    # The group is what comes before the version's slash: none for a core-less token.
    assert from_kubernetes(KUBERNETES, "v4.1", ["kubernetes:v1:Thing"])["resources"]["kubernetes:v1:Thing"]["source_name"] == "/v1/Thing"
    assert part["not_covered"] == []


def test_the_file_is_indented_sorted_json_ending_in_a_newline():
    assert render({"b": 1, "a": {"d": [1], "c": 2}}) == '{\n "a": {\n  "c": 2,\n  "d": [\n   1\n  ]\n },\n "b": 1\n}\n'


# --- the generator's command line ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give --terraform or --schema (pulumi-aws), and/or --kubernetes"),
        (["--terraform", "d"], "say what each source is: --revision for pulumi-aws, --kubernetes-revision for pulumi-kubernetes"),
        (["--schema", "f"], "say what each source is: --revision for pulumi-aws, --kubernetes-revision for pulumi-kubernetes"),
        (["--kubernetes", "d"], "say what each source is: --revision for pulumi-aws, --kubernetes-revision for pulumi-kubernetes"),
        (["--kubernetes", "d", "--kubernetes-revision", "r", "--terraform-files", "m"], "--terraform-files needs --terraform DIR"),
    ],
)
def test_the_generator_refuses_what_it_cannot_record(capsys, argv, message):
    with pytest.raises(SystemExit) as raised:
        replace_table.main(argv)
    assert raised.value.code == 2
    assert capsys.readouterr().err.rstrip().endswith(f"error: {message}")


def test_the_generator_refuses_a_manifest_it_cannot_read(capsys, tmp_path):
    with pytest.raises(SystemExit):
        replace_table.main(["--terraform", "d", "--revision", "r", "--terraform-files", str(tmp_path / "absent.json")])
    assert "No such file or directory" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"a.go": "short"}))
    with pytest.raises(SystemExit):
        replace_table.main(["--terraform", "d", "--revision", "r", "--terraform-files", str(bad)])
    assert "give a full 40-character commit (or a note saying why there is none) for a.go" in capsys.readouterr().err


TYPES = ["aws:d/w:W", "kubernetes:batch/v1:Job"]


def test_the_generator_rewrites_the_part_given_and_keeps_the_others(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(replace_table, "emitted_types", lambda: TYPES)
    output = tmp_path / "table.json"
    kept = {"source": {"described": "old"}, "resources": {}, "not_covered": ["aws:x/y:Z", "aws:x/y:Q"]}
    output.write_text(json.dumps({"parts": {"aws": kept}}))
    assert replace_table.main(["--kubernetes", str(KUBERNETES), "--kubernetes-revision", "v4.1", "--output", str(output)]) == 0
    written = json.loads(output.read_text())
    assert written["parts"]["aws"] == kept
    assert list(written["parts"]["kubernetes"]["resources"]) == ["kubernetes:batch/v1:Job"]  # only the provider's own types
    assert written["parts"]["kubernetes"]["source"]["revision"] == "v4.1"
    assert output.read_text() == render(written)
    assert capsys.readouterr().out == (
        f"wrote {output} (aws): 0 resource types; not covered: aws:x/y:Z, aws:x/y:Q\n"
        f"wrote {output} (kubernetes): 1 resource types; not covered: none\n"
    )


def test_the_generator_makes_the_aws_part_from_a_schema_or_a_checkout_into_a_new_file(monkeypatch, tmp_path, sdk):
    monkeypatch.setattr(replace_table, "emitted_types", lambda: [WIDGET, *TYPES])
    schema = tmp_path / "aws.json"
    schema.write_text(json.dumps({"resources": {"aws:d/w:W": {"inputProperties": {"a": {"willReplaceOnChanges": True}}}}}))
    output = tmp_path / "new.json"
    assert replace_table.main(["--schema", str(schema), "--revision", "aws@7", "--output", str(output)]) == 0
    part = json.loads(output.read_text())["parts"]["aws"]
    assert part["resources"]["aws:d/w:W"]["inputs"] == {"a": REPLACE}
    assert part["not_covered"] == [WIDGET]
    assert list(json.loads(output.read_text())["parts"]) == ["aws"]
    assert replace_table.main(["--terraform", str(PROVIDER), "--revision", "abc (d)", "--output", str(output)]) == 0
    part = json.loads(output.read_text())["parts"]["aws"]
    assert list(part["resources"]) == [WIDGET] and part["resources"][WIDGET]["revision"] == "abc"
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"internal/service/demo/widget.go": "a" * 40}))
    args = ["--terraform", str(PROVIDER), "--terraform-files", str(manifest), "--revision", "file by file", "--output", str(output)]
    assert replace_table.main(args) == 0
    assert json.loads(output.read_text())["parts"]["aws"]["resources"][WIDGET]["revision"] == "a" * 40


def test_the_generators_help_names_each_option_with_what_it_takes(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # no wrapping, wherever the checkout (and so the default output) lies
    with pytest.raises(SystemExit) as raised:
        replace_table.main(["--help"])
    assert raised.value.code == 0
    assert capsys.readouterr().out == (
        "usage: python -m railyard.change.replace_table [-h] [--terraform DIR | --schema FILE] [--terraform-files MANIFEST] "
        "[--revision REVISION] [--kubernetes DIR] [--kubernetes-revision KUBERNETES_REVISION] [--output OUTPUT]\n"
        "\n"
        "Which input changes replace a resource: `replace_on_change.json`, generated, never edited by hand.\n"
        "\n"
        "options:\n"
        "  -h, --help            show this help message and exit\n"
        "  --terraform DIR       the pulumi-aws part from a terraform-provider-aws checkout\n"
        "  --schema FILE         the pulumi-aws part from a Pulumi package schema (pulumi package get-schema aws@VERSION)\n"
        "  --terraform-files MANIFEST\n"
        "                        with --terraform: DIR holds single files; MANIFEST (JSON) names each one's commit\n"
        "  --revision REVISION   what the pulumi-aws part's source is, for the record (a tag, or a commit and its date)\n"
        "  --kubernetes DIR      the pulumi-kubernetes part from a pulumi-kubernetes checkout\n"
        "  --kubernetes-revision KUBERNETES_REVISION\n"
        "                        what the pulumi-kubernetes checkout is, for the record\n"
        f"  --output OUTPUT       where to write (default: {OUTPUT}); a part not regenerated is kept from it\n"
    )


def test_the_generator_hands_each_aws_source_the_part_it_replaces(monkeypatch, tmp_path, sdk):
    monkeypatch.setattr(replace_table, "emitted_types", lambda: [WIDGET, "aws:demo/absent:Absent"])
    output = tmp_path / "table.json"
    previous = {
        "source": {"described": "the part before", "revision": "e" * 40 + " (2024-04-17)"},
        "resources": {
            WIDGET: {"recomputed": ["templateVersion"]},
            "aws:demo/absent:Absent": {"source_name": "aws_demo_absent", "file": "a.go", "revision": "f" * 40},
        },
        "not_covered": [],
    }
    output.write_text(json.dumps({"parts": {"aws": previous}}))
    schema = tmp_path / "aws.json"
    schema.write_text(json.dumps({"resources": {WIDGET: {"inputProperties": {}}}}))
    assert replace_table.main(["--schema", str(schema), "--revision", "aws@7", "--output", str(output)]) == 0
    part = json.loads(output.read_text())["parts"]["aws"]
    assert part["resources"][WIDGET]["recomputed"] == ["templateVersion"]  # kept from the part replaced
    assert (part["source"]["revision"], part["source"]["recomputed_from"]) == ("aws@7", "the part before")
    output.write_text(json.dumps({"parts": {"aws": previous}}))
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"internal/service/demo/widget.go": "a" * 40}))
    args = ["--terraform", str(PROVIDER), "--terraform-files", str(manifest), "--revision", "file by file", "--output", str(output)]
    assert replace_table.main(args) == 0
    part = json.loads(output.read_text())["parts"]["aws"]
    assert part["resources"]["aws:demo/absent:Absent"]["revision"] == "f" * 40  # kept: the tree has no file for it
    assert part["not_covered"] == []


def test_a_kept_entry_without_its_own_commit_takes_the_previous_parts_or_nothing():
    entry = {"source_name": "aws_demo_gadget", "file": "g.go"}
    part = from_terraform(PROVIDER, "file by file", ["aws:demo/gadget:Gadget"], {}, {"source": {}, "resources": {"aws:demo/gadget:Gadget": entry}})
    assert part["resources"]["aws:demo/gadget:Gadget"] == {**entry, "revision": "", "revision_date": ""}
    dated = {"source": {"revision": "e" * 40 + " (2024-04-17, before vX)"}, "resources": {"aws:demo/gadget:Gadget": entry}}
    part = from_terraform(PROVIDER, "file by file", ["aws:demo/gadget:Gadget"], {}, dated)
    assert part["resources"]["aws:demo/gadget:Gadget"]["revision_date"] == "2024-04-17, before vX"


def test_the_generator_writes_the_committed_tables_place_unless_told_another(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(replace_table, "emitted_types", lambda: TYPES)
    monkeypatch.setattr(replace_table, "OUTPUT", tmp_path / "default.json")
    assert replace_table.main(["--kubernetes", str(KUBERNETES), "--kubernetes-revision", "v4.1"]) == 0
    assert list(json.loads((tmp_path / "default.json").read_text())["parts"]) == ["kubernetes"]
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'default.json'} (kubernetes): 1 resource types")
