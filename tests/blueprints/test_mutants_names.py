"""The names rule (`blueprints/rules/names.py`) at each of its limits and one past, with its exact words.

Each limit is the API's: IAM's 64-character role names (so a cluster name of at most 33), EC2's 128-character launch
template names, AWS's 50 tags per resource and 256 characters per tag value, EKS's 63-character label and taint keys,
and the tag characters IAM and FSx accept. Every case loads blueprint text built here (no example, no preview).
"""

from __future__ import annotations

import pytest

from blueprints.findings import Finding
from blueprints.models.storage import S3Bucket
from blueprints.rules.names import bucket_name
from tests.blueprints.base import BASE, line_of, load, mutate

METADATA = "  name: testbed\n  environment: test\n"


def _found(text: str, code: str) -> list[Finding]:
    return [finding for finding in load(text).findings if finding.code == code]


def _named(name: str, environment: str = "prod") -> str:
    return mutate(METADATA, f"  name: {name}\n  environment: {environment}\n")


def _tags(lines: str) -> str:
    return mutate("  cost_center: cc-1\n", f"  cost_center: cc-1\n  tags:\n{lines}")


def test_a_cluster_name_of_33_characters_is_within_iams_role_limit() -> None:
    assert _found(_named("n" * 28), "names.cluster-too-long") == []


def test_a_cluster_name_of_34_characters_is_refused_with_the_arithmetic() -> None:
    text = _named("n" * 29)
    [finding] = _found(text, "names.cluster-too-long")
    cluster = "n" * 29 + "-prod"
    assert finding.path == ("metadata", "name")
    assert finding.line == line_of(text, "  name: " + "n" * 29)
    assert finding.message == (
        f"the cluster name '{cluster}' (metadata.name-environment) has 34 characters; IAM role names built from it "
        f"('{cluster}-eks-control-plane-role' plus Pulumi's 8-character suffix) would pass IAM's 64"
    )
    assert finding.hint == "shorten metadata.name or metadata.environment to at most 33 characters together, hyphen included"


POOL = "p" * 40


def _long_names(pool: str, zone: str) -> str:
    """A 33-character cluster with pool `pool` placed in zone `zone` (renamed from za)."""
    text = _named("n" * 28).replace("  - name: train\n", f"  - name: {pool}\n")
    return (
        text.replace("    - name: za\n", f"    - name: {zone}\n").replace("domains: [za]", f"domains: [{zone}]").replace("[za, zb]", f"[{zone}, zb]")
    )


def test_a_launch_template_name_at_128_with_pulumis_suffix_is_allowed() -> None:
    """33 + 1 + 40 + 1 + 33 + '-00' + '-template' = 120 characters, and Pulumi's 8 make 128."""
    assert _found(_long_names(POOL, "z" * 33), "names.launch-template-too-long") == []


def test_a_launch_template_name_one_past_128_is_refused_for_the_zone() -> None:
    zone = "z" * 34
    text = _long_names(POOL, zone)
    [finding] = _found(text, "names.launch-template-too-long")
    logical = f"{'n' * 28}-prod-{POOL}-{zone}-00-template"
    assert finding.path == ("pools", 0, "name")
    assert finding.message == (
        f"the launch template of pool '{POOL}' in '{zone}' would be auto-named from '{logical}' (121 + 8 characters), over EC2's 128"
    )
    assert finding.hint == "shorten the pool's name, the failure domain's name or the cluster name"


def test_a_long_block_of_a_listed_zone_counts_too() -> None:
    """A pool split under the nodes-per-group quota names its groups after the zone's blocks: a block name is held too."""
    block = "b" * 34
    text = _long_names(POOL, "za").replace("        - name: za-b1\n", f"        - name: {block}\n")
    [finding] = _found(text, "names.launch-template-too-long")
    assert f"in '{block}' would be auto-named" in finding.message


def test_tags_allowed_characters_pass() -> None:
    text = _tags("    'team_a .:/=+-@': 'Ünïcode 9 _.:/=+-@'\n")
    assert _found(text, "names.tag-characters") == []


def test_a_tag_key_with_the_aws_prefix_is_refused_in_any_case() -> None:
    text = _tags("    'AWS:team': ml\n")
    [finding] = _found(text, "names.tag-characters")
    assert finding.path == ("metadata", "tags", "AWS:team")
    assert finding.message == "tag key 'AWS:team' starts with 'aws:', which AWS reserves"
    assert finding.hint == "rename the tag"


def test_a_bad_character_in_a_tag_key_and_in_a_value_are_each_named() -> None:
    text = _tags("    'team,x': 'a;b!'\n")
    findings = _found(text, "names.tag-characters")
    assert [(finding.path, finding.message, finding.hint) for finding in findings] == [
        (
            ("metadata", "tags", "team,x"),
            "tag key 'team,x' holds ',', which IAM and FSx refuse in tags (allowed: letters, digits, spaces and _ . : / = + - @)",
            "drop or replace ',' in the tag key",
        ),
        (
            ("metadata", "tags", "team,x"),
            "tag value 'a;b!' holds '!;', which IAM and FSx refuse in tags (allowed: letters, digits, spaces and _ . : / = + - @)",
            "drop or replace '!;' in the tag value",
        ),
    ]


def test_owner_and_cost_center_are_tags_too() -> None:
    text = mutate("  owner: platform\n", "  owner: plat#form\n").replace("cost_center: cc-1", "cost_center: cc$1")
    findings = _found(text, "names.tag-characters")
    assert [(finding.path, finding.line) for finding in findings] == [
        (("metadata", "owner"), line_of(text, "owner: plat#form")),
        (("metadata", "cost_center"), line_of(text, "cost_center: cc$1")),
    ]
    assert findings[0].message.startswith("tag value 'plat#form' holds '#'")
    assert findings[1].message.startswith("tag value 'cc$1' holds '$'")


@pytest.mark.parametrize("key", ["owner", "cost-center", "environment"])
def test_an_extra_tag_replacing_a_metadata_tag_is_refused(key: str) -> None:
    [finding] = _found(_tags(f"    {key}: someone\n"), "names.tag-overrides-railyard")
    assert finding.path == ("metadata", "tags", key)
    assert finding.message == (
        f"metadata.tags sets '{key}', a tag railyard sets on every resource from the metadata's own field; the extra tag "
        "would replace it, and cost and ownership reports would read the wrong value"
    )
    assert finding.hint == f"remove '{key}' from metadata.tags and set metadata.{key.replace('-', '_')} instead"


@pytest.mark.parametrize("key", ["Name", "railyard:cluster"])
def test_an_extra_tag_replacing_a_name_tag_is_refused(key: str) -> None:
    [finding] = _found(_tags(f"    '{key}': x\n"), "names.tag-overrides-railyard")
    assert finding.message == (
        f"metadata.tags sets '{key}', a tag railyard sets on every resource from the cluster and resource names; the extra "
        "tag would replace it, and cost and ownership reports would read the wrong value"
    )
    assert finding.hint == f"remove '{key}' from metadata.tags"


def test_a_tag_railyard_does_not_set_everywhere_may_be_written() -> None:
    """`railyard:mounted-by` is one of railyard's FSx tags but not one it sets on every resource."""
    assert _found(_tags("    'railyard:mounted-by': x\n    Owner: x\n"), "names.tag-overrides-railyard") == []


def test_43_extra_tags_fill_the_fsx_file_system_to_50() -> None:
    assert _found(_tags("".join(f"    t{index}: v\n" for index in range(43))), "names.tag-count") == []


def test_44_extra_tags_are_refused() -> None:
    text = _tags("".join(f"    t{index}: v\n" for index in range(44)))
    [finding] = _found(text, "names.tag-count")
    assert finding.path == ("metadata", "tags")
    assert finding.line == line_of(text, "    t0: v")
    assert finding.message == "metadata.tags adds 44 tags to railyard's 7; an FSx file system would carry 51, over AWS's 50 per resource"
    assert finding.hint == "keep at most 43 extra tags"


def test_a_tag_of_railyards_own_names_is_not_counted_twice() -> None:
    """43 extra tags plus one railyard already puts on FSx (railyard:demand-mbps) still make 50."""
    lines = "".join(f"    t{index}: v\n" for index in range(43)) + "    'railyard:demand-mbps': x\n"
    assert _found(_tags(lines), "names.tag-count") == []


def _pool_keys(lines: str) -> str:
    return mutate("      spread: zones\n", f"      spread: zones\n{lines}")


@pytest.mark.parametrize(
    ("field", "block"), [("labels", "    labels: {{'{key}': x}}\n"), ("taints", "    taints: [{{key: '{key}', effect: NoSchedule}}]\n")]
)
def test_a_label_or_taint_key_of_63_characters_is_allowed(field: str, block: str) -> None:
    key = "example.com/" + "k" * 51
    assert _found(_pool_keys(block.format(key=key)), "names.eks-label-too-long") == []


@pytest.mark.parametrize(
    ("field", "block"), [("labels", "    labels: {{'{key}': x}}\n"), ("taints", "    taints: [{{key: '{key}', effect: NoSchedule}}]\n")]
)
def test_a_label_or_taint_key_of_64_characters_is_refused(field: str, block: str) -> None:
    key = "example.com/" + "k" * 52
    text = _pool_keys(block.format(key=key))
    [finding] = _found(text, "names.eks-label-too-long")
    assert finding.path == ("pools", 1, field)
    assert finding.message == (
        f"{field[:-1]} key '{key}' of pool 'serve' has 64 characters; EKS node groups take label and taint keys of at most 63, prefix included"
    )
    assert finding.hint == "shorten the key to 63 characters or fewer"


def _mounters(last: str) -> str:
    """Six 40-character pools and one named `last` mounting the FSx tier, besides train (5 + 1 characters)."""
    names = [f"{letter * 40}" for letter in "abcdef"] + [last]
    pools = "".join(
        f"  - name: {name}\n    instance_type: inf2.48xlarge\n    role: inference\n    nodes: 1\n"
        f"    placement: {{domains: [zb]}}\n    storage: [{{tier: lustre}}]\n"
        for name in names
    )
    return mutate("storage:\n  - kind: fsx_lustre", f"{pools}storage:\n  - kind: fsx_lustre").replace("  - name: serve\n", "  - name: serve\n", 1)


def test_pools_mounting_a_tier_whose_names_take_256_characters_fit_its_tag() -> None:
    """train (5) + 6 x 40 + a 4-character pool + 7 spaces = 256."""
    assert _found(_mounters("gggg"), "names.mounted-by-too-long") == []


def test_pools_mounting_a_tier_whose_names_take_257_characters_are_refused() -> None:
    text = _mounters("ggggg")
    [finding] = _found(text, "names.mounted-by-too-long")
    assert finding.path == ("storage", 0, "name")
    assert finding.message == (
        "FSx tier 'lustre' is mounted by pools whose names, listed in its railyard:mounted-by tag, take 257 characters, over AWS's 256 per tag value"
    )
    assert finding.hint == "shorten the pools' names, or mount the tier from fewer pools"


def test_an_s3_tier_is_never_held_to_the_mounted_by_limit() -> None:
    """Only FSx tiers carry the tag: the S3 tier (storage[1]) is skipped even when the pools name it."""
    findings = _found(_mounters("ggggg"), "names.mounted-by-too-long")
    assert [finding.path for finding in findings] == [("storage", 0, "name")]


def test_a_bucket_name_is_the_tiers_own_or_the_cluster_and_tier_cut_to_63() -> None:
    assert bucket_name("c", S3Bucket(kind="s3", name="data", bucket_name="my.bucket")) == "my.bucket"
    assert bucket_name("testbed-test", S3Bucket(kind="s3", name="data")) == "testbed-test-data"
    # 60 + "-" + "data" = 65 characters: cut to 63 ("...-da"), and a cut that ends on "-" or "." loses it.
    assert bucket_name("c" * 60, S3Bucket(kind="s3", name="data")) == "c" * 60 + "-da"
    assert bucket_name("c" * 62, S3Bucket(kind="s3", name="data")) == "c" * 62
    assert bucket_name("c" * 61 + ".", S3Bucket(kind="s3", name="data")) == "c" * 61
    # Only "-" and "." are stripped from the cut's end: any other last character stays.
    assert bucket_name("c" * 61 + "X", S3Bucket(kind="s3", name="data")) == "c" * 61 + "X"


def test_the_base_blueprint_has_no_name_findings() -> None:
    assert [finding.code for finding in load(BASE).findings if finding.code.startswith("names.")] == []


def test_an_fsx_tier_listed_after_an_s3_tier_is_held_to_the_mounted_by_limit() -> None:
    """The S3 tier is skipped, not the end of the check: the FSx tier after it is still judged."""
    text = _mounters("ggggg").replace("  - kind: s3\n    name: data\n", "")
    text = text.replace("storage:\n  - kind: fsx_lustre", "storage:\n  - kind: s3\n    name: data\n  - kind: fsx_lustre")
    assert [finding.path for finding in _found(text, "names.mounted-by-too-long")] == [("storage", 1, "name")]
