"""The pulumi-kubernetes reader: the `forceNew` table by group, version and kind, as the provider's diff reads it.

The fixture (`fixtures/kubernetes`) is written for these tests in the shape of
the provider's `diff.go` and `helm_release.go`: kinds listed inline, through a
package variable, and through `append(...)` of a helper called with a prefix.
"""

from pathlib import Path

from railyard.change.kubernetes_source import HELM_RELEASE, force_new, wire_path

PROVIDER = Path(__file__).parent / "fixtures" / "kubernetes"
METADATA = [".metadata.name", ".metadata.namespace"]


def test_each_kind_lists_its_fields_and_every_object_its_name_and_namespace():
    table = force_new(PROVIDER)
    assert table[("storage.k8s.io", "v1", "StorageClass")] == [*METADATA, ".parameters"]
    assert table[("apps", "v1", "Widget")] == [*METADATA, ".spec.template[*].image"]
    assert table[("*", "*", "*")] == METADATA


def test_append_and_prefixed_helpers_are_followed():
    assert force_new(PROVIDER)[("core", "v1", "Claim")] == [*METADATA, ".spec.accessModes", ".spec.selector.matchLabels"]


def test_a_helm_release_is_replaced_by_its_name_and_namespace():
    assert force_new(PROVIDER)[HELM_RELEASE] == [".name", ".namespace"]


def test_wire_paths_drop_the_leading_dot_and_list_markers():
    assert wire_path(".spec.template[*].image") == "spec.template.image"
