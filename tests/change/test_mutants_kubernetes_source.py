"""railyard/change/kubernetes_source.py on provider files written in the test: the ConfigMap and Secret data fields the
provider adds outside its table, a Helm release file without its field list, kinds behind a variable nothing declares
or one that names itself, a helper called with a prefix, and a tree that is not pulumi-kubernetes's source (refused
with the file it looked in)."""

from __future__ import annotations

from pathlib import Path

import pytest

from railyard.change.go_source import Group, Package
from railyard.change.kubernetes_source import HELM_RELEASE, _literal, _paths, _prefixed, force_new, wire_path

METADATA = [".metadata.name", ".metadata.namespace"]
HELPERS = """
func metadataForceNewProperties(prefix string) properties {
	return properties{
		prefix + ".name",
		prefix + ".namespace",
	}
}

func selectorProperties(prefix string) properties {
	return properties{
		prefix + ".matchLabels",
		".notPrefixed",
	}
}
"""
DATA = """
func forceNewProperties(obj *unstructured.Unstructured) []string {
	props := metadataForceNewProperties(".metadata")
	if clients.IsConfigMap(obj) && !enableConfigMapMutable {
		props = append(props, properties{".binaryData", ".data"}...)
	}
	if clients.IsSecret(obj) && !enableSecretMutable {
		props = append(props, properties{".stringData", ".data"}...)
	}
	return props
}
"""


def _package(tmp_path: Path, text: str) -> Package:
    """A package of one Go file, `a.go`, holding `text`."""
    directory = tmp_path / "p"
    directory.mkdir()
    (directory / "a.go").write_text(text)
    return Package(directory)


def _provider(tmp_path: Path, table: str, *, helpers: str = HELPERS, data: str = DATA, helm: str | None = None) -> Path:
    directory = tmp_path / "provider" / "pkg" / "provider"
    directory.mkdir(parents=True)
    (directory / "diff.go").write_text(f"package provider\n\n{table}\n{helpers}\n{data}")
    (directory / "helm_release.go").write_text(
        helm if helm is not None else 'package provider\n\nfunc f() {\n\tforceNewFields := []string{".name", ".namespace"}\n}\n'
    )
    return tmp_path


def test_configmap_and_secret_data_fields_are_replacements_beside_the_table(tmp_path):
    table = force_new(_provider(tmp_path, 'var forceNew = _groups{\n\t"core": _versions{"v1": _kinds{"ConfigMap": properties{".immutable"}}},\n}\n'))
    # The data fields' entry stands for the kind, as the provider's forceNewProperties adds them after the table.
    assert table[("core", "v1", "ConfigMap")] == [".binaryData", ".data", *METADATA]
    assert table[("core", "v1", "Secret")] == [".data", *METADATA, ".stringData"]
    assert table[("*", "*", "*")] == METADATA
    assert table[HELM_RELEASE] == [".name", ".namespace"]


def test_a_helm_release_file_without_its_field_list_replaces_on_nothing(tmp_path):
    table = force_new(
        _provider(tmp_path, 'var forceNew = _groups{"apps": _versions{"v1": _kinds{"Widget": properties{".a"}}}}', helm="package provider\n")
    )
    assert table[HELM_RELEASE] == []
    assert table[("apps", "v1", "Widget")] == [".a", *METADATA]


def test_kinds_behind_a_variable_nothing_declares_list_nothing(tmp_path):
    table = force_new(
        _provider(tmp_path, 'var forceNew = _groups{"core": missing, "apps": _versions{"v1": _kinds{"Widget": properties{".a"}}}}', data="")
    )
    assert table == {("apps", "v1", "Widget"): [".a", *METADATA], HELM_RELEASE: [".name", ".namespace"], ("*", "*", "*"): METADATA}


def test_a_fields_variable_that_names_itself_ends_and_a_helper_adds_only_its_prefixed_entries(tmp_path):
    claim = 'append(properties{".x"}, selectorProperties(".sel")...)'
    source = f'var forceNew = _groups{{"apps": _versions{{"v1": _kinds{{"Loop": loop, "Claim": {claim}}}}}}}\n\nvar loop = loop\n'
    table = force_new(_provider(tmp_path, source, data=""))
    assert table[("apps", "v1", "Loop")] == METADATA
    assert table[("apps", "v1", "Claim")] == [*METADATA, ".sel.matchLabels", ".x"]


@pytest.mark.parametrize(
    ("table", "helpers"),
    [
        ("var other = 1", HELPERS),  # no forceNew table
        (
            'var forceNew = _groups{"apps": _versions{}}',
            "func selectorProperties(prefix string) properties {\n\treturn properties{}\n}\n",
        ),  # no metadata helper
        ('var forceNew = _groups{"apps": _versions{}}', "func metadataForceNewProperties(prefix string) properties {\n\treturn properties{}\n}\n"),
    ],
)
def test_a_tree_without_the_table_or_the_metadata_fields_is_refused(tmp_path, table, helpers):
    root = _provider(tmp_path, table, helpers=helpers)
    with pytest.raises(ValueError) as raised:
        force_new(root)
    assert (
        str(raised.value)
        == f"{root / 'provider' / 'pkg' / 'provider'}/diff.go: no forceNew table or metadataForceNewProperties; is this pulumi-kubernetes's source?"
    )


def test_paths_read_literals_variables_and_helpers_called_with_a_prefix(tmp_path):
    package = _package(tmp_path, f'package p\n\nvar listed = properties{{".v"}}\n{HELPERS}')
    assert _paths(["properties", Group(['".a"', ",", "x", ",", '".b"'])], package) == [".a", ".b"]
    assert _paths(["listed"], package) == [".v"]
    assert _paths(["append", "(", "listed", ",", "selectorProperties", "(", '".s"', ")", ")"], package) == [".v", ".s.matchLabels"]
    # A helper called with no string literal is read like a variable: the strings its body lists, as written.
    assert _paths(["selectorProperties", "(", "prefix", ")"], package) == [".matchLabels", ".notPrefixed"]
    assert _paths(["undeclared"], package) == []


def test_a_prefixed_helper_without_a_body_gives_nothing():
    assert _prefixed(None, ".x") == []
    assert _prefixed([], ".x") == []
    assert _prefixed(["return", "properties", Group(["prefix", "+", '".a"', ",", '".b"', "+", "c"])], ".p") == [".p.a"]


def test_a_literal_is_written_inline_or_held_by_a_variable(tmp_path):
    package = _package(tmp_path, 'package p\n\nvar held = _versions{"v1": x}\n\nvar bare = 1\n')
    assert _literal(["_versions", Group(['"v2"', ":", "y"])], package) == ['"v2"', ":", "y"]
    assert _literal(["held"], package) == ['"v1"', ":", "x"]
    assert _literal(["bare"], package) == []
    assert _literal(["&", "nowhere"], package) == []


def test_a_wire_path_drops_only_the_leading_dot_and_every_list_marker():
    assert wire_path(".spec.containers[*].ports[*].containerPort") == "spec.containers.ports.containerPort"
    assert wire_path("..data") == "data"


def test_only_the_quotes_are_stripped_from_a_field_or_a_helpers_suffix(tmp_path):
    package = _package(tmp_path, 'package p\n\nfunc suffixed(prefix string) properties {\n\treturn properties{\n\t\tprefix + "X.tailX",\n\t}\n}\n')
    assert _paths([Group(['"X.fieldX"'])], package) == ["X.fieldX"]
    assert _paths(["suffixed", "(", '"X.headX"', ")"], package) == ["X.headX" + "X.tailX"]
    assert wire_path(".X.fieldX") == "X.fieldX"


def test_every_part_of_an_append_is_kept(tmp_path):
    package = _package(tmp_path, 'package p\n\nvar listed = properties{".v"}\n')
    # append(properties{".a"}, properties{".b"}...), then append(properties{".a"}, listed...)
    assert _paths(["append", "(", "properties", Group(['".a"']), ",", "properties", Group(['".b"']), "...", ")"], package) == [".a", ".b"]
    assert _paths(["append", "(", "properties", Group(['".a"']), ",", "listed", "...", ")"], package) == [".a", ".v"]


def test_kinds_held_by_a_variable_are_read_through_it(tmp_path):
    source = 'var forceNew = _groups{"apps": _versions{"v1": appsKinds}}\n\nvar appsKinds = _kinds{"Widget": properties{".w"}}\n'
    table = force_new(_provider(tmp_path, source, data=""))
    assert table[("apps", "v1", "Widget")] == [*METADATA, ".w"]
