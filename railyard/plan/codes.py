"""The codes `railyard plan` judges offerings and candidates with, and what each means (`railyard explain`).

An offering never becomes a candidate without passing every judgement; one that fails is listed under
`rejected` with one of these codes and a message naming its offering ids. A need that no type or
window can meet is listed under `infeasible`. `needs.*` are the needs file's own invariants. The limits
the judgements hold offerings to are AWS's: blocks of 1 to 64 instances, at most 256 across blocks, and
1 to 14 days then 7-day steps to 182 (botocore's ec2 model, DescribeCapacityBlockOfferings'
InstanceCount and CapacityDurationHours); every block ends at 11:30 UTC
(EC2 User Guide, capacity-blocks-purchase). How each stage works: docs/plan.md.
"""

from __future__ import annotations

CODES = (
    "needs.accelerators",
    "needs.window",
    "needs.base",
    "plan.offering-invalid",
    "plan.excluded",
    "plan.duration",
    "plan.outside-window",
    "plan.partial-ultraserver",
    "plan.too-few",
    "plan.split-zones",
    "plan.instance-limit",
    "plan.over-budget",
    "plan.zones",
    "plan.not-proven",
    "plan.infeasible",
    "plan.duration-rounded",
)

EXPLAIN: dict[str, dict[str, str]] = {
    "needs.accelerators": {
        "meaning": "a needs file's accelerators name both kinds and instance_types, or neither",
        "fix": "list kinds (h100, h200, ...) for railyard to choose the types, or instance_types to choose them yourself",
    },
    "needs.window": {"meaning": "a needs file's window ends before it starts", "fix": "set latest_end after earliest_start"},
    "needs.base": {
        "meaning": "the blueprint a needs file builds on can't be read, or doesn't validate on its own terms",
        "fix": "point base at a blueprint (path relative to the needs file) that `railyard validate` reads",
    },
    "plan.offering-invalid": {
        "meaning": "an offering in the answers lacks a field the plan needs (id, type, zone, count, window, fee) or is priced in a "
        "currency other than USD",
        "fix": "record the answers again with `railyard plan NEEDS --online --record DIR`, or fix the hand-made file",
    },
    "plan.excluded": {
        "meaning": "an offering is for an instance type, or in a region, the needs don't allow",
        "fix": "widen accelerators.kinds / instance_types or regions, if the type or region would do",
    },
    "plan.duration": {
        "meaning": "an offering lasts another duration than the one the job needs (rounded up to a Capacity Block duration)",
        "fix": "search again for the needed duration, or change window.duration_days",
    },
    "plan.outside-window": {
        "meaning": "an offering starts before window.earliest_start or ends after window.latest_end",
        "fix": "widen the window if the job can move",
    },
    "plan.partial-ultraserver": {
        "meaning": "an UltraServer type's offering is not whole UltraServers: its instances don't fill its NVLink / NeuronLink domains",
        "fix": "choose an offering of whole UltraServers (UltraserverCount x the instances of one)",
    },
    "plan.too-few": {
        "meaning": "the offerings of one zone, type and window hold fewer accelerators than the job needs",
        "fix": "lower accelerators.count, search more regions or types, or a later window",
    },
    "plan.split-zones": {
        "meaning": "enough offerings exist only across several zones, and one EFA pool can't span zones",
        "fix": "wait for (or search) offerings in one zone, or split the job into pools that don't share a fabric",
    },
    "plan.instance-limit": {
        "meaning": "the combination needs more instances across Capacity Blocks than the account may hold (256 by default)",
        "fix": "declare the account's raised limit under the base's quotas, or need fewer accelerators",
    },
    "plan.over-budget": {
        "meaning": "the combination's upfront fees together exceed budget.max_upfront_usd",
        "fix": "raise the budget, or need fewer accelerators or a shorter window",
    },
    "plan.zones": {
        "meaning": "fewer than two zones are known in the offering's region, and an EKS cluster's subnets need two",
        "fix": "name the region's zones under `zones:` in the needs file",
    },
    "plan.not-proven": {
        "meaning": "the blueprint synthesised for a combination has an error in `railyard validate` (the finding is quoted)",
        "fix": "fix what the finding names in the base blueprint or the needs, and plan again",
    },
    "plan.infeasible": {
        "meaning": "no instance type in the catalog, or no window, can meet the needs at all",
        "fix": "relax the needs the message names (kinds, memory, bandwidth, scale-up, window, instance limit)",
    },
    "plan.duration-rounded": {
        "meaning": "the needed duration is not one Capacity Blocks are sold in, so it is rounded up (1-14 days, then 7-day steps)",
        "fix": "nothing, unless the longer block is unwanted: then shorten the job to a legal duration",
    },
}
