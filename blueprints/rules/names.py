"""Blueprint values that would become names or tags the AWS APIs refuse.

Blueprint names are short DNS labels, but railyard builds longer names from
them, and tags from the metadata. These are the ones a real API would refuse
(the same rules COR008 checks on the compiled resources; the test that
previews a blueprint at exactly these limits keeps the two in step):

* IAM role names are at most 64 characters; Pulumi auto-names the cluster's
  roles `<cluster>-eks-control-plane-role` plus a hyphen and 7 random
  characters, so the cluster name (`<metadata.name>-<metadata.environment>`)
  may have at most 33;
* launch template names are at most 128; each node group's is auto-named
  from `<cluster>-<pool>-<failure domain>-template`, plus `-NN` when a pool
  is split into several groups of one block (room for it is always kept);
* IAM and FSx accept tag keys and values made of letters, digits, spaces and
  `_ . : / = + - @` only (botocore's models), and every AWS tag key refuses
  the `aws:` prefix; a resource holds at most 50 tags, and FSx file systems
  carry railyard's own (`Name`, `railyard:cluster`, two FSx tags) besides the
  blueprint's;
* an FSx tier's `railyard:mounted-by` tag lists the pools that mount it, and
  a tag value holds at most 256 characters;
* EKS takes node-group label and taint keys of at most 63 characters
  (botocore eks `labelKey`, `taintKey`), where Kubernetes allows a 253-character
  prefix before the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint
from blueprints.models.storage import S3Bucket
from blueprints.rules.context import Context

CODES = (
    "names.cluster-too-long",
    "names.launch-template-too-long",
    "names.tag-characters",
    "names.tag-count",
    "names.mounted-by-too-long",
    "names.eks-label-too-long",
    "names.tag-overrides-railyard",
)
# Tags railyard sets from the metadata or itself on every resource; an extra tag of the same key would replace them.
OWN_TAGS = ("owner", "cost-center", "environment", "railyard:cluster", "Name")

AUTONAME_SUFFIX = 8  # Pulumi's "-" and 7 random characters
IAM_ROLE_LIMIT = 64
LONGEST_ROLE_SUFFIX = "-eks-control-plane-role"
CLUSTER_NAME_LIMIT = IAM_ROLE_LIMIT - AUTONAME_SUFFIX - len(LONGEST_ROLE_SUFFIX)
LAUNCH_TEMPLATE_LIMIT = 128
TAG_LIMIT = 50
TAG_VALUE_LIMIT = 256
# Tags railyard adds to the most-tagged resource (an FSx file system) besides the metadata's.
RAILYARD_TAGS = ("owner", "cost-center", "environment", "railyard:cluster", "Name", "railyard:mounted-by", "railyard:demand-mbps")
# botocore iam TagKeyType / TagValueType and fsx TagKey / TagValue: [\p{L}\p{Z}\p{N}_.:/=+\-@]
TAG_CHARACTERS = re.compile(r"[\w .:/=+\-@\u00a0\u2000-\u200a\u3000]*")
TAG_FORBIDDEN_PREFIX = "aws:"
EKS_KEY_LIMIT = 63
BUCKET_NAME_LIMIT = 63  # S3 bucket naming rules
SPLIT_SUFFIX = "-00"  # the longest part a split node group adds to its names (topology/cluster/splitting.py)


def cluster_name(blueprint: Blueprint) -> str:
    """The EKS cluster's name, which prefixes every resource: `<metadata.name>-<metadata.environment>`."""
    return f"{blueprint.metadata.name}-{blueprint.metadata.environment}"


def bucket_name(cluster: str, tier: S3Bucket) -> str:
    """An S3 tier's bucket name: its `bucket_name`, else `<cluster>-<tier>` cut to S3's 63 characters.

    Defined here, before compiling, because `validate --online` asks the account whether the name is free.
    """
    if tier.bucket_name:
        return tier.bucket_name
    return f"{cluster}-{tier.name}"[:BUCKET_NAME_LIMIT].rstrip("-.")


def _tag_character_findings(blueprint: Blueprint) -> Iterable[Finding]:
    metadata = blueprint.metadata
    values: list[tuple[Path, str, str]] = [
        (("metadata", "owner"), "owner", metadata.owner),
        (("metadata", "cost_center"), "cost-center", metadata.cost_center),
    ]
    values += [(("metadata", "tags", key), key, value) for key, value in metadata.tags.items()]
    for path, key, value in values:
        if key.lower().startswith(TAG_FORBIDDEN_PREFIX):
            yield error("names.tag-characters", path, f"tag key '{key}' starts with '{TAG_FORBIDDEN_PREFIX}', which AWS reserves", "rename the tag")
        for what, text in (("key", key), ("value", value)):
            bad = sorted({char for char in text if not TAG_CHARACTERS.fullmatch(char)})
            if bad:
                yield error(
                    "names.tag-characters",
                    path,
                    f"tag {what} '{text}' holds {''.join(bad)!r}, which IAM and FSx refuse in tags "
                    "(allowed: letters, digits, spaces and _ . : / = + - @)",
                    f"drop or replace {''.join(bad)!r} in the tag {what}",
                )


def _own_tag_findings(blueprint: Blueprint) -> Iterable[Finding]:
    """Extra tags may not replace the ones railyard sets: owner and cost-center must be the metadata's."""
    for key in blueprint.metadata.tags:
        if key in OWN_TAGS:
            yield error(
                "names.tag-overrides-railyard",
                ("metadata", "tags", key),
                f"metadata.tags sets '{key}', a tag railyard sets on every resource from "
                + ("the metadata's own field" if key in ("owner", "cost-center", "environment") else "the cluster and resource names")
                + "; the extra tag would replace it, and cost and ownership reports would read the wrong value",
                f"remove '{key}' from metadata.tags"
                + (f" and set metadata.{key.replace('-', '_')} instead" if key in ("owner", "cost-center", "environment") else ""),
            )


def check(ctx: Context) -> Iterable[Finding]:
    """Derived names within their APIs' limits, and metadata that makes legal tags."""
    blueprint = ctx.blueprint
    yield from _own_tag_findings(blueprint)
    cluster = cluster_name(blueprint)
    if len(cluster) > CLUSTER_NAME_LIMIT:
        yield error(
            "names.cluster-too-long",
            ("metadata", "name"),
            f"the cluster name '{cluster}' (metadata.name-environment) has {len(cluster)} characters; IAM role names "
            f"built from it ('{cluster}{LONGEST_ROLE_SUFFIX}' plus Pulumi's {AUTONAME_SUFFIX}-character suffix) "
            f"would pass IAM's {IAM_ROLE_LIMIT}",
            f"shorten metadata.name or metadata.environment to at most {CLUSTER_NAME_LIMIT} characters together, hyphen included",
        )
    for index, pool in enumerate(blueprint.pools):
        # A pool split under the nodes-per-group quota names its groups after the domain's blocks.
        blocks = [block.name for name in pool.placement.domains if name in ctx.zones for block in ctx.zones[name].blocks]
        for domain in dict.fromkeys([*pool.placement.domains, *blocks]):
            logical = f"{cluster}-{pool.name}-{domain}{SPLIT_SUFFIX}-template"
            if len(logical) + AUTONAME_SUFFIX > LAUNCH_TEMPLATE_LIMIT:
                yield error(
                    "names.launch-template-too-long",
                    ("pools", index, "name"),
                    f"the launch template of pool '{pool.name}' in '{domain}' would be auto-named from '{logical}' "
                    f"({len(logical)} + {AUTONAME_SUFFIX} characters), over EC2's {LAUNCH_TEMPLATE_LIMIT}",
                    "shorten the pool's name, the failure domain's name or the cluster name",
                )
    yield from _tag_character_findings(blueprint)
    extra = [key for key in blueprint.metadata.tags if key not in RAILYARD_TAGS]
    if len(extra) + len(RAILYARD_TAGS) > TAG_LIMIT:
        yield error(
            "names.tag-count",
            ("metadata", "tags"),
            f"metadata.tags adds {len(extra)} tags to railyard's {len(RAILYARD_TAGS)}; an FSx file system would carry "
            f"{len(extra) + len(RAILYARD_TAGS)}, over AWS's {TAG_LIMIT} per resource",
            f"keep at most {TAG_LIMIT - len(RAILYARD_TAGS)} extra tags",
        )
    for index, pool in enumerate(blueprint.pools):
        keys = [("labels", key) for key in pool.labels] + [("taints", taint.key) for taint in pool.taints]
        for field, key in keys:
            if len(key) > EKS_KEY_LIMIT:
                yield error(
                    "names.eks-label-too-long",
                    ("pools", index, field),
                    f"{field[:-1]} key '{key}' of pool '{pool.name}' has {len(key)} characters; EKS node groups take "
                    f"label and taint keys of at most {EKS_KEY_LIMIT}, prefix included",
                    f"shorten the key to {EKS_KEY_LIMIT} characters or fewer",
                )
    for index, tier in enumerate(blueprint.storage):
        if tier.kind != "fsx_lustre":
            continue
        mounted_by = " ".join(pool.name for pool in blueprint.pools if any(use.tier == tier.name for use in pool.storage))
        if len(mounted_by) > TAG_VALUE_LIMIT:
            yield error(
                "names.mounted-by-too-long",
                ("storage", index, "name"),
                f"FSx tier '{tier.name}' is mounted by pools whose names, listed in its railyard:mounted-by tag, take "
                f"{len(mounted_by)} characters, over AWS's {TAG_VALUE_LIMIT} per tag value",
                "shorten the pools' names, or mount the tier from fewer pools",
            )
