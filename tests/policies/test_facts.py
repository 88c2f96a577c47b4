"""The facts the pack carries equal their source of truth: railyard's catalog and node-label contract."""

from __future__ import annotations

from blueprints.catalog import load_catalog
from policies import facts
from railyard import pack_facts
from topology.cluster.labels import EFA_LABEL, POOL_LABEL, ROLE_LABEL


def test_the_committed_facts_file_is_current():
    assert pack_facts.main(["--check"]) == 0


def test_check_reports_a_stale_file(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "railyard_facts.json"
    stale.write_text(pack_facts.render().replace('"railyard.dev/pool"', '"railyard.dev/pool-old"'), encoding="utf-8")
    monkeypatch.setattr(pack_facts, "OUTPUT", stale)
    assert pack_facts.main(["--check"]) == 1
    assert "python -m railyard.pack_facts" in capsys.readouterr().err


def test_the_pack_sees_every_catalog_type_as_the_catalog_does():
    catalog = load_catalog()
    carried = facts.instance_types()
    assert sorted(carried) == catalog.names()
    for name in catalog.names():
        spec, seen = catalog.get(name), carried[name]
        assert (seen.ami_type, seen.efa_supported, seen.max_efa_interfaces, seen.accelerator_count) == (
            spec.ami_type,
            spec.efa_supported,
            spec.max_efa_interfaces,
            spec.accelerator_count,
        )
        assert [(card.index, card.supports_efa, card.max_interfaces) for card in seen.network_cards] == [
            (card.index, card.supports_efa, card.max_interfaces) for card in spec.network_cards
        ]
        assert (seen.accelerator.model if seen.accelerator else None) == (spec.accelerator.model if spec.accelerator else None)


def test_the_pack_selects_on_the_labels_railyard_sets():
    assert (facts.POOL_LABEL, facts.ROLE_LABEL, facts.EFA_LABEL) == (POOL_LABEL, ROLE_LABEL, EFA_LABEL)
