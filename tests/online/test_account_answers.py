"""`validate --online`: offerings, quotas and taken names, as moto's account answers them."""

from __future__ import annotations

from railyard.online import validate_online
from railyard.pipeline import validate
from tests.online.conftest import DURING, P5, added, checked, variant
from tests.online.moto_account import answer_with
from tests.yaml_text import line_of

# The p5 example moved off its Capacity Block to p5en.48xlarge on demand in us-east-1b, which moto's offering data (AWS's dump)
# lists only in us-east-1a and us-east-1c; its fabric set to p5en's 16 x 200 Gbps so it validates offline.
TEXT = P5.read_text()
P5EN_IN_B = (
    (TEXT[TEXT.index("    capacity:\n") : TEXT.index("    placement:")], ""),
    ("availability_zone: us-east-1a", "availability_zone: us-east-1b"),
    ("    instance_type: p5.48xlarge\n", "    instance_type: p5en.48xlarge\n"),
    ("nics_per_accelerator: 4", "nics_per_accelerator: 2"),
    ("link_gbps: 100", "link_gbps: 200"),
)


def test_the_p5_example_against_an_account_that_holds_its_block_and_quotas_gains_no_finding(p5_account):
    offline, online = checked(p5_account)
    assert added(offline, online) == []
    assert online.online.checks == ["reservations", "offerings", "quotas", "names"]
    assert {fact.code: (fact.value, fact.applied) for fact in online.online.quotas}["L-1216C47A"] == (512, True)
    assert {fact.code: (fact.value, fact.applied) for fact in online.online.quotas}["L-DF5E4CA3"] == (5000, False)


def test_an_instance_type_the_zone_does_not_offer_is_an_error_naming_the_zones_that_do(us_east_1, tmp_path):
    path = variant(tmp_path, P5, *P5EN_IN_B)
    offline, online = checked(us_east_1, path)
    assert offline.ok
    [finding] = [f for f in online.findings if f.code == "online.type-not-offered"]
    assert (finding.severity, finding.path_text) == ("error", "pools[0].instance_type")
    assert "p5en.48xlarge is not offered in us-east-1b" in finding.message and "(offered in us-east-1a, us-east-1c)" in finding.message
    assert finding.line == line_of(path.read_text(), "    instance_type: p5en.48xlarge")


def test_a_need_over_the_accounts_applied_quota_is_an_error_with_the_increase_request(p5_account):
    p5_account.apply_quota("eks", "L-BD136A63", 32)
    offline, online = checked(p5_account)
    assert added(offline, online) == [("online.quota-short", "error", "pools[0].nodes")]
    [finding] = [f for f in online.findings if f.code == "online.quota-short"]
    assert "needs 64" in finding.message and "the account has 32" in finding.message
    assert finding.hint.endswith("--service-code eks --quota-code L-BD136A63 --desired-value 64")


def test_a_quota_never_applied_is_read_from_aws_defaults_and_held_to_them(p5_account):
    p5_account.default_quota("eks", "L-BD136A63", 50)
    offline, online = checked(p5_account)
    [finding] = [f for f in online.findings if f.code == "online.quota-short"]
    assert "has AWS's default of 50 (no increase applied)" in finding.message


def test_a_declared_quota_the_account_does_not_have_is_a_warning_at_the_declaration(p5_account, tmp_path):
    path = variant(tmp_path, P5, ("version: 1\n", "version: 1\nquotas:\n  L-1216C47A: 1024\n"))
    offline, online = checked(p5_account, path)
    assert added(offline, online) == [("online.quota-declared-differs", "warning", "quotas.L-1216C47A")]
    [finding] = [f for f in online.findings if f.code == "online.quota-declared-differs"]
    assert finding.hint == "declare what the account has: quotas: {L-1216C47A: 512}"
    assert finding.line == line_of(path.read_text(), "L-1216C47A: 1024")


def test_a_cluster_of_the_same_name_in_the_region_is_a_warning(p5_account):
    session = p5_account.session()
    role = session.client("iam").create_role(RoleName="eks", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    session.client("eks").create_cluster(name="p5-train-prod", roleArn=role, resourcesVpcConfig={"subnetIds": []})
    offline, online = checked(p5_account)
    assert added(offline, online) == [("online.cluster-exists", "warning", "metadata.name")]


def test_a_bucket_this_account_owns_is_a_warning(p5_account):
    p5_account.session().client("s3").create_bucket(Bucket="p5-train-prod-checkpoints")
    offline, online = checked(p5_account)
    assert added(offline, online) == [("online.bucket-exists", "warning", "storage[3].name")]


def test_a_bucket_another_account_owns_is_an_error_at_its_bucket_name(p5_account, tmp_path):
    path = variant(tmp_path, P5, ("    name: datasets\n", "    name: datasets\n    bucket_name: shared-datasets-bucket\n"))
    session = p5_account.session()
    # moto doesn't keep S3's accounts apart, so S3's answer for a bucket of another account's is given as S3 gives it.
    answer_with(session, "s3.HeadBucket", 403, "403", "Forbidden")
    offline = validate(str(path))
    online = validate_online(offline, session=session, now=DURING)
    assert added(offline, online) == [("online.bucket-taken", "error", "storage[2].bucket_name"), ("online.bucket-taken", "error", "storage[3].name")]
    assert line_of(path.read_text(), "bucket_name: shared-datasets-bucket") in {f.line for f in online.findings}
