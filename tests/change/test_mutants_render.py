"""railyard/change/render.py on a built diff result: the terminal report and the pull-request Markdown in full (impact and
cost rows, ceilings that moved with the unchanged ones counted, cost totals, every changed input with long values cut and
list items counted, the new side's findings and the change's own), and the short forms of a diff with nothing to show,
a blocked one and one not compared."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from blueprints.findings import error, info, warning
from blueprints.source import SourceMap
from railyard.change.before_after import BeforeAfter
from railyard.change.ceilings import Ceiling
from railyard.change.compare import InputChange, ResourceChange
from railyard.change.cost import cost_change
from railyard.change.diff import DiffResult, Side
from railyard.change.findings_change import findings_change
from railyard.change.impact_record import Impact
from railyard.change.render import STILL, change_lines, markdown_report, shown_ceilings, text_report
from railyard.change.replace_table import Effect, ReplaceTable
from topology.cost_report import CostLine, CostReport


def line(key: str, hourly: float) -> CostLine:
    return CostLine(key, f"item {key}", "pool", (), hourly, hourly, "2 nodes")


table = ReplaceTable(MappingProxyType({"aws": {"described": "T"}}), MappingProxyType({}))
long = {"a": "x" * 60}
change = ResourceChange(
    "urn:pulumi:dev::p::aws:eks/nodeGroup:NodeGroup::train-a",
    "aws:eks/nodeGroup:NodeGroup",
    "train-a",
    "update",
    None,
    None,
    [
        InputChange("scalingConfig.desiredSize", 2, 4, Effect("update", "scalingConfig")),
        InputChange("tags", long, {"a": "b|c"}, Effect("update", "tags"), more=2),
        InputChange(
            "launchTemplate.version",
            None,
            None,
            Effect("update", "launchTemplate.version"),
            "urn:pulumi:dev::p::aws:ec2/launchTemplate:LaunchTemplate::train-lt",
            "recomputed",
        ),
    ],
)
created = ResourceChange("urn:x", "aws:s3/bucket:Bucket", "logs", "create", None, None, [])
result = DiffResult(
    Side("old.yaml", "old.yaml", None, "."),
    Side("new.yaml", "new.yaml", None, "."),
    table,
    changes=[change, created],
    impacts=[Impact("resized", "pool train", "resized in place: +2 nodes, +16 accelerators", {})],
    findings=[warning("change.held-template", ("pools", 0), "held | group", "hint")],
    source_maps=(SourceMap(), SourceMap()),
    cost=cost_change(CostReport("us-east-1", 730, (line("pool:train", 10.0),)), CostReport("us-east-1", 730, (line("pool:train", 20.0),))),
    ceilings=(
        Ceiling("total", "max_nodes", "all pools: max nodes", "nodes", BeforeAfter(4, 4)),
        Ceiling("pool", "pool:train:max_nodes", "pool train: max nodes", "nodes", BeforeAfter(4, 8)),
        Ceiling("pool", "pool:infer:max_nodes", "pool infer: max nodes", "nodes", BeforeAfter(2, 2)),
        Ceiling("service-quota", "quota:L-1", "Running P instances", "vCPUs", BeforeAfter(192, 384), 300, "OVER"),
    ),
    new_side=findings_change(
        [error("old.gone", (), "gone")], [warning("pool.new", ("pools", 0), "now wrong", "fix").at("new.yaml", 3, 5), info("n.i", (), "note")]
    ),
)

TEXT = (
    "railyard diff: old.yaml -> new.yaml\n"
    "replace table: T\n"
    "\n"
    "What it does to the running cluster\n"
    "subject           impact\n"
    "----------------  --------------------------------------------------------------------\n"
    "pool train        resized in place: +2 nodes, +16 accelerators\n"
    "cost: pool:train  +10.00 USD/h (+7,300 USD a month of 730 h): item pool:train, changed\n"
    "\n"
    "Ceilings (every pool at its largest)\n"
    "ceiling                before  after  change  status\n"
    "---------------------  ------  -----  ------  ------\n"
    "all pools: max nodes        4      4      +0\n"
    "pool train: max nodes       4      8      +4\n"
    "Running P instances       192    384    +192  OVER\n"
    "1 other ceiling(s) unchanged (`--json` lists every one)\n"
    "\n"
    "Cost totals (USD, priced lines)\n"
    "total                                   before    after      change\n"
    "--------------------------------------  --------  ---------  ---------\n"
    "USD per hour as planned                    10.00      20.00     +10.00\n"
    "USD a month as planned (730 h)          7,300.00  14,600.00  +7,300.00\n"
    "USD upfront for Capacity Blocks             0.00       0.00      +0.00\n"
    "lines unpriced, left out of the totals         0          0         +0\n"
    "\n"
    "Resources: 1 create, 1 update\n"
    "action  type                         name     inputs\n"
    "------  ---------------------------  -------  ------------------------------------------------------"
    "-------------------------------------------------------------------\n"
    "update  aws:eks/nodeGroup:NodeGroup  train-a  scalingConfig.desiredSize: 2 -> 4 (update)\n"
    '                                              tags: {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'
    ' -> {"a": "b|c"} (update; 2 more value(s) at this path changed too)\n'
    "                                              launchTemplate.version: follows train-lt (update)\n"
    "create  aws:s3/bucket:Bucket         logs\n"
    "\n"
    "Findings: the new side: 0 error(s), 1 warning(s), 1 note(s); against the old side: new 1 warning(s),"
    " 1 note(s); changed none; resolved 1 error(s)\n"
    "status    severity  code      where        message\n"
    "--------  --------  --------  -----------  ---------\n"
    "new       warning   pool.new  new.yaml:3   now wrong\n"
    "resolved  error     old.gone  <blueprint>  gone\n"
    "\n"
    "new.yaml:3:5: warn [pool.new] pools[0]: now wrong\n"
    "    hint: fix\n"
    "\n"
    "Findings of the change itself\n"
    "severity  code                  path      where  message\n"
    "--------  --------------------  --------  -----  ------------\n"
    "warning   change.held-template  pools[0]         held | group\n"
    "\n"
    "<blueprint>: warn [change.held-template] pools[0]: held | group\n"
    "    hint: hint\n"
    "\n"
    "0 error(s), 1 warning(s), 0 note(s)"
)

MARKDOWN = (
    "### railyard diff: `old.yaml` → `new.yaml`: ok\n"
    "\n"
    "1 create, 1 update. Findings: the new side: 0 error(s), 1 warning(s), 1 note(s); against the old sid"
    "e: new 1 warning(s), 1 note(s); changed none; resolved 1 error(s). The change itself: 0 error(s), 1 "
    "warning(s). Replace table: T.\n"
    "\n"
    "**What it does to the running cluster**\n"
    "\n"
    "| subject | impact |\n"
    "| --- | --- |\n"
    "| pool train | resized in place: +2 nodes, +16 accelerators |\n"
    "| cost: pool:train | +10.00 USD/h (+7,300 USD a month of 730 h): item pool:train, changed |\n"
    "\n"
    "**Ceilings** (every pool at its largest)\n"
    "\n"
    "| ceiling | before | after | change | status |\n"
    "| --- | --- | --- | --- | --- |\n"
    "| all pools: max nodes | 4 | 4 | +0 |  |\n"
    "| pool train: max nodes | 4 | 8 | +4 |  |\n"
    "| Running P instances | 192 | 384 | +192 | OVER |\n"
    "\n"
    "**Cost totals** (USD, priced lines)\n"
    "\n"
    "| total | before | after | change |\n"
    "| --- | --- | --- | --- |\n"
    "| USD per hour as planned | 10.00 | 20.00 | +10.00 |\n"
    "| USD a month as planned (730 h) | 7,300.00 | 14,600.00 | +7,300.00 |\n"
    "| USD upfront for Capacity Blocks | 0.00 | 0.00 | +0.00 |\n"
    "| lines unpriced, left out of the totals | 0 | 0 | +0 |\n"
    "\n"
    "**Findings of the new side**\n"
    "\n"
    "| status | severity | code | where | message |\n"
    "| --- | --- | --- | --- | --- |\n"
    "| new | warning | pool.new | new.yaml:3 | now wrong |\n"
    "| resolved | error | old.gone | <blueprint> | gone |\n"
    "\n"
    "**Findings of the change itself**\n"
    "\n"
    "| severity | code | where | message |\n"
    "| --- | --- | --- | --- |\n"
    "| warning | `change.held-template` | pools[0] | held \\| group |\n"
    "\n"
    "<details><summary>Resource changes</summary>\n"
    "\n"
    "| action | type | name | inputs |\n"
    "| --- | --- | --- | --- |\n"
    "| update | `aws:eks/nodeGroup:NodeGroup` | train-a | scalingConfig.desiredSize: 2 -> 4 (update); tag"
    's: {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... -> {"a": "b\\|c"} (update; 2 more value(s) at thi'
    "s path changed too); launchTemplate.version: follows train-lt (update) |\n"
    "| create | `aws:s3/bucket:Bucket` | logs |  |\n"
    "\n"
    "</details>\n"
)


def test_the_terminal_report_in_full():
    assert text_report(result) == TEXT


def test_the_pull_request_markdown_in_full():
    assert markdown_report(result) == MARKDOWN


def test_a_changed_input_line_cuts_long_values_at_48_characters_and_counts_the_rest():
    assert change_lines(change) == [
        "scalingConfig.desiredSize: 2 -> 4 (update)",
        'tags: {"a": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... -> {"a": "b|c"} (update; 2 more value(s) at this path changed too)',
        "launchTemplate.version: follows train-lt (update)",
    ]
    exact = InputChange("x", "y" * 48, "z" * 49, Effect("update", "x"))
    assert change_lines(replace(change, inputs=[exact])) == [f"x: {'y' * 48} -> {'z' * 45}... (update)"]


def test_the_ceilings_listed_are_the_totals_and_those_that_moved():
    shown, hidden = shown_ceilings(result)
    assert [ceiling.key for ceiling in shown] == ["max_nodes", "pool:train:max_nodes", "quota:L-1"]
    assert hidden == 1


def test_a_diff_that_changes_nothing_says_so_and_lists_no_empty_section():
    still = replace(result, changes=[], impacts=[], findings=[], cost=None, ceilings=(), new_side=None)
    assert text_report(still) == (
        f"railyard diff: old.yaml -> new.yaml\nreplace table: T\n\nWhat it does to the running cluster\n  {STILL}\n\nResources: no resource changes"
    )
    assert markdown_report(still) == (
        "### railyard diff: `old.yaml` → `new.yaml`: ok\n\nno resource changes. The change itself: 0 error(s), 0 warning(s). "
        f"Replace table: T.\n\n**What it does to the running cluster**: {STILL}.\n\n"
    )


def test_an_error_of_the_change_blocks_it():
    blocked = replace(result, findings=[error("change.state-lost", (), "lost")])
    assert markdown_report(blocked).startswith("### railyard diff: `old.yaml` → `new.yaml`: blocked\n")


def test_a_diff_not_compared_shows_the_invalid_sides_findings_only():
    invalid = replace(result, compared=False, changes=[], impacts=[], cost=None, ceilings=(), findings=[error("schema.x", ("pools",), "bad")])
    assert text_report(invalid) == (
        "railyard diff: old.yaml -> new.yaml\nreplace table: T\n\nnot compared: a side is invalid\n"
        "severity  code      path   where  message\n--------  --------  -----  -----  -------\n"
        "error     schema.x  pools         bad\n\n<blueprint>: error [schema.x] pools: bad\n\n1 error(s), 0 warning(s), 0 note(s)"
    )
    assert markdown_report(invalid) == (
        "### railyard diff: `old.yaml` → `new.yaml`: blocked\n\nNot compared: a side is invalid (1 error(s), 0 warning(s)). "
        "Replace table: T.\n\n**Findings**\n\n| severity | code | where | message |\n| --- | --- | --- | --- |\n"
        "| error | `schema.x` | pools | bad |\n\n"
    )
    no_maps = replace(invalid, source_maps=())
    assert text_report(no_maps) == text_report(invalid)


def test_a_changed_maps_value_is_written_with_its_keys_sorted():
    unsorted = InputChange("tags", {"team": "ml", "env": "dev"}, None, Effect("update", "tags"))
    assert change_lines(replace(change, inputs=[unsorted])) == ['tags: {"env": "dev", "team": "ml"} -> null (update)']


# Two sides' maps of the same file name: the report quotes the new side's line (the last map), never the old one's.
OLD_MAP = SourceMap(lines={"new.yaml": ["old 1", "old 2", "old 3"]})
NEW_MAP = SourceMap(lines={"new.yaml": ["kubernetes:", "pools:", "  - name: train"]})


def test_a_side_not_compared_quotes_its_finding_from_the_new_sides_map():
    bad = error("schema.x", ("pools", 0), "bad").at("new.yaml", 3, 5)
    invalid = replace(result, compared=False, changes=[], impacts=[], cost=None, ceilings=(), findings=[bad], source_maps=(OLD_MAP, NEW_MAP))
    report = text_report(invalid)
    assert "new.yaml:3:5: error [schema.x] pools[0]: bad\n       3 |   - name: train\n         |     ^" in report
    assert "old 3" not in report


def test_the_new_sides_and_the_changes_own_findings_quote_the_new_sides_map():
    own = warning("change.held-template", ("pools", 0), "held", "hint").at("new.yaml", 2, 1)
    compared = replace(result, findings=[own], source_maps=(OLD_MAP, NEW_MAP))
    report = text_report(compared)
    assert "new.yaml:3:5: warn [pool.new] pools[0]: now wrong\n       3 |   - name: train\n         |     ^\n    hint: fix" in report
    assert "new.yaml:2:1: warn [change.held-template] pools[0]: held\n       2 | pools:\n         | ^\n    hint: hint" in report
    assert "old 2" not in report and "old 3" not in report
    # Without maps the same report has no quoted line.
    bare = text_report(replace(compared, source_maps=()))
    assert "new.yaml:3:5: warn [pool.new] pools[0]: now wrong\n    hint: fix" in bare
    assert " | pools:" not in bare


def test_a_markdown_cell_keeps_to_one_line():
    multiline = replace(result, findings=[warning("change.x", (), "first line\nsecond line")])
    assert "| warning | `change.x` | <blueprint> | first line second line |" in markdown_report(multiline)
