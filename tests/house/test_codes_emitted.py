"""Every code `railyard rules` lists is emitted by a test that asserts it, or is listed as one no input can reach.

A static scan of the tests' source (no test is run here): a code counts when it appears, as a string literal, where a
test states what it expects, which the house's tests do in six ways:

- in an `assert` statement (`assert finding.code == "fsx.version"`, `assert codes == {"SEC006"}`);
- compared with a `.code` or a `["code"]` (`[f for f in findings if f.code == "compile.plan"]`, which the test then unpacks or
  asserts);
- in an assignment that unpacks exactly one value (`(finding,) = only(findings, "k8s.version-skew")`);
- in an assignment to a name the same test then asserts on (`finding = _rule(design, "placement.tor-needs-racks")`);
- in a call to a helper named for asserting or expecting, or in `pytest.mark.parametrize` / `pytest.param`;
- in a module's table of cases (a module-level list, tuple, set or dict, or a sum of them, that a parametrized test
  asserts row by row).

A literal also counts for the code it holds as railyard prints a finding (`"... [needs.base] base: ..."` in an
asserted line, or a note `"plan.duration-rounded: ..."`).

Tests that only list or explain codes (`railyard rules`, `railyard explain`, the house's own) do not count: they
show a code exists, not that an input raises it. `unreachable_codes.yaml` beside this file names each code no input
can reach, with the reason; a code there must be in `railyard rules` and must not also be asserted (then it is
reachable after all, and the line goes).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import yaml

from policies.registry import RULES as POLICY_RULES
from railyard.checks import every_check

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = Path(__file__).with_name("unreachable_codes.yaml")
# Tests that list or explain codes rather than raise them.
LISTING = {"tests/blueprints/test_rules_command.py", "tests/blueprints/test_explain_command.py"}
HELPER_WORDS = ("assert", "expect")


def _literals(node: ast.AST) -> set[str]:
    return {child.value for child in ast.walk(node) if isinstance(child, ast.Constant) and isinstance(child.value, str)}


def _is_code(operand: ast.AST) -> bool:
    """`x.code`, `code`, or `x["code"]` (a finding in `--json`)."""
    if isinstance(operand, ast.Subscript):
        return isinstance(operand.slice, ast.Constant) and operand.slice.value == "code"
    return (isinstance(operand, ast.Attribute) and operand.attr == "code") or (isinstance(operand, ast.Name) and operand.id == "code")


def _compares_a_code(node: ast.Compare) -> bool:
    return any(_is_code(operand) for operand in [node.left, *node.comparators])


def _call_name(node: ast.Call) -> str:
    return getattr(node.func, "attr", getattr(node.func, "id", "")).lower()


def _asserted_names(function: ast.AST) -> set[str]:
    return {child.id for node in ast.walk(function) if isinstance(node, ast.Assert) for child in ast.walk(node) if isinstance(child, ast.Name)}


def _stated(node: ast.AST, asserted: set[str]) -> bool:
    """Whether a node is one of the places a test states what it expects (the module docstring's list)."""
    if isinstance(node, ast.Assert) or (isinstance(node, ast.Compare) and _compares_a_code(node)):
        return True
    if isinstance(node, ast.Call):
        name = _call_name(node)
        return any(word in name for word in HELPER_WORDS) or name in ("parametrize", "param")
    if isinstance(node, ast.Assign):
        targets = node.targets
        unpacks_one = any(isinstance(t, ast.Tuple | ast.List) and len(t.elts) == 1 for t in targets)
        named = len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id in asserted and isinstance(node.value, ast.Call)
        return unpacks_one or named
    return False


def _functions(tree: ast.Module) -> Iterator[ast.AST]:
    yield from (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def stated_literals(source: str) -> set[str]:
    """The string literals a test module states as expectations."""
    tree = ast.parse(source)
    found: set[str] = set()
    for node in tree.body:  # tables of cases
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None and not isinstance(node.value, ast.Constant):
            found |= _literals(node.value)
    for function in _functions(tree):
        asserted = _asserted_names(function)
        found |= {literal for node in ast.walk(function) if _stated(node, asserted) for literal in _literals(node)}
    for node in ast.walk(tree):  # decorators and module-level asserts
        if isinstance(node, ast.Call) and _call_name(node) in ("parametrize", "param"):
            found |= _literals(node)
    return found


@functools.cache
def asserted_codes() -> dict[str, list[str]]:
    """Each literal the tests (and the tables of cases beside them) state as an expectation, with the files that state it."""
    where: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative in LISTING or relative.startswith("tests/house/"):
            continue
        for literal in stated_literals(path.read_text(encoding="utf-8")):
            where.setdefault(literal, []).append(relative)
    return where


def _printed(code: str, literals: dict[str, list[str]]) -> bool:
    """Whether a stated literal holds the code as railyard prints a finding: `[code]` in a line, or `code: message` in a note."""
    return any(f"[{code}]" in literal or literal.startswith(f"{code}: ") for literal in literals)


def listed_codes() -> set[str]:
    """Every code `railyard rules` lists: the finding codes of each stage and the policy pack's ids."""
    return {check.code for check in every_check()} | {rule.id for rule in POLICY_RULES}


def unreachable() -> dict[str, str]:
    """The codes no input can reach, each with the reason."""
    return yaml.safe_load(UNREACHABLE.read_text(encoding="utf-8")) or {}


def test_every_listed_code_is_asserted_by_a_test_or_listed_as_unreachable():
    asserted = asserted_codes()
    neither = sorted(code for code in listed_codes() if code not in asserted and not _printed(code, asserted) and code not in unreachable())
    assert not neither, (
        f"no test asserts these codes: {', '.join(neither)}. Add a test that gives an input raising each and asserts its code, "
        f"path and message, or, if no input can reach one, list it with the reason in {UNREACHABLE.relative_to(ROOT)}"
    )


def test_every_unreachable_code_exists_has_a_reason_and_is_asserted_by_no_test():
    asserted = asserted_codes()
    listed = listed_codes()
    for code, reason in unreachable().items():
        assert code in listed, f"{code} is not a code railyard lists any more: remove it from {UNREACHABLE.name}"
        assert isinstance(reason, str) and len(reason.split()) >= 5, f"{code}: say why no input reaches it"
        assert code not in asserted, f"{code} is asserted by {asserted[code]}: it is reachable, remove it from {UNREACHABLE.name}"


def test_the_scan_counts_the_ways_tests_state_a_code_and_nothing_else():
    source = """
CASES = [("a-table", "table.code")]


def test_it(findings):
    assert findings[0].code == "assert.code"
    chosen = [f for f in findings if f.code == "compare.code"]
    refused = [one for one in document["rejected"] if one["code"] == "json.code"]
    (one,) = select(findings, "unpacked.code")
    finding = pick(findings, "named.code")
    assert finding.path == ()
    other = pick(findings, "unasserted.code")
    assert_finding(findings, "helper.code")
    run(findings, "input.code")
"""
    stated = stated_literals(source)
    assert {"table.code", "assert.code", "compare.code", "json.code", "unpacked.code", "named.code", "helper.code"} <= stated
    assert "unasserted.code" not in stated and "input.code" not in stated


def test_a_printed_finding_counts_for_its_code_and_for_no_code_it_merely_begins():
    printed = {"bp.yaml:13:3: error [needs.base] base: not found": [], "plan.duration-rounded: 15 days is not a duration": []}
    assert _printed("needs.base", printed) and _printed("plan.duration-rounded", printed)
    assert not _printed("needs.bas", printed) and not _printed("plan.duration", printed)
