"""No input gets a traceback or a hang: mutated examples and hostile YAML all end in exit 0, 1 or 2, with a message.

The property (Hypothesis, derandomized so a failure reproduces) takes a shipped
example, replaces or deletes up to three of its values at random paths with
values of any type and size - a scalar where a list belongs, 10^20 nodes, NaN,
an empty mapping - and runs `railyard validate` on it through the CLI: it must
return 0 (clean), 1 (findings) or 2 (unreadable, with a file:line message),
never raise. A hang fails the test through pytest-timeout's limit (pytest.ini), naming it; validate's speed is
bench/'s to measure, not a bound here that a loaded machine breaks. The named tests below feed the structural
attacks a mutation can't reach: nesting past any real blueprint (which crashed
libyaml's recursive composer), an alias that contains itself, an alias bomb,
an oversized file, bytes that aren't UTF-8.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import io
import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blueprints.loader import load_text
from blueprints.source import MAX_BYTES, MAX_DEPTH
from railyard.cli import main
from tests.properties import examples

ROOT = Path(__file__).resolve().parents[2]
# The fast examples; rail-131k checks 131,072 GPUs per case and adds nothing a mutation of the others doesn't reach.
EXAMPLES = {
    name: yaml.safe_load((ROOT / "blueprints" / "examples" / f"{name}.yaml").read_text())
    for name in ("dev-g6e", "p5-capacity-block", "heterogeneous", "inference-fleet", "insecure", "existing-infrastructure")
}
# No fast example declares quotas; one does here, so mutations reach the section (a 0 once divided by zero).
EXAMPLES["p5-capacity-block"]["quotas"] = {"L-BD136A63": 450, "L-6D54EA21": 30, "L-417A185B": 12288, "L-83CA0A9D": 5}

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["0.0.0.0/0", "us-east-1a", "2026-12-01T00:00:00Z", "p5.48xlarge", "efa", "capacity_block", "auto", "1.35"]),
    st.lists(st.integers(min_value=-5, max_value=5), max_size=3),
    st.dictionaries(st.text(max_size=6), st.integers(min_value=0, max_value=3), max_size=2),
)


def dump(document) -> str:
    """The document as YAML text, through libyaml's emitter (the pure-Python one was a third of each case's time)."""
    return yaml.dump(document, Dumper=yaml.CSafeDumper, allow_unicode=True)


def _paths(data, prefix=()):
    """Every path into the document, parents before children."""
    yield prefix
    children = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, child in children:
        yield from _paths(child, (*prefix, key))


def _apply(document, path, value, delete: bool) -> None:
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


def run_cli(*args: str) -> tuple[int, str]:
    """(exit status, stderr) of one CLI run in this process; any exception propagates and fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, err.getvalue()


# One folder for the process's cases, each written over the last (a folder made and removed per case was a tenth of a
# small example's case).
_CASES = Path(tempfile.mkdtemp(prefix="railyard-fuzz-"))
atexit.register(shutil.rmtree, _CASES, True)


def validate_text(text: str | bytes) -> tuple[int, str]:
    """`railyard validate` of `text` written to a file named blueprint.yaml."""
    path = _CASES / "blueprint.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return run_cli("validate", str(path))


# 3,000 mutations in all, 500 of each example: one property per example, so the suite's workers share them.
@pytest.mark.parametrize("name", sorted(EXAMPLES))
@settings(max_examples=examples(3000 // len(EXAMPLES)), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(st.tuples(st.integers(min_value=0), VALUES, st.booleans()), min_size=1, max_size=3))
def test_a_mutated_example_gets_findings_or_a_message_never_a_traceback(name, edits):
    document = copy.deepcopy(EXAMPLES[name])
    for pick, value, delete in edits:
        paths = [path for path in _paths(document) if path]
        if not paths:
            break
        _apply(document, paths[pick % len(paths)], value, delete)
    status, stderr = validate_text(dump(document))
    assert status in (0, 1, 2)
    assert status != 2 or stderr.strip(), "an unreadable input must say why"


def _refused(text: str | bytes, says: str) -> str:
    status, stderr = validate_text(text)
    assert status == 2 and says in stderr, stderr
    return stderr


BASE = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text()


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1_000_000])
def test_nesting_past_the_bound_is_refused_at_its_line_even_where_libyaml_would_overflow(levels):
    # A million levels overflowed libyaml's C stack (a segfault) before the depth was counted on the event stream.
    stderr = _refused(BASE + "extra: " + "[" * levels + "]" * levels + "\n", f"nested more than {MAX_DEPTH} levels")
    assert f"blueprint.yaml:{BASE.count(chr(10)) + 1}:" in stderr  # the line of `extra:`


def test_block_style_nesting_past_the_bound_is_refused():
    lines = [f"{'  ' * level}k{level}:" for level in range(MAX_DEPTH + 2)] + [f"{'  ' * (MAX_DEPTH + 2)}1"]
    _refused(BASE + "\n".join(lines) + "\n", f"nested more than {MAX_DEPTH} levels")


def test_an_alias_that_contains_itself_is_refused():
    _refused("a: &a [*a]\n", "refers to a mapping or list that contains it")


def test_an_alias_bomb_is_refused_before_it_expands():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    lines += [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(9)]
    _refused("\n".join(lines) + "\n", "more than 250,000 values once its YAML aliases")


def test_a_file_over_the_size_bound_is_refused_without_reading_it():
    _refused(BASE + "#" + "x" * MAX_BYTES + "\n", "a blueprint is limited to 4 MiB")


def test_bytes_that_are_not_utf8_are_refused():
    _refused(b"version: 1\nmetadata: \xff\xfe\n", "can't read")


@pytest.mark.parametrize("field, value", [("capacity_gib", 10**18), ("capacity_gib", 2_147_483_648)])
def test_an_absurd_file_system_size_is_a_finding_not_a_hang(field, value):
    document = copy.deepcopy(EXAMPLES["p5-capacity-block"])
    document["storage"][0][field] = value
    status, _ = validate_text(yaml.safe_dump(document))
    assert status == 1


@pytest.mark.parametrize("code", ["L-BD136A63", "L-6D54EA21", "L-83CA0A9D", "L-417A185B"])
def test_a_zero_quota_is_a_finding_or_a_plan_never_a_traceback(code):
    document = copy.deepcopy(EXAMPLES["p5-capacity-block"])
    document["quotas"][code] = 0
    status, _ = validate_text(yaml.safe_dump(document))
    # The first three are refused (quota.below-minimum); capacity blocks count against no on-demand vCPU quota.
    assert status == (0 if code == "L-417A185B" else 1)


def test_a_cidr_written_as_a_boolean_is_a_finding_not_an_address():
    # `vpc_cidr: true` used to be coerced to 0.0.0.1/32.
    document = copy.deepcopy(EXAMPLES["dev-g6e"])
    document["cloud"]["vpc_cidr"] = True
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "blueprint.yaml"
        path.write_text(yaml.safe_dump(document))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main(["validate", str(path), "--json"])
    assert status == 1
    assert any("written as text" in finding["message"] for finding in json.loads(out.getvalue())["findings"])


@pytest.mark.parametrize("written", ['"2026-12-01T11:30:00Z"', "2026-12-01T11:30:00Z", '"2026-12-01T12:30:00+01:00"'])
def test_a_capacity_block_time_may_be_quoted_and_is_kept_in_utc(written):
    text = (ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml").read_text().replace("start: 2026-12-01T11:30:00Z", f"start: {written}")
    loaded = load_text(text, "p5.yaml")
    assert loaded.ok, [finding.message for finding in loaded.findings]
    assert loaded.blueprint.pools[0].capacity.start == datetime(2026, 12, 1, 11, 30, tzinfo=UTC)


def test_a_capacity_block_time_without_a_zone_is_a_finding_not_a_crash():
    # A bare YAML time has no zone; compared with the planning clock it raised TypeError in validate and preview.
    text = (
        (ROOT / "blueprints" / "examples" / "p5-capacity-block.yaml").read_text().replace("start: 2026-12-01T11:30:00Z", "start: 2026-12-01T11:30:00")
    )
    (finding,) = [finding for finding in load_text(text, "p5.yaml").findings if finding.is_error]
    assert finding.path == ("pools", 0, "capacity", "start") and finding.line == 49
    assert finding.message == "2026-12-01T11:30:00 has no time zone; write it in UTC with a Z, such as 2026-12-01T11:30:00Z"
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "p5.yaml"
        path.write_text(text)
        assert run_cli("preview", str(path))[0] == 1
