"""The quota table: every code unique and sourced, and AWS's VPC defaults as moto ships them."""

from __future__ import annotations

from moto.servicequotas.resources.default_quotas.vpc import VPC_DEFAULT_QUOTAS

from blueprints.catalog.quotas import load_quotas, vcpu_family


def test_every_quota_has_a_code_a_name_and_a_source():
    quotas = load_quotas()
    assert all(code.startswith("L-") and len(code) == 10 for code in quotas)
    assert all(quota.name and quota.source for quota in quotas.values())


def test_vpc_defaults_are_the_ones_moto_ships():
    moto = {entry["QuotaCode"]: (entry["QuotaName"], int(entry["Value"])) for entry in VPC_DEFAULT_QUOTAS}
    ours = {code: (quota.name, quota.default) for code, quota in load_quotas().items() if quota.service == "vpc"}
    assert ours and ours == {code: moto[code] for code in ours}


def test_each_vcpu_family_has_an_on_demand_and_a_spot_quota():
    pairs = {(quota.family, quota.market) for quota in load_quotas().values() if quota.family}
    assert {
        ("P", "on_demand"),
        ("P", "spot"),
        ("G", "on_demand"),
        ("G", "spot"),
        ("Trn", "on_demand"),
        ("Trn", "spot"),
        ("Inf", "on_demand"),
        ("Inf", "spot"),
        ("Standard", "on_demand"),
    } == pairs
    assert [vcpu_family(name) for name in ("p5en.48xlarge", "g6e.xlarge", "trn2u.48xlarge", "inf2.xlarge", "m7i.xlarge")] == [
        "P",
        "G",
        "Trn",
        "Inf",
        "Standard",
    ]
