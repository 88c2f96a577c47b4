"""Regenerate `instance_types.json` from AWS's own DescribeInstanceTypes data.

The committed catalog is never typed by hand. One command rebuilds it:

    python -m blueprints.catalog.generate --source moto          # default
    python -m blueprints.catalog.generate --source types.json    # your account
    python -m blueprints.catalog.generate --check                # CI: exit 1 if stale

`--source moto` reads the DescribeInstanceTypes dump that moto ships
(`moto/ec2/resources/instance_types.json.gz`, a dict of instance type name to
entry). `--source PATH` reads the output of
`aws ec2 describe-instance-types --output json`: one `{"InstanceTypes": [...]}`
page, a JSON list of such pages, or several pages concatenated in one file.
Either way the output keeps only the supported families, trims each entry to
the fields the catalog model reads (AWS field names, AWS values), and is
byte-deterministic: sorted keys, two-space indent, trailing newline, no
timestamps. The provenance block names the source, its SHA-256 and the command.

Types no source has: `p6e-gb200` (Grace + B200, arm64) is absent from moto 5.2.5's dump, so its entry is
assembled from AWS's documentation (`documented/p6e-gb200.json`, each value sourced in
`documented/p6e-gb200.sources.yaml`; `documented_types.py`) and added under the source's data by default.
The provenance block lists it under `documented`, with the file's SHA-256. An account that can see the
type replaces it with its own answer:

    aws ec2 describe-instance-types --instance-types p6e-gb200.36xlarge --output json > gb200.json
    python -m blueprints.catalog.generate --add gb200.json

An API answer, the source's or an added one, always wins over a documented entry; docs/catalog.md,
"Adding an instance type", walks through it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from blueprints.catalog.documented_types import coverage_problems, documented_files, sources_file
from blueprints.catalog.model import CatalogError, api_fields, family_of
from blueprints.source import load_data

CATALOG_PATH = Path(__file__).with_name("instance_types.json")
MOTO_RESOURCE = "moto/ec2/resources/instance_types.json.gz"

SUPPORTED_FAMILIES: tuple[str, ...] = (
    "p4d",
    "p4de",
    "p5",
    "p5e",
    "p5en",
    "p6-b200",
    "p6-b300",
    "p6e-gb200",
    "g5",
    "g6",
    "g6e",
    "g7e",
    "trn1",
    "trn1n",
    "trn2",
    "trn2u",
    "inf2",
)

# The subset of each DescribeInstanceTypes entry the catalog model reads.
# `True` keeps the value whole; a nested dict keeps only the named keys. Keeping
# AWS's own shape means the committed file is still AWS's data, only shorter.
KEPT_FIELDS: dict[str, Any] = {
    "InstanceType": True,
    "CurrentGeneration": True,
    "ProcessorInfo": {"Manufacturer": True, "SupportedArchitectures": True},
    "VCpuInfo": {"DefaultVCpus": True, "DefaultCores": True, "DefaultThreadsPerCore": True},
    "MemoryInfo": {"SizeInMiB": True},
    "GpuInfo": True,
    "NeuronInfo": True,
    "InferenceAcceleratorInfo": True,
    "InstanceStorageInfo": True,
    "NetworkInfo": {
        "DefaultNetworkCardIndex": True,
        "EfaInfo": True,
        "EfaSupported": True,
        "EnaSupport": True,
        "Ipv4AddressesPerInterface": True,
        "MaximumNetworkCards": True,
        "MaximumNetworkInterfaces": True,
        "NetworkCards": True,
        "NetworkPerformance": True,
    },
    "PlacementGroupInfo": True,
    "SupportedUsageClasses": True,
}


class SourceError(Exception):
    """The source data cannot be read or lacks what the catalog needs."""


def trim_entry(entry: dict[str, Any], kept: dict[str, Any] = KEPT_FIELDS) -> dict[str, Any]:
    """Copy of a DescribeInstanceTypes entry holding only the `kept` fields.

    Absent fields stay absent (an instance without GPUs has no `GpuInfo`), so the
    model sees exactly what AWS reported and nothing invented.
    """
    trimmed: dict[str, Any] = {}
    for key, rule in kept.items():
        if key not in entry:
            continue
        value = entry[key]
        trimmed[key] = trim_entry(value, rule) if isinstance(rule, dict) else value
    return trimmed


def _moto_source() -> tuple[bytes, str, str]:
    """Raw bytes, description and command for the dump moto ships."""
    spec = importlib.util.find_spec("moto")  # locate without importing moto (slow)
    if spec is None or not spec.submodule_search_locations:
        raise SourceError("moto is not installed; install it or pass --source PATH.json")
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    dump = package_dir.parent / MOTO_RESOURCE
    if not dump.is_file():
        raise SourceError(f"moto is installed but {MOTO_RESOURCE} is missing ({dump})")
    version = importlib.metadata.version("moto")
    command = "python -m blueprints.catalog.generate --source moto"
    return dump.read_bytes(), f"moto {version}: {MOTO_RESOURCE}", command


def _json_documents(text: str, where: str) -> list[Any]:
    """Every JSON document in `text`, so concatenated CLI pages parse too."""
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            break
        try:
            document, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise SourceError(f"{where} is not valid JSON: {error}") from None
        documents.append(document)
    if not documents:
        raise SourceError(f"{where} is empty")
    return documents


def _pages(document: Any, where: str) -> list[dict[str, Any]]:
    """The `{"InstanceTypes": [...]}` pages inside one parsed document."""
    pages = document if isinstance(document, list) else [document]
    for page in pages:
        if not isinstance(page, dict) or not isinstance(page.get("InstanceTypes"), list):
            raise SourceError(
                f"{where} does not look like `aws ec2 describe-instance-types --output json` "
                'output: expected {"InstanceTypes": [...]} or a list of such pages'
            )
    return pages


def entries_from_describe_output(raw: bytes, where: str) -> dict[str, dict[str, Any]]:
    """Instance type name -> entry, merged from describe-instance-types pages.

    The same type appearing twice with different contents means two pages from
    different sources were mixed; that is refused rather than silently resolved.
    """
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SourceError(f"{where} is not UTF-8 text: {error}") from None
    entries: dict[str, dict[str, Any]] = {}
    for document in _json_documents(text, where):
        for page in _pages(document, where):
            for entry in page["InstanceTypes"]:
                name = entry.get("InstanceType") if isinstance(entry, dict) else None
                if not isinstance(name, str):
                    raise SourceError(f"{where}: an entry has no InstanceType name")
                if name in entries and entries[name] != entry:
                    raise SourceError(f"{where}: {name} appears twice with different data")
                entries[name] = entry
    return entries


def load_source(source: str) -> tuple[dict[str, dict[str, Any]], str, str, str]:
    """Read `source` ("moto" or a path): entries, description, SHA-256, command."""
    if source == "moto":
        raw, description, command = _moto_source()
        try:
            entries = json.loads(gzip.decompress(raw))
        except (OSError, ValueError) as error:
            raise SourceError(f"cannot read moto's {MOTO_RESOURCE}: {error}") from None
    else:
        path = Path(source)
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise SourceError(f"cannot read --source {source}: {error.strerror}") from None
        entries = entries_from_describe_output(raw, source)
        description = f"aws ec2 describe-instance-types output: {source}"
        command = f"python -m blueprints.catalog.generate --source {source}"
    return entries, description, hashlib.sha256(raw).hexdigest(), command


def select_families(entries: dict[str, dict[str, Any]], families: tuple[str, ...], where: str) -> dict[str, dict[str, Any]]:
    """Trimmed entries of every size in `families`; a missing family is an error."""
    selected = {name: trim_entry(entry) for name, entry in entries.items() if family_of(name) in families}
    missing = sorted(set(families) - {family_of(name) for name in selected})
    if missing:
        raise SourceError(f"{where} has no instance types for supported families: {', '.join(missing)}")
    for name, entry in selected.items():
        # Refuse here what the catalog model could not read at load time.
        try:
            api_fields(entry)
        except (KeyError, TypeError, ValueError, CatalogError) as error:
            problem = f"{type(error).__name__}: {error}"
            raise SourceError(f"{where}: {name} lacks a field the catalog needs ({problem})") from None
    return selected


def generate(
    source: str = "moto", families: tuple[str, ...] = SUPPORTED_FAMILIES, added: tuple[str, ...] = (), documented: tuple[Path, ...] | None = None
) -> str:
    """The exact text of `instance_types.json` as built from `source`, with the types of each `added` file on top
    and the `documented` answers (by default `documented_files()`) under both.

    `added` are an account's `aws ec2 describe-instance-types` answers for types the source lacks: their families
    join the catalog, and an added type replaces the source's entry for it (the account's answer is the newer one).
    A documented entry, assembled from AWS's documentation, fills only a type no API answer gives. Pure apart from
    reading the files, so tests and `--check` compare strings.
    """
    entries, description, digest, command = load_source(source)
    extra: list[dict[str, str]] = []
    for path in added:
        if path == "moto":
            raise SourceError("--add takes a describe-instance-types file, not moto")
        more, more_description, more_digest, _ = load_source(path)
        entries.update(more)
        families += tuple(sorted({family_of(name) for name in more} - set(families)))
        extra.append({"source": more_description, "source_sha256": more_digest, "instance_types": ", ".join(sorted(more))})
        command += f" --add {path}"
    records = [_add_documented(entries, path) for path in (documented_files() if documented is None else documented)]
    # Provenance first so a reader sees where the data came from before the data;
    # everything below it is key-sorted, so dict order never leaks into the bytes.
    provenance: dict[str, Any] = {"source": description, "source_sha256": digest, "command": command, "families": list(families)}
    if extra:
        provenance["added"] = extra
    if records:
        provenance["documented"] = records
    document = {"provenance": provenance, "instance_types": _key_sorted(select_families(entries, families, description))}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _add_documented(entries: dict[str, dict[str, Any]], path: Path) -> dict[str, str]:
    """Put the documented answer at `path` into `entries` where no API answer gives its types; its provenance record.

    Refused when the sources file beside it does not account for every value (`documented_types.coverage_problems`).
    """
    more, _, digest, _ = load_source(str(path))
    try:
        sources = load_data(sources_file(path).read_text("utf-8"))
    except OSError as error:
        raise SourceError(f"{path} has no sources file {sources_file(path).name}: {error.strerror}") from None
    problems = [problem for entry in more.values() for problem in coverage_problems(entry, sources)]
    if problems:
        raise SourceError(f"{sources_file(path)} does not account for {path.name}: " + "; ".join(problems))
    answered = sorted(name for name in more if name in entries)
    entries.update({name: entry for name, entry in more.items() if name not in entries})
    record = {
        "file": _shown(path),
        "source": f"assembled from AWS's documentation, not a DescribeInstanceTypes answer; each value's source: {sources_file(path).name}",
        "source_sha256": digest,
        "instance_types": ", ".join(sorted(set(more) - set(answered))),
    }
    if answered:
        record["replaced_by_api_answer"] = ", ".join(answered)
    return record


def _shown(path: Path) -> str:
    """`path` as provenance shows it: relative to the catalog's folder when inside it, so the bytes don't depend on the checkout."""
    try:
        return path.resolve().relative_to(CATALOG_PATH.parent.resolve()).as_posix()
    except ValueError:
        return str(path)


def _key_sorted(value: Any) -> Any:
    """`value` with every mapping's keys in sorted order (lists keep AWS's order)."""
    if isinstance(value, dict):
        return {key: _key_sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_key_sorted(item) for item in value]
    return value


def _stale_message(current: str | None, expected: str, output: Path) -> str:
    """Explain how the file at `output` differs from a fresh generation."""
    command = json.loads(expected)["provenance"]["command"]
    if current is None:
        return f"{output} does not exist. Generate it with: {command}"
    try:
        old = json.loads(current)["instance_types"]
        new = json.loads(expected)["instance_types"]
        changed = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
        detail = "differing instance types: " + (", ".join(changed) or "none (provenance or formatting only)")
    except (ValueError, KeyError, TypeError, AttributeError):
        detail = "it is not valid catalog JSON"
    return f"{output} is out of date ({detail}). Regenerate it with: {command}"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status.

    Source and input problems end in `SystemExit` carrying a one-line message,
    never a traceback.
    """
    parser = argparse.ArgumentParser(
        prog="python -m blueprints.catalog.generate",
        description="Regenerate the instance catalog from DescribeInstanceTypes data.",
    )
    parser.add_argument("--source", default="moto", help='"moto" (default) or a describe-instance-types JSON file')
    parser.add_argument(
        "--add",
        action="append",
        default=[],
        metavar="PATH",
        help='an account\'s describe-instance-types JSON for types the source lacks (repeatable; docs/catalog.md, "Adding an instance type")',
    )
    parser.add_argument("--output", type=Path, default=CATALOG_PATH, help="file to write or check")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from a fresh generation")
    arguments = parser.parse_args(argv)
    try:
        expected = generate(arguments.source, added=tuple(arguments.add))
    except SourceError as error:
        raise SystemExit(f"error: {error}") from None
    output: Path = arguments.output
    if arguments.check:
        # Bytes, not read_text: newline translation would hide CRLF damage.
        current = output.read_bytes().decode("utf-8", "replace") if output.is_file() else None
        if current != expected:
            print(_stale_message(current, expected, output), file=sys.stderr)
            return 1
        print(f"{output} is up to date")
        return 0
    output.write_bytes(expected.encode("utf-8"))
    print(f"wrote {output} ({expected.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
