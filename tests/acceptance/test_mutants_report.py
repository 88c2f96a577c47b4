"""A node's report (acceptance/report.py) as a person and the node's annotation read it, where mutation testing found
it unheld: the text with a PASS, a FAIL and a SKIP line and the verdict; an empty report rejected; the JSON sorted and
indented; and a command's output quoted in a few words (first non-empty line, cut at 120 characters)."""

from __future__ import annotations

import json

from acceptance.report import Check, Checks, Report, printed

PASSED = Check("gpu.count", True, "8 GPUs", "8 attached, 8 listed", "nvidia-smi -q -x (nvidia-smi-q.xml)")
FAILED = Check("efa.devices", False, "32 EFA devices (sysfs, driver efa)", "31 EFA devices", "python3 -m acceptance rdma-devices (rdma-devices.txt)")


def test_the_text_has_one_line_per_check_then_the_skips_sorted_then_the_verdict_naming_the_failures():
    report = Report((PASSED, FAILED), {"z.last": "why z", "a.first": "why a"})
    assert report.as_text().splitlines() == [
        "PASS  gpu.count: expected 8 GPUs; saw 8 attached, 8 listed  [nvidia-smi -q -x (nvidia-smi-q.xml)]",
        "FAIL  efa.devices: expected 32 EFA devices (sysfs, driver efa); saw 31 EFA devices  [python3 -m acceptance rdma-devices (rdma-devices.txt)]",
        "SKIP  a.first: why a",
        "SKIP  z.last: why z",
        "REJECTED (1 failed: efa.devices)",
    ]
    assert Report((PASSED,)).as_text().splitlines()[-1] == "ACCEPTED"


def test_a_report_with_no_check_accepts_nothing_and_says_no_check_ran():
    assert Report(()).passed is False
    assert Report(()).as_text() == "REJECTED (0 failed: no check ran)"


def test_the_json_is_sorted_indented_and_carries_every_check_and_skip():
    text = Report((PASSED, FAILED), {"fabric.network-bound": "why"}).as_json()
    assert text.splitlines()[:3] == ["{", '  "checks": [', "    {"]
    assert json.loads(text) == {
        "passed": False,
        "failed": ["efa.devices"],
        "checks": [
            {"name": "gpu.count", "passed": True, "expected": "8 GPUs", "observed": "8 attached, 8 listed", "source": PASSED.source},
            {"name": "efa.devices", "passed": False, "expected": FAILED.expected, "observed": "31 EFA devices", "source": FAILED.source},
        ],
        "skipped": {"fabric.network-bound": "why"},
    }


def test_a_commands_output_is_quoted_by_its_first_non_empty_line_cut_at_120_characters():
    assert printed("\n   \n  first line  \nsecond\n") == "'first line'"
    assert printed("x" * 121) == repr("x" * 120)
    assert printed("x" * 120) == repr("x" * 120)
    assert printed(" \n\n") == "nothing"


def test_checks_collected_from_one_source_carry_it_and_a_skip_keeps_its_reason():
    checks = Checks(source="dmesg (dmesg.txt)")
    checks.add("gpu.xid", True, "no Xid", "none")
    checks.skip("gpu.fabric", "not in an NVLink domain")
    assert checks.made == [Check("gpu.xid", True, "no Xid", "none", "dmesg (dmesg.txt)")]
    assert checks.skipped == {"gpu.fabric": "not in an NVLink domain"}


def test_the_verdict_names_every_failed_check_comma_separated():
    xid = Check("gpu.xid", False, "no Xid", "Xid 79", "dmesg (dmesg.txt)")
    assert Report((FAILED, PASSED, xid)).as_text().splitlines()[-1] == "REJECTED (2 failed: efa.devices, gpu.xid)"
