"""FSx placement and bucket names (no Pulumi)."""

from blueprints.catalog import load_catalog
from blueprints.models.storage import S3Bucket
from blueprints.rules.names import bucket_name
from components.plan.compile import plan_blueprint
from railyard.pipeline import validate


def plan(example):
    return plan_blueprint(validate(f"blueprints/examples/{example}.yaml").blueprint, load_catalog())


def test_efa_file_system_sits_in_the_efa_subnet_of_its_pool():
    (fs,) = plan("p5-capacity-block").file_systems
    assert (fs.subnet_key, fs.availability_zone, fs.client_pools) == ("efa-ultra-use1a", "us-east-1a", ("train",))


def test_plain_file_system_sits_in_the_private_subnet_of_its_pools_zone():
    (fs,) = plan("heterogeneous").file_systems
    assert (fs.subnet_key, fs.availability_zone) == ("private-us-east-2a", "us-east-2a")
    assert "pool 'h200'" in fs.reason


def test_bucket_names_default_to_cluster_and_tier():
    assert [b.bucket_name for b in plan("p5-capacity-block").buckets] == ["p5-train-prod-datasets", "p5-train-prod-checkpoints"]
    assert bucket_name("c" * 60, S3Bucket(kind="s3", name="data")) == "c" * 60 + "-da"
    assert bucket_name("x", S3Bucket(kind="s3", name="data", bucket_name="my-bucket")) == "my-bucket"
