"""Which fields replace a Kubernetes object under pulumi-kubernetes, read from the provider's Go source.

pulumi-kubernetes patches an object in place unless a field in its
`forceNew` table changes (`provider/pkg/provider/diff.go`: per API group,
version and kind, plus every object's `.metadata.name` and
`.metadata.namespace`); a Helm release is replaced when its `.name` or
`.namespace` changes (`helm_release.go`). Every other change is an update,
which the API server may still refuse for a field it holds immutable: that
is an apply error, not a replacement, and no provider table shows it.
"""

from __future__ import annotations

import re
from pathlib import Path

from railyard.change.go_source import Group, Package, flat, map_entries, tokens

_DATA_FIELDS = re.compile(r"clients\.Is(ConfigMap|Secret)\(obj\)[^{]*\{\s*props = append\(props, properties\{([^}]*)\}")
_HELM_FIELDS = re.compile(r"forceNewFields\s*:=\s*\[\]string\{([^}]*)\}")
HELM_RELEASE = ("helm.sh", "v3", "Release")


def _strings(items: list) -> list[str]:
    return [item.strip('"') for item in items if isinstance(item, str) and item.startswith('"')]


def _paths(value: list, package: Package) -> list[str]:
    """The field paths a `properties` value lists: a literal, a package variable, `append(...)`, or a helper called with a prefix."""
    found: list[str] = []
    index = 0
    while index < len(value):
        item = value[index]
        if isinstance(item, Group):
            found += _strings(item)
        elif (
            isinstance(item, str)
            and item.isidentifier()
            and index + 2 < len(value)
            and value[index + 1] == "("
            and str(value[index + 2]).startswith('"')
        ):
            found += _prefixed(package.declaration(item), value[index + 2].strip('"'))
            index += 2
        elif isinstance(item, str) and item.isidentifier() and item not in ("append", "properties"):
            declared = package.declaration(item)
            if declared is not None and declared is not value:
                found += _paths(declared, package)
        index += 1
    return found


def _prefixed(body: list | None, prefix: str) -> list[str]:
    """What `helper("<prefix>")` returns when its body lists `prefix + "<suffix>"` entries."""
    if not body:
        return []
    listed = [token for group in body if isinstance(group, Group) for token in flat(group)]
    return [prefix + token.strip('"') for before, token in zip(listed, listed[1:], strict=False) if before == "+" and token.startswith('"')]


def force_new(root: Path) -> dict[tuple[str, str, str], list[str]]:
    """Replacement fields per (group, version, kind), as the provider's `forceNew` table lists them, metadata included."""
    directory = root / "provider" / "pkg" / "provider"
    package = Package(directory)
    table = package.declaration("forceNew")
    metadata = _prefixed(package.declaration("metadataForceNewProperties"), ".metadata")
    if not table or not metadata:
        raise ValueError(f"{directory}/diff.go: no forceNew table or metadataForceNewProperties; is this pulumi-kubernetes's source?")
    found: dict[tuple[str, str, str], list[str]] = {}
    groups = next(item for item in table if isinstance(item, Group))
    for group, versions_value in map_entries(groups, package):
        versions = _literal(versions_value, package)
        for version, kinds_value in map_entries(versions, package):
            for kind, fields in map_entries(_literal(kinds_value, package), package):
                found[(group, version, kind)] = sorted(set(metadata + _paths(fields, package)))
    helm = _HELM_FIELDS.search((directory / "helm_release.go").read_text(encoding="utf-8"))
    found[HELM_RELEASE] = sorted(_strings(tokens(helm.group(1)))) if helm else []
    found[("*", "*", "*")] = metadata
    # ConfigMaps and Secrets are replaced on a data change unless the provider's enableConfigMapMutable /
    # enableSecretMutable is set (railyard sets neither): forceNewProperties adds their data fields outside the table.
    for kind, fields in _DATA_FIELDS.findall((directory / "diff.go").read_text(encoding="utf-8")):
        found[("core", "v1", kind)] = sorted(set(metadata + _strings(tokens(fields))))
    return found


def _literal(value: list, package: Package) -> Group:
    """A composite literal's body, written inline or held by a package variable (`"core": core`)."""
    inline = next((item for item in value if isinstance(item, Group)), None)
    if inline is not None:
        return inline
    name = next(item for item in value if isinstance(item, str) and item.isidentifier())
    declared = package.declaration(name) or []
    return next((item for item in declared if isinstance(item, Group)), Group())


def wire_path(field: str) -> str:
    """`.spec.containers[*].image` -> `spec.containers.image`: the diff's path form."""
    return field.lstrip(".").replace("[*]", "")
