"""Which input changes replace a resource: `replace_on_change.json`, generated, never edited by hand.

The file has a part per provider. For every resource type railyard emits, it
lists inputs by wire path (`launchTemplate.version`) as `replace` (the
provider destroys and recreates the resource when it changes), `conditional`
(pulumi-aws's CustomizeDiff decides at diff time: a Lustre capacity decrease
replaces, an increase does not) or `update` (in place), with what an unlisted
path does (`default`) and the outputs an in-place update recomputes (a launch
template's `latestVersion`).

* **pulumi-aws**, from either source:
  - `--schema FILE`: the Pulumi package schema (`pulumi package get-schema
    aws@<version> > aws.json`), whose `willReplaceOnChanges` flags are what
    issue 17 names. Use it where the Pulumi CLI is installed.
  - `--terraform DIR`: a terraform-provider-aws checkout, where those flags come
    from (the bridge copies `ForceNew` into `willReplaceOnChanges`). It also
    shows the CustomizeDiff replacements no schema does. The committed part was
    made this way: the schema ships only in the provider plugin and as a Git LFS
    file, and neither can be fetched on this project's build machines.
  An input the part doesn't list is `unknown`.
* **pulumi-kubernetes**, `--kubernetes DIR`: the provider's `forceNew` table
  (railyard.change.kubernetes_source). An unlisted field is an update, since
  the provider patches objects in place.

`python -m railyard.change.replace_table --terraform DIR --revision TEXT
--kubernetes DIR --kubernetes-revision TEXT` rewrites the file (a part not
given is kept); `load_table()` reads it at run time with no source needed.
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from railyard.change.terraform_source import REPLACE, UPDATE, read_resources

OUTPUT = Path(__file__).with_name("replace_on_change.json")
UNKNOWN = "unknown"
EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"


@dataclass(frozen=True)
class Effect:
    """What changing one input does: replace, conditional, update or unknown, and the table entry that says so."""

    kind: str
    entry: str


@dataclass(frozen=True)
class ResourceRules:
    """One resource type's inputs and their effects, and the outputs an in-place update recomputes."""

    type_token: str
    source_name: str
    inputs: MappingProxyType
    recomputed: tuple[str, ...]
    # What a path the table doesn't list does: `unknown` for pulumi-aws (the table lists every input it knows);
    # `update` for Kubernetes objects, which pulumi-kubernetes patches unless a listed field changes.
    default: str = UNKNOWN

    def effect(self, path: str) -> Effect:
        """The effect of changing the input at `path` (wire names, list indexes dropped).

        A path inside a replacing block replaces; a map's keys (`tags.Name`)
        take the map's effect; a path the table does not list takes the default.
        """
        parts = path.split(".")
        for depth in range(1, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            if self.inputs.get(prefix) == REPLACE:
                return Effect(REPLACE, prefix)
        for depth in range(len(parts), 0, -1):
            prefix = ".".join(parts[:depth])
            kind = self.inputs.get(prefix)
            if kind is None:
                continue
            if depth == len(parts) or not any(key.startswith(prefix + ".") for key in self.inputs):
                return Effect(kind, prefix)
            return Effect(self.default, path)
        return Effect(self.default, path)


@dataclass(frozen=True)
class ReplaceTable:
    """The generated table: its source, and the rules per resource type."""

    source: MappingProxyType
    resources: MappingProxyType

    def rules(self, type_token: str) -> ResourceRules | None:
        """The rules of a resource type, or None when the table doesn't cover it."""
        return self.resources.get(type_token)

    @property
    def described(self) -> str:
        """Where the table comes from, in one line."""
        return "; ".join(str(part.get("described", "unknown source")) for _, part in sorted(self.source.items()))


@functools.cache
def load_table(path: Path = OUTPUT) -> ReplaceTable:
    """The committed table."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    resources = {
        token: ResourceRules(
            token, entry["source_name"], MappingProxyType(dict(entry["inputs"])), tuple(entry.get("recomputed", ())), entry.get("default", UNKNOWN)
        )
        for part in raw["parts"].values()
        for token, entry in part["resources"].items()
    }
    sources = {provider: MappingProxyType(part["source"]) for provider, part in raw["parts"].items()}
    return ReplaceTable(MappingProxyType(sources), MappingProxyType(resources))


# --- generation -----------------------------------------------------------------------------------------------


def emitted_types(examples: Path = EXAMPLES) -> list[str]:
    """Every pulumi-aws and pulumi-kubernetes resource type the program registers for some example blueprint (each previewed offline)."""
    from railyard.mocked import run_preview

    found: set[str] = set()
    for blueprint in sorted(examples.glob("*.yaml")):
        result = run_preview(str(blueprint))
        found.update(resource.type for resource in result.resources if resource.type.split(":")[0] in PROVIDERS and ":index/" not in resource.type)
    return sorted(found)


PROVIDERS = ("aws", "kubernetes")


def _squashed(name: str) -> str:
    return name.replace("_", "").lower()


def terraform_name(type_token: str, candidates: set[str]) -> str | None:
    """The Terraform resource a pulumi-aws type is bridged from, by the bridge's naming (`aws_<module>_<name>`, or `aws_<name>` for EC2)."""
    _, module_path, name = type_token.split(":")
    module = module_path.split("/", 1)[0]
    by_squashed = {_squashed(candidate): candidate for candidate in candidates}
    for guess in (f"aws_{module}_{name}", f"aws_{name}"):
        if _squashed(guess) in by_squashed:
            return by_squashed[_squashed(guess)]
    return None


def _all_terraform_names(root: Path) -> set[str]:
    pattern = re.compile(r'@SDKResource\("(aws_[a-z0-9_]+)"|TypeName\s*=\s*"(aws_[a-z0-9_]+)"')
    names: set[str] = set()
    for path in (root / "internal" / "service").glob("*/*.go"):
        if not path.name.endswith("_test.go"):
            names.update(group for match in pattern.finditer(path.read_text(encoding="utf-8")) for group in match.groups() if group)
    return names


def from_terraform(root: Path, revision: str, types: list[str]) -> dict[str, Any]:
    """The table from a terraform-provider-aws checkout at `revision`, for `types`."""
    from railyard.change.sdk_names import sdk_has, wire_path  # the SDK loads only to generate

    names = _all_terraform_names(root)
    bridged = {token: terraform_name(token, names) for token in types}
    schemas = read_resources(root, {name for name in bridged.values() if name})
    resources: dict[str, Any] = {}
    missing = []
    for token, name in sorted(bridged.items()):
        schema = schemas.get(name) if name else None
        if schema is None or not sdk_has(token):
            missing.append(token)
            continue
        inputs, unmapped = {}, []
        for attribute, kind in sorted(schema.attributes.items()):
            wire = wire_path(token, attribute)
            if wire is None:
                unmapped.append(attribute)  # computed-only attributes, or ones the SDK renamed beyond pluralisation
            else:
                inputs[wire] = kind
        resources[token] = {
            "source_name": name,
            "file": schema.file,
            "inputs": dict(sorted(inputs.items())),
            "recomputed": sorted(_output_name(token, attribute) for attribute in schema.recomputed),
            "unresolved": sorted(schema.unresolved),
            "not_inputs": sorted(unmapped),
        }
    return {
        "source": {
            "kind": "terraform-provider-aws",
            "revision": revision,
            "described": f"hashicorp/terraform-provider-aws {revision}: ForceNew and CustomizeDiff",
            "names_from": f"pulumi_aws {importlib.metadata.version('pulumi_aws')}",  # Terraform names -> wire names, by the SDK's getters
        },
        "resources": resources,
        "not_covered": missing,
    }


def _output_name(type_token: str, attribute: str) -> str:
    from railyard.change.sdk_names import resource_output

    return resource_output(type_token, attribute) or attribute


def from_schema(schema: dict[str, Any], revision: str, types: list[str], previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """The table from a Pulumi package schema: each input's `willReplaceOnChanges`, nested object types followed.

    A schema can't say which outputs an update recomputes (that is the provider's CustomizeDiff), so they are
    kept from `previous`, the part this one replaces (its `recomputed_from` says so).
    """
    type_defs = schema.get("types", {})
    kept = (previous or {}).get("resources", {})

    def walk(properties: dict[str, Any], prefix: str, out: dict[str, str], seen: tuple[str, ...]) -> None:
        for name, spec in sorted(properties.items()):
            path = prefix + name
            out[path] = REPLACE if spec.get("willReplaceOnChanges") else UPDATE
            reference = spec.get("$ref") or spec.get("items", {}).get("$ref") or spec.get("additionalProperties", {}).get("$ref")
            if reference and reference.startswith("#/types/"):
                token = reference.removeprefix("#/types/")
                if token not in seen and token in type_defs:
                    walk(type_defs[token].get("properties", {}), path + ".", out, (*seen, token))

    resources: dict[str, Any] = {}
    missing = []
    for token in types:
        resource = schema.get("resources", {}).get(token)
        if resource is None:
            missing.append(token)
            continue
        inputs: dict[str, str] = {}
        walk(resource.get("inputProperties", {}), "", inputs, ())
        resources[token] = {
            "source_name": token,
            "file": "(the package schema)",
            "inputs": inputs,
            "recomputed": kept.get(token, {}).get("recomputed", []),
            "unresolved": [],
            "not_inputs": [],
        }
    recomputed_from = (previous or {}).get("source", {}).get("described", "nothing")
    return {
        "source": {
            "kind": "pulumi-schema",
            "revision": revision,
            "described": f"Pulumi schema {revision}, willReplaceOnChanges",
            "recomputed_from": recomputed_from,
        },
        "resources": resources,
        "not_covered": missing,
    }


def from_kubernetes(root: Path, revision: str, types: list[str]) -> dict[str, Any]:
    """The table's Kubernetes part from a pulumi-kubernetes checkout: each emitted kind's replacement fields; the rest patch in place."""
    from railyard.change.kubernetes_source import HELM_RELEASE, force_new, wire_path

    fields = force_new(root)
    resources = {}
    for token in types:
        _, group_version, kind = token.split(":")
        group, _, version = group_version.rpartition("/")
        key = (group, version, kind)
        listed = fields.get(key, fields[("*", "*", "*")])
        resources[token] = {
            "source_name": "/".join(key),
            "file": "provider/pkg/provider/" + ("helm_release.go" if key == HELM_RELEASE else "diff.go"),
            "inputs": {wire_path(field): REPLACE for field in listed},
            "default": UPDATE,
            "recomputed": [],
            "unresolved": [],
            "not_inputs": [],
        }
    return {
        "source": {
            "kind": "pulumi-kubernetes",
            "revision": revision,
            "described": f"pulumi/pulumi-kubernetes {revision}: forceNew fields",
        },
        "resources": resources,
        "not_covered": [],
    }


def render(table: dict[str, Any]) -> str:
    """The file's exact text."""
    return json.dumps(table, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m railyard.change.replace_table", description=__doc__.split("\n\n")[0])
    aws = parser.add_mutually_exclusive_group()
    aws.add_argument("--terraform", metavar="DIR", help="the pulumi-aws part from a terraform-provider-aws checkout")
    aws.add_argument("--schema", metavar="FILE", help="the pulumi-aws part from a Pulumi package schema (pulumi package get-schema aws@VERSION)")
    parser.add_argument("--revision", help="what the pulumi-aws part's source is, for the record (a tag, or a commit and its date)")
    parser.add_argument("--kubernetes", metavar="DIR", help="the pulumi-kubernetes part from a pulumi-kubernetes checkout")
    parser.add_argument("--kubernetes-revision", help="what the pulumi-kubernetes checkout is, for the record")
    parser.add_argument("--output", default=str(OUTPUT), help=f"where to write (default: {OUTPUT}); a part not regenerated is kept from it")
    args = parser.parse_args(argv)
    if not (args.terraform or args.schema or args.kubernetes):
        parser.error("give --terraform or --schema (pulumi-aws), and/or --kubernetes")
    if (args.terraform or args.schema) and not args.revision or args.kubernetes and not args.kubernetes_revision:
        parser.error("say what each source is: --revision for pulumi-aws, --kubernetes-revision for pulumi-kubernetes")
    output = Path(args.output)
    parts = json.loads(output.read_text(encoding="utf-8"))["parts"] if output.exists() else {}
    types = emitted_types()
    by_provider = {provider: [token for token in types if token.startswith(provider + ":")] for provider in PROVIDERS}
    if args.terraform:
        parts["aws"] = from_terraform(Path(args.terraform), args.revision, by_provider["aws"])
    elif args.schema:
        parts["aws"] = from_schema(json.loads(Path(args.schema).read_text(encoding="utf-8")), args.revision, by_provider["aws"], parts.get("aws"))
    if args.kubernetes:
        parts["kubernetes"] = from_kubernetes(Path(args.kubernetes), args.kubernetes_revision, by_provider["kubernetes"])
    output.write_text(render({"parts": parts}), encoding="utf-8")
    for provider, part in sorted(parts.items()):
        missing = ", ".join(part["not_covered"]) or "none"
        print(f"wrote {output} ({provider}): {len(part['resources'])} resource types; not covered: {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
