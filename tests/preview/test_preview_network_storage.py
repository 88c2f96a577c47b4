"""Network, placement, cluster and storage resources as registered under mocks."""

from ipaddress import IPv4Network

from railyard.mocked import mock_id

SUBNET = "aws:ec2/subnet:Subnet"
PG = "aws:ec2/placementGroup:PlacementGroup"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"


def test_no_placement_group_for_the_capacity_block_pool(p5):
    assert p5.of_type(PG) == []
    (decision,) = p5.placements
    assert decision.strategy is None and "Capacity Block cr-0a1b2c3d4e5f60718" in decision.reason
    assert "placement" not in p5.named("p5-train-prod-train-use1a-template").inputs


def test_dev_stack_packs_its_on_demand_pool_into_a_cluster_group(dev_stack):
    (group,) = dev_stack.of_type(PG)
    assert group.inputs["strategy"] == "cluster" and group.name == "p5-train-dev-placement-train-use1a"
    template = dev_stack.named("p5-train-dev-train-use1a-template")
    assert template.inputs["placement"] == {"groupName": group.name}  # the mocks echo the name
    assert dev_stack.outputs["placement"][0]["strategy"] == "cluster"


def test_rack_spread_pool_gets_a_partition_group_and_reservations_none(hetero):
    (group,) = hetero.of_type(PG)
    assert (group.name, group.inputs["strategy"], group.inputs["partitionCount"]) == ("hetero-prod-placement-trainium-use2b", "partition", 4)
    assert {d.key: d.strategy for d in hetero.placements} == {
        "h200-use2a": None,
        "trainium-use2b": "partition",
        "serve-use2a": None,
        "serve-use2b": None,
    }


def test_subnets_are_disjoint_inside_the_vpc_and_efa_domains_get_their_own(hetero):
    vpc = IPv4Network(hetero.of_type("aws:ec2/vpc:Vpc")[0].inputs["cidrBlock"])
    cidrs = {s.name: IPv4Network(s.inputs["cidrBlock"]) for s in hetero.of_type(SUBNET)}
    assert all(cidr.subnet_of(vpc) for cidr in cidrs.values())
    values = list(cidrs.values())
    assert not any(a.overlaps(b) for i, a in enumerate(values) for b in values[i + 1 :])
    assert {name.split("network-")[1] for name in cidrs} == {
        "public-us-east-2a",
        "public-us-east-2b",
        "private-us-east-2a",
        "private-us-east-2b",
        "efa-h200-use2a",
        "efa-trainium-use2b",
    }


def test_s3_gateway_endpoint_serves_the_private_route_tables(p5):
    (endpoint,) = p5.of_type("aws:ec2/vpcEndpoint:VpcEndpoint")
    assert (endpoint.inputs["serviceName"], endpoint.inputs["vpcEndpointType"]) == ("com.amazonaws.us-east-1.s3", "Gateway")
    private = {mock_id("aws:ec2/routeTable:RouteTable", f"p5-train-prod-network-private-{zone}") for zone in ("us-east-1a", "us-east-1b")}
    assert set(endpoint.inputs["routeTableIds"]) == private


def test_no_efa_security_group_without_efa(dev_g6e):
    assert [g.name for g in dev_g6e.of_type("aws:ec2/securityGroup:SecurityGroup")] == []


def test_cluster_is_private_encrypted_and_spans_two_zones(p5):
    (cluster,) = p5.of_type("aws:eks/cluster:Cluster")
    vpc = cluster.inputs["vpcConfig"]
    assert (vpc["endpointPrivateAccess"], vpc["endpointPublicAccess"]) == (True, False)
    zones = {s.inputs["availabilityZone"] for s in p5.of_type(SUBNET) if mock_id(SUBNET, s.name) in vpc["subnetIds"]}
    assert zones == {"us-east-1a", "us-east-1b"}
    assert cluster.inputs["encryptionConfig"]["resources"] == ["secrets"]
    assert cluster.inputs["version"] == "1.35" and cluster.inputs["name"] == "p5-train-prod"
    assert p5.of_type("aws:iam/openIdConnectProvider:OpenIdConnectProvider")[0].inputs["clientIdLists"] == ["sts.amazonaws.com"]


def test_fsx_capacity_throughput_and_subnet_as_declared(p5, hetero):
    (fs,) = p5.of_type(FSX)
    assert (fs.inputs["storageCapacity"], fs.inputs["perUnitStorageThroughput"], fs.inputs["deploymentType"]) == (48000, 500, "PERSISTENT_2")
    assert fs.inputs["efaEnabled"] is True and fs.inputs["metadataConfiguration"] == {"mode": "AUTOMATIC"}
    assert fs.inputs["subnetIds"] == mock_id(SUBNET, "p5-train-prod-network-efa-ultra-use1a")
    assert fs.inputs["kmsKeyId"].endswith("p5-train-prod-storage-fsx")
    (plain,) = hetero.of_type(FSX)
    assert (plain.inputs["storageCapacity"], plain.inputs["perUnitStorageThroughput"]) == (24000, 250)
    assert plain.inputs["subnetIds"] == mock_id(SUBNET, "hetero-prod-network-private-us-east-2a") and "efaEnabled" not in plain.inputs


def test_fsx_security_group_opens_lnet_and_all_traffic_to_itself_when_efa(p5):
    group = p5.named("p5-train-prod-storage-lustre-sg")
    ports = {(rule["protocol"], rule["fromPort"], rule["toPort"]) for rule in group.inputs["ingress"]}
    assert ports == {("tcp", 988, 988), ("tcp", 1018, 1023), ("-1", 0, 0)}
    assert all(rule["self"] for rule in group.inputs["ingress"] + group.inputs["egress"])
    client_rules = [
        rule for rule in p5.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule") if rule.inputs.get("referencedSecurityGroupId")
    ]
    assert {(r.inputs["ipProtocol"], r.inputs.get("fromPort")) for r in client_rules} == {("tcp", 988), ("tcp", 1018), ("-1", None)}


def test_data_repository_associations_link_the_buckets(p5):
    links = {r.inputs["fileSystemPath"]: r.inputs for r in p5.of_type("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")}
    assert links["/datasets"]["dataRepositoryPath"] == "s3://p5-train-prod-datasets/tokenized/"
    assert links["/checkpoints"]["s3"]["autoExportPolicy"] == {"events": ["NEW", "CHANGED"]}


def test_buckets_block_public_access(p5, dev_g6e):
    for result in (p5, dev_g6e):
        blocks = result.of_type("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")
        assert len(blocks) == len(result.of_type("aws:s3/bucket:Bucket")) > 0
        for block in blocks:
            assert all(block.inputs[key] is True for key in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets"))


def test_file_system_tags_name_its_client_pools_and_declared_demand(p5, hetero):
    (lustre,) = p5.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    # 64 nodes x 8 GPUs x 40 MB/s of reads outweighs the 2,000 GiB / 600 s checkpoint burst (3,579 MB/s).
    assert lustre.inputs["tags"]["railyard:mounted-by"] == "train"
    assert lustre.inputs["tags"]["railyard:demand-mbps"] == "20480"
    (shared,) = hetero.of_type("aws:fsx/lustreFileSystem:LustreFileSystem")
    assert shared.inputs["tags"]["railyard:mounted-by"] == "h200"
