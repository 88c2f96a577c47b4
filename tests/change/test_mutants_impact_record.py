"""railyard/change/impact_record.py: an `Impact`'s `--json` entry carries its four fields under their own keys, each
impact its own figures (a fresh map per impact, never one shared default)."""

from __future__ import annotations

from railyard.change.impact_record import Impact


def test_an_impacts_json_entry_names_each_field():
    impact = Impact("resized", "pool train", "resized in place: +2 nodes", {"nodes": 2, "accelerators": 16})
    assert impact.as_json() == {
        "kind": "resized",
        "subject": "pool train",
        "summary": "resized in place: +2 nodes",
        "figures": {"nodes": 2, "accelerators": 16},
    }


def test_an_impact_without_figures_has_an_empty_map_of_its_own():
    first, second = Impact("rolled", "pool a", "every node replaced"), Impact("rolled", "pool b", "every node replaced")
    assert first.as_json() == {"kind": "rolled", "subject": "pool a", "summary": "every node replaced", "figures": {}}
    first.figures["nodes"] = 4
    assert second.as_json()["figures"] == {}
