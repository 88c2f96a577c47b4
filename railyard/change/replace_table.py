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
  - `--terraform DIR --terraform-files MANIFEST`: DIR holds single files of the
    provider, each read at its own commit, laid out at their repository paths;
    MANIFEST (JSON) maps each path to its commit (`{"path": "<sha>"}` or
    `{"path": {"commit": "<sha>", "date": "..."}}`). Every resource records the
    commit of its file; a type whose file DIR lacks keeps its entry, and that
    entry's commit, from the part being replaced.
  An input the part doesn't list is `unknown`.
* **pulumi-kubernetes**, `--kubernetes DIR`: the provider's `forceNew` table
  (railyard.change.kubernetes_source). An unlisted field is an update, since
  the provider patches objects in place.

`python -m railyard.change.replace_table --terraform DIR [--terraform-files
MANIFEST] --revision TEXT --kubernetes DIR --kubernetes-revision TEXT` rewrites
the file (a part not given is kept); `load_table()` reads it at run time with
no source needed.
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from blueprints.records import record
from railyard.change.terraform_source import REPLACE, UPDATE, ResourceSchema, read_resources, resource_names

OUTPUT = Path(__file__).with_name("replace_on_change.json")
UNKNOWN = "unknown"
EXAMPLES = Path(__file__).resolve().parents[2] / "blueprints" / "examples"


@record
class Effect:
    """What changing one input does: replace, conditional, update or unknown, and the table entry that says so."""

    kind: str
    entry: str


@record
class ResourceRules:
    """One resource type's inputs and their effects, and the outputs an in-place update recomputes."""

    type_token: str
    source_name: str
    inputs: MappingProxyType
    recomputed: tuple[str, ...]
    # What a path the table doesn't list does: `unknown` for pulumi-aws (the table lists every input it knows);
    # `update` for Kubernetes objects, which pulumi-kubernetes patches unless a listed field changes.
    default: str = UNKNOWN
    # Inputs both optional and computed: dropped from the config (a value, then none) they make no diff, the
    # provider keeping what AWS has. None when the table's source for this type didn't record them.
    optional_computed: frozenset[str] | None = None

    def dropped_is_no_change(self, path: str) -> bool:
        """True when removing the input at `path` from the config leaves the resource as it is (optional and computed)."""
        return self.optional_computed is not None and path in self.optional_computed

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


@record
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
            token,
            entry["source_name"],
            MappingProxyType(dict(entry["inputs"])),
            tuple(entry.get("recomputed", ())),
            entry.get("default", UNKNOWN),
            frozenset(entry["optional_computed"]) if "optional_computed" in entry else None,
        )
        for part in raw["parts"].values()
        for token, entry in part["resources"].items()
    }
    sources = {provider: MappingProxyType(part["source"]) for provider, part in raw["parts"].items()}
    return ReplaceTable(MappingProxyType(sources), MappingProxyType(resources))


# --- generation -----------------------------------------------------------------------------------------------


def emitted_types(examples: Path = EXAMPLES, preview: Callable[[str], Any] | None = None) -> list[str]:
    """Every pulumi-aws and pulumi-kubernetes resource type the program registers for some example blueprint (each previewed
    offline by `preview`, `railyard.mocked.run_preview` unless a caller has the previews already)."""
    if preview is None:
        from railyard.mocked import run_preview

        preview = run_preview
    found: set[str] = set()
    for blueprint in sorted(examples.glob("*.yaml")):
        result = preview(str(blueprint))
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


_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def read_manifest(path: Path) -> dict[str, dict[str, str]]:
    """Which commit each single file of a file-by-file tree was read at: `{path: {"commit": sha, "date"?: text}}`.

    A helper file whose commit the place it was read from doesn't give may say so instead
    (`{"commit": null, "note": "..."}`); a resource's file must have its commit (from_terraform checks).
    """
    raw = json.loads(path.read_text(encoding="utf-8"))
    files = {name: {"commit": value} if isinstance(value, str) else dict(value) for name, value in raw.items()}
    wrong = sorted(name for name, value in files.items() if not (_COMMIT.match(value.get("commit") or "") or value.get("note")))
    if wrong:
        raise ValueError(f"{path}: give a full 40-character commit (or a note saying why there is none) for {', '.join(wrong)}")
    return files


def from_terraform(
    root: Path, revision: str, types: list[str], files: dict[str, dict[str, str]] | None = None, previous: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The table from terraform-provider-aws source at `root`, for `types`.

    `root` is a whole checkout at `revision`, or, with `files` (read_manifest), single files each read at its
    own commit. Each resource records the commit its file was read at. In the file-by-file case a type whose
    file `root` lacks keeps its entry from `previous`, the part this one replaces, with that entry's commit.
    """
    from railyard.change.sdk_names import sdk_has  # the SDK loads only to generate

    names = resource_names(root)
    bridged = {token: terraform_name(token, names) for token in types}
    schemas = read_resources(root, {name for name in bridged.values() if name})
    resources: dict[str, Any] = {}
    missing = []
    for token, name in sorted(bridged.items()):
        schema = schemas.get(name) if name else None
        if schema is None or not sdk_has(token):
            missing.append(token)
            continue
        if files is not None and not files.get(schema.file, {}).get("commit"):
            raise ValueError(f"{schema.file} is in {root} but the manifest gives no commit for it")
        read_at = files[schema.file] if files is not None else {"commit": revision.split()[0]}
        resources[token] = _entry(token, schema, read_at)
    if files is not None:
        kept = _kept(missing, previous or {})
        resources.update(kept)
        missing = [token for token in missing if token not in kept]
    return {"source": _terraform_source(revision, files, resources), "resources": dict(sorted(resources.items())), "not_covered": missing}


def _entry(token: str, schema: ResourceSchema, read_at: dict[str, str]) -> dict[str, Any]:
    """One resource's table entry from its schema, under the SDK's wire names, with the commit its file was read at."""
    from railyard.change.sdk_names import wire_path

    inputs, unmapped, optional_computed = {}, [], []
    for attribute, kind in sorted(schema.attributes.items()):
        wire = wire_path(token, attribute)
        if wire is None:
            unmapped.append(attribute)  # computed-only attributes, or ones the SDK renamed beyond pluralisation
        else:
            inputs[wire] = kind
            if attribute in schema.optional_computed:
                optional_computed.append(wire)
    return {
        "source_name": schema.terraform_name,
        "file": schema.file,
        "revision": read_at["commit"],
        **({"revision_date": read_at["date"]} if read_at.get("date") else {}),
        "inputs": dict(sorted(inputs.items())),
        "optional_computed": sorted(optional_computed),
        "recomputed": sorted(_output_name(token, attribute) for attribute in schema.recomputed),
        "unresolved": sorted(schema.unresolved),
        "not_inputs": sorted(unmapped),
    }


def _kept(missing: list[str], previous: dict[str, Any]) -> dict[str, Any]:
    """The previous part's entries for types the file-by-file tree has no file for, each with the commit it was read at."""
    commit, _, date = str(previous.get("source", {}).get("revision", "")).partition(" ")  # "<sha> (<date>, ...)"
    fallback = {"revision": commit, "revision_date": date.strip("() ")}
    kept = {}
    for token in missing:
        entry = previous.get("resources", {}).get(token)
        if entry is not None:
            kept[token] = dict(sorted((entry if "revision" in entry else {**fallback, **entry}).items()))
    return kept


def _terraform_source(revision: str, files: dict[str, dict[str, str]] | None, resources: dict[str, Any]) -> dict[str, Any]:
    """The part's `source`: what it was read from, whole or file by file (then which commits, and the helper files)."""
    names_from = f"pulumi_aws {importlib.metadata.version('pulumi_aws')}"  # Terraform names -> wire names, by the SDK's getters
    if files is None:
        described = f"hashicorp/terraform-provider-aws {revision}: ForceNew and CustomizeDiff"
        return {"kind": "terraform-provider-aws", "revision": revision, "described": described, "names_from": names_from}
    commits = sorted({entry["revision"] for entry in resources.values()})
    read = {entry["file"] for entry in resources.values()}
    described = f"hashicorp/terraform-provider-aws file by file at {len(commits)} commits (each resource names its own): ForceNew, CustomizeDiff"
    return {
        "kind": "terraform-provider-aws",
        "assembled": "file by file",
        "revision": revision,
        "described": described,
        "helpers": {name: value.get("commit") or value["note"] for name, value in sorted(files.items()) if name not in read},
        "names_from": names_from,
    }


def _output_name(type_token: str, attribute: str) -> str:
    """An output's wire name; a pluralised block (`subnet_configuration` -> `subnetConfigurations`) by its input's name."""
    from railyard.change.sdk_names import resource_output, wire_path

    return resource_output(type_token, attribute) or wire_path(type_token, attribute) or attribute


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
    parser.add_argument(
        "--terraform-files", metavar="MANIFEST", help="with --terraform: DIR holds single files; MANIFEST (JSON) names each one's commit"
    )
    parser.add_argument("--revision", help="what the pulumi-aws part's source is, for the record (a tag, or a commit and its date)")
    parser.add_argument("--kubernetes", metavar="DIR", help="the pulumi-kubernetes part from a pulumi-kubernetes checkout")
    parser.add_argument("--kubernetes-revision", help="what the pulumi-kubernetes checkout is, for the record")
    parser.add_argument("--output", default=str(OUTPUT), help=f"where to write (default: {OUTPUT}); a part not regenerated is kept from it")
    args = parser.parse_args(argv)
    if not (args.terraform or args.schema or args.kubernetes):
        parser.error("give --terraform or --schema (pulumi-aws), and/or --kubernetes")
    if (args.terraform or args.schema) and not args.revision or args.kubernetes and not args.kubernetes_revision:
        parser.error("say what each source is: --revision for pulumi-aws, --kubernetes-revision for pulumi-kubernetes")
    if args.terraform_files and not args.terraform:
        parser.error("--terraform-files needs --terraform DIR")
    try:
        files = read_manifest(Path(args.terraform_files)) if args.terraform_files else None
    except (OSError, ValueError) as error:
        parser.error(str(error))
    output = Path(args.output)
    parts = json.loads(output.read_text(encoding="utf-8"))["parts"] if output.exists() else {}
    types = emitted_types()
    by_provider = {provider: [token for token in types if token.startswith(provider + ":")] for provider in PROVIDERS}
    if args.terraform:
        parts["aws"] = from_terraform(Path(args.terraform), args.revision, by_provider["aws"], files, parts.get("aws"))
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
