"""Generate `policies/data/api_constraints.json` from its source table and botocore's service models.

    python -m policies.generate_constraints            # rewrite the JSON
    python -m policies.generate_constraints --check    # exit 1 when the JSON is stale

`api_constraints.source.yaml` maps Pulumi resource inputs to the API members
they become. For an entry naming a botocore member, the enum, length bounds,
numeric range and pattern are copied from the service model botocore ships
(the same model AWS's SDKs validate against), so a botocore bump that changes
a rule changes the JSON and `--check` (run by the tests) says so. Entries
stated by hand keep their `source`. Only this generator needs botocore; the
policy pack reads the JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

DATA = Path(__file__).resolve().parent / "data"
SOURCE = DATA / "api_constraints.source.yaml"
TARGET = DATA / "api_constraints.json"
HAND_KEYS = ("enum", "min_length", "max_length", "pattern", "not_patterns", "min", "max", "max_items", "forbidden_prefixes", "autoname_max_length")


def python_pattern(pattern: str) -> str:
    """A botocore pattern as a Python regex matched against the whole value (anchors dropped)."""
    body = pattern.removeprefix("^").removesuffix("$")
    # Java's Unicode classes appear only inside character classes in these models; `re` has no
    # `\p{..}`, so they are spelt as ranges: letters (Latin and everything above U+00C0), digits, spaces.
    body = body.replace(r"\p{L}", "a-zA-Z\u00c0-\uffff").replace(r"\p{N}", "0-9").replace(r"\p{Z}", " \u00a0\u2000-\u200a\u3000")
    # Java spells the supplementary planes as a UTF-16 surrogate-pair range; Python matches code points.
    body = body.replace(r"\uD800\uDC00-\uDBFF\uDFFF", r"\U00010000-\U0010FFFF")
    re.compile(body)
    return body


def _shape(models: dict, service: str, operation: str, member_path: str) -> tuple[dict, str]:
    """The botocore shape at `member_path` of an operation's input, and its name."""
    model = models.setdefault(service, _load_model(service))
    shapes = model["shapes"]
    name = model["operations"][operation]["input"]["shape"]
    for step in member_path.split("."):
        shape = shapes[name]
        if step == "[]":
            name = shape["member"]["shape"]
        elif step in ("{key}", "{value}"):
            name = shape[step[1:-1]]["shape"]
        else:
            name = shape["members"][step]["shape"]
    return shapes[name], name


def _load_model(service: str) -> dict:
    from botocore.loaders import Loader

    return Loader().load_service_model(service, "service-2")


def resolve(entry: dict, models: dict) -> dict:
    """One source entry as a JSON constraint: botocore's rules for a member, or the hand rules as written."""
    out = {"type": entry["type"]}
    if "path" in entry:
        out["path"] = entry["path"]
    if "botocore" in entry:
        service, operation, member = entry["botocore"].split(" ", 2)
        shape, shape_name = _shape(models, service, operation, member)
        if "enum" in shape:
            out["enum"] = list(shape["enum"])
        if shape["type"] == "string":
            if "min" in shape and shape["min"] > 0:
                out["min_length"] = shape["min"]
            if "max" in shape:
                out["max_length"] = shape["max"]
            if "pattern" in shape:
                out["pattern"] = python_pattern(shape["pattern"])
        elif shape["type"] in ("integer", "long"):
            for bound in ("min", "max"):
                if bound in shape:
                    out[bound] = shape[bound]
        elif shape["type"] in ("list", "map") and "max" in shape:
            out["max_items"] = shape["max"]
        if not set(out) - {"type", "path"}:
            raise SystemExit(f"{entry['botocore']}: botocore states no constraint for {shape_name}; write the rule by hand")
        out["source"] = f"botocore {service} {operation} {member} (shape {shape_name})"
        return out
    rules = {key: entry[key] for key in HAND_KEYS if key in entry}
    if not rules or "source" not in entry:
        raise SystemExit(f"{entry}: a hand entry needs at least one rule and a source")
    for key in ("pattern",):
        if key in rules:
            re.compile(rules[key])
    out.update(rules)
    out["source"] = entry["source"]
    return out


def generate() -> str:
    """The JSON document, as text (keys sorted, so it regenerates byte-identically)."""
    import botocore

    table = yaml.safe_load(SOURCE.read_text())
    models: dict = {}
    constraints = [resolve(entry, models) for entry in table["constraints"]]
    document = {
        "generated_by": "python -m policies.generate_constraints",
        "botocore_version": botocore.__version__,
        "constraints": constraints,
    }
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or, with --check, compare) the generated constraint table."""
    parser = argparse.ArgumentParser(prog="python -m policies.generate_constraints", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when api_constraints.json is not what the source gives")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = TARGET.read_text() if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is stale: run python -m policies.generate_constraints", file=sys.stderr)
            return 1
        print(f"{TARGET} is up to date")
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET} ({len(json.loads(text)['constraints'])} constraints)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
