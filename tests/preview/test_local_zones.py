"""A failure domain in a Local Zone: the GB200 example's pool in the Dallas Local Zone, where AWS sells its blocks.

The zone table (blueprints/catalog/local_zones.yaml) is AWS's "Available Local Zones" rows; the subnet, its route and
the node group go to the Local Zone, the zone group is opted into, and the EKS control plane's subnets stay in
cloud.availability_zones. What EKS doesn't support there (FSx for Lustre beside the pool) is refused.
"""

from __future__ import annotations

from blueprints.catalog.local_zones import load_local_zones
from blueprints.loader import load_text
from railyard.mocked import run_preview
from tests.preview.conftest import AT, ROOT, preview_of
from tests.yaml_text import replace_once
from topology.cluster.local_zones import route_zones, zone_groups
from topology.cluster.subnets import SubnetPlan

EXAMPLE = ROOT / "blueprints" / "examples" / "p6e-gb200-nvl72.yaml"
DOMAIN = "      availability_zone: us-east-1-dfw-2a   # the Dallas Local Zone (use1-dfw2-az1), parent zone use1-az4\n"


def _subnet(result, name: str):
    """The subnet named `name` (its route table association has the same name)."""
    [subnet] = [subnet for subnet in result.of_type("aws:ec2/subnet:Subnet") if subnet.name == name]
    return subnet


def _codes(text: str) -> dict[str, list]:
    loaded = load_text(text, "gb200.yaml")
    found: dict[str, list] = {}
    for finding in loaded.findings:
        found.setdefault(finding.code, []).append(finding)
    return found


def test_the_dallas_local_zone_is_read_from_the_table_with_its_group_and_parent():
    local = load_local_zones().find("use1-dfw2-az1")
    assert local is not None and (local.name, local.group, local.parent_region, local.parent_zone_id) == (
        "us-east-1-dfw-2a",
        "us-east-1-dfw-2",
        "us-east-1",
        "use1-az4",
    )
    assert load_local_zones().canonical("use1-dfw2-az1") == "us-east-1-dfw-2a" and load_local_zones().canonical("use1-az4") == "use1-az4"


def test_the_pools_subnet_and_node_group_are_placed_in_the_local_zone_behind_its_opt_in():
    result = preview_of("p6e-gb200-nvl72")
    subnet = _subnet(result, "gb200-prod-network-efa-efa-dfw")
    assert subnet.inputs["availabilityZone"] == "us-east-1-dfw-2a" and "availabilityZoneId" not in subnet.inputs
    [opt_in] = result.of_type("aws:ec2/availabilityZoneGroup:AvailabilityZoneGroup")
    assert (opt_in.inputs["groupName"], opt_in.inputs["optInStatus"]) == ("us-east-1-dfw-2", "opted-in")
    assert opt_in.urn in subnet.dependencies
    [group] = [group for group in result.of_type("aws:eks/nodeGroup:NodeGroup") if group.name == "gb200-prod-nvl72-dfw"]
    assert group.inputs["subnetIds"] == [subnet.id]


def test_the_local_zone_subnet_routes_through_its_parent_zones_private_table_and_the_cluster_stays_in_the_region():
    result = preview_of("p6e-gb200-nvl72")
    local = _subnet(result, "gb200-prod-network-efa-efa-dfw")
    parent = _subnet(result, "gb200-prod-network-private-use1-az4")
    tables = {
        association.inputs["subnetId"]: association.inputs["routeTableId"]
        for association in result.of_type("aws:ec2/routeTableAssociation:RouteTableAssociation")
    }
    # The subnet ids are the mocks' ids, one per resource: the Local Zone subnet shares its parent zone's private table.
    ids = {resource.name: resource.id for resource in result.of_type("aws:ec2/subnet:Subnet")}
    assert tables[ids[local.name]] == tables[ids[parent.name]]
    [cluster] = result.of_type("aws:eks/cluster:Cluster")
    assert ids[local.name] not in cluster.inputs["vpcConfig"]["subnetIds"]
    assert not [nat for nat in result.of_type("aws:ec2/natGateway:NatGateway") if "dfw" in nat.name]


def test_a_names_form_blueprint_routes_a_local_zone_through_the_first_zone():
    subnets = (
        SubnetPlan("efa-efa-dfw", "efa", "us-east-1-dfw-2a", "10.0.0.0/17"),
        SubnetPlan("private-us-east-1a", "private", "us-east-1a", "10.0.128.0/21"),
    )
    assert zone_groups(subnets) == {"us-east-1-dfw-2a": "us-east-1-dfw-2"}
    assert route_zones(("us-east-1a", "us-east-1b"), subnets) == {"us-east-1-dfw-2a": "us-east-1a"}
    assert route_zones(("use1-az6", "use1-az4"), subnets) == {"us-east-1-dfw-2a": "use1-az4"}


def test_a_local_zone_railyard_doesnt_know_is_refused_with_the_ones_it_does():
    [finding] = _codes(replace_once(EXAMPLE.read_text(), DOMAIN, "      availability_zone: us-east-1-xyz-1a\n"))["cloud.unknown-local-zone"]
    assert finding.is_error and finding.path == ("failure_domains", "zones", 0, "availability_zone")
    assert finding.message.startswith("'us-east-1-xyz-1a' is not a Local Zone railyard knows; the Local Zones of us-east-1 railyard knows are ")
    assert "us-east-1-dfw-2a" in finding.message and "local_zones.yaml" in finding.hint


def test_a_local_zone_of_another_region_is_refused():
    text = replace_once(EXAMPLE.read_text(), "  region: us-east-1\n", "  region: us-east-2\n")
    text = replace_once(text, "  availability_zones: [use1-az4, use1-az6]\n", "  availability_zones: [use2-az1, use2-az2]\n")
    [finding] = _codes(text)["cloud.unknown-local-zone"]
    assert "'us-east-1-dfw-2a' is a Local Zone of us-east-1, not of us-east-2" in finding.message


def test_a_local_zone_written_by_id_fits_a_blueprint_of_either_form():
    text = replace_once(EXAMPLE.read_text(), DOMAIN, "      availability_zone: use1-dfw2-az1\n")
    codes = _codes(text)
    assert not {"cloud.zone-forms-mixed", "cloud.unknown-local-zone", "ref.zone-not-in-cloud"} & set(codes)


def test_the_vpcs_zones_cant_be_a_local_zone():
    text = replace_once(EXAMPLE.read_text(), "  availability_zones: [use1-az4, use1-az6]\n", "  availability_zones: [use1-az4, us-east-1-dfw-2a]\n")
    loaded = load_text(text, "gb200.yaml")
    assert loaded.blueprint is None
    assert any(finding.path[:3] == ("cloud", "availability_zones", 1) for finding in loaded.findings)


def test_fsx_mounted_by_a_pool_in_a_local_zone_is_refused_with_the_fix():
    text = replace_once(EXAMPLE.read_text(), "    fabric: efa\n", "    fabric: efa\n    storage:\n      - tier: fsx\n")
    text += "storage:\n  - kind: fsx_lustre_class\n    name: fsx\n    deployment_type: PERSISTENT_2\n    throughput_mbps_per_tib: 250\n"
    [finding] = _codes(text)["storage.local-zone-fsx"]
    assert finding.is_error and finding.path == ("pools", 0, "storage", 0, "tier") and finding.certificate == {"local_zones": ["us-east-1-dfw-2a"]}
    assert finding.message.startswith("pool 'nvl72' is placed in Local Zone us-east-1-dfw-2a and mounts FSx for Lustre tier 'fsx'")
    assert "managed node groups, self managed nodes, ebs volumes, application load balancers" in finding.message
    assert finding.hint.startswith("drop the mount from pool 'nvl72'")


def test_a_capacity_block_in_another_zone_than_the_pools_local_zone_is_refused_and_the_same_zone_by_id_is_not():
    block = "      reservation_id: cr-0b1c2d3e4f5a60719\n"
    elsewhere = replace_once(EXAMPLE.read_text(), block, block + "      zone: use1-az4\n")
    [finding] = _codes(elsewhere)["capacity.zone-mismatch"]
    assert finding.path == ("pools", 0, "capacity", "zone")
    assert "is in use1-az4, but pool 'nvl72' is placed in ['us-east-1-dfw-2a']" in finding.message
    same = replace_once(EXAMPLE.read_text(), block, block + "      zone: use1-dfw2-az1\n")
    assert "capacity.zone-mismatch" not in _codes(same)


def test_a_pool_off_efa_in_a_local_zone_gets_a_private_subnet_there_routed_through_the_first_zone(tmp_path):
    # dev-g6e moved to us-east-1, its pool's failure domain in the Boston Local Zone (names form: the parent is given by id).
    text = (ROOT / "blueprints" / "examples" / "dev-g6e.yaml").read_text(encoding="utf-8")
    text = replace_once(text, "  region: us-west-2\n", "  region: us-east-1\n")
    text = replace_once(text, "[us-west-2a, us-west-2b]", "[us-east-1a, us-east-1b]")
    text = replace_once(text, "      availability_zone: us-west-2a\n", "      availability_zone: us-east-1-bos-1a\n")
    (tmp_path / "dev-lz.yaml").write_text(text, encoding="utf-8")
    result = run_preview(str(tmp_path / "dev-lz.yaml"), project_dir=ROOT, at=AT)
    local = _subnet(result, "devbox-dev-network-private-us-east-1-bos-1a")
    first = _subnet(result, "devbox-dev-network-private-us-east-1a")
    tables = {item.inputs["subnetId"]: item.inputs["routeTableId"] for item in result.of_type("aws:ec2/routeTableAssociation:RouteTableAssociation")}
    assert local.inputs["availabilityZone"] == "us-east-1-bos-1a" and tables[local.id] == tables[first.id]
    [group] = [group for group in result.of_type("aws:eks/nodeGroup:NodeGroup") if group.name == "devbox-dev-dev-usw2a"]
    assert group.inputs["subnetIds"] == [local.id]
    [opt_in] = result.of_type("aws:ec2/availabilityZoneGroup:AvailabilityZoneGroup")
    assert opt_in.inputs["groupName"] == "us-east-1-bos-1"


def test_the_examples_local_zone_gets_a_note_that_its_gp3_root_volumes_are_unchecked():
    # The features page that lists a Local Zone's EBS volume types was not read (local_zones.yaml), so no row states them.
    [finding] = _codes(EXAMPLE.read_text())["pool.local-zone-volume-unknown"]
    assert (finding.severity, finding.path, finding.certificate) == ("info", ("pools", 0), {"local_zone": "us-east-1-dfw-2a"})
    assert finding.message == (
        "pool 'nvl72' is placed in Local Zone us-east-1-dfw-2a, and every node gets a gp3 root volume; gp3 is offered only in "
        "some Local Zones (awslabs/amazon-eks-ami#1295), and railyard's zone table hasn't read which volume types "
        "us-east-1-dfw-2a offers"
    )
    assert "localzones/features/" in finding.hint and "`ebs_volume_types`" in finding.hint


def _with_dallas(tmp_path, monkeypatch, row_extra: str):
    """The zone table with the Dallas row given `row_extra` (e.g. its volume types), read afresh."""
    from blueprints.catalog import local_zones

    text = local_zones.TABLE.read_text(encoding="utf-8")
    row = "parent_region: us-east-1, parent_zone_id: use1-az4}\n"
    dallas = "  - {name: us-east-1-dfw-2a, id: use1-dfw2-az1, group: us-east-1-dfw-2, " + row
    table = tmp_path / "local_zones.yaml"
    table.write_text(replace_once(text, dallas, dallas[: -len("}\n")] + ", " + row_extra + "}\n"), encoding="utf-8")
    monkeypatch.setattr(local_zones, "TABLE", table)
    local_zones.load_local_zones.cache_clear()
    return local_zones


def test_a_local_zone_whose_recorded_volume_types_lack_gp3_is_refused_with_the_fix(tmp_path, monkeypatch):
    local_zones = _with_dallas(tmp_path, monkeypatch, "ebs_volume_types: [gp2, st1], nat_gateway: false")
    try:
        dallas = local_zones.load_local_zones().find("us-east-1-dfw-2a")
        assert (dallas.ebs_volume_types, dallas.nat_gateway) == (("gp2", "st1"), False)
        codes = _codes(EXAMPLE.read_text())
    finally:
        local_zones.load_local_zones.cache_clear()
    [finding] = codes["pool.local-zone-volume-type"]
    assert finding.is_error and finding.path == ("pools", 0)
    assert finding.certificate == {"local_zone": "us-east-1-dfw-2a", "volume_types": ["gp2", "st1"]}
    assert finding.message == (
        "pool 'nvl72' is placed in Local Zone us-east-1-dfw-2a, which offers EBS volume types gp2, st1 and not gp3, the type of "
        "every node's root volume: its node group can't launch there"
    )
    assert finding.hint == "place pool 'nvl72' in an Availability Zone, or in a Local Zone that offers gp3"
    assert "pool.local-zone-volume-unknown" not in codes


def test_a_local_zone_recorded_with_gp3_gives_neither_finding(tmp_path, monkeypatch):
    local_zones = _with_dallas(tmp_path, monkeypatch, "ebs_volume_types: [gp2, gp3]")
    try:
        codes = _codes(EXAMPLE.read_text())
    finally:
        local_zones.load_local_zones.cache_clear()
    assert not {"pool.local-zone-volume-type", "pool.local-zone-volume-unknown"} & set(codes)


def test_a_pool_in_an_availability_zone_gets_no_volume_type_finding():
    text = replace_once(EXAMPLE.read_text(), DOMAIN, "      availability_zone: use1-az4\n")
    assert load_text(text, "gb200.yaml").blueprint is not None
    assert not {"pool.local-zone-volume-type", "pool.local-zone-volume-unknown"} & set(_codes(text))
