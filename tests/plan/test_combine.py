"""Offerings judged one by one, then combined in one zone, type and window: every unsafe or infeasible one rejected with its code."""

from __future__ import annotations

from decimal import Decimal

from blueprints.catalog import load_catalog
from railyard.plan.combine import combine
from railyard.plan.expand import expand
from railyard.plan.offerings import Offering, Rejection, offerings_of
from tests.plan.offerings import answer, needs


def judged(answers, job=None):
    job = job or needs(512, ("h100", "b200"), interconnect={"scale_up_accelerators": 8}, regions=["us-east-1", "us-east-2", "us-west-2"])
    offerings, unreadable = offerings_of({"answers.json": {"CapacityBlockOfferings": answers}})
    combinations, rejected = combine(offerings, job, expand(job, load_catalog()))
    return combinations, unreadable + rejected


def codes(rejected):
    return {(one.offering_ids, one.code) for one in rejected}


def test_one_offering_of_the_whole_job_is_a_candidate_priced_by_its_fee():
    combinations, rejected = judged([answer("cb-00000001")])
    assert rejected == []
    (only,) = combinations
    assert (only.region, only.zone, only.nodes, only.accelerators, only.offering_ids) == ("us-east-1", "us-east-1a", 64, 512, ("cb-00000001",))
    assert only.upfront_usd == Decimal("1339527.17")  # 41.528 x 64 x 504


def test_smaller_blocks_in_one_zone_and_window_are_summed_cheapest_instance_first():
    combinations, rejected = judged(
        [
            answer("cb-0000000a", count=32, rate="45"),
            answer("cb-0000000b", count=32, rate="41.528"),
            answer("cb-0000000c", count=40, rate="43"),
        ]
    )
    assert rejected == []
    (together,) = combinations
    # By fee per instance: b (41.528), c (43), then a is not needed (32 + 40 >= 64).
    assert together.offering_ids == ("cb-0000000b", "cb-0000000c")
    assert together.nodes == 72
    assert together.upfront_usd == Decimal("669763.58") + Decimal("866880.00")


def test_blocks_enough_only_across_zones_are_rejected_as_split():
    combinations, rejected = judged([answer("cb-0000000a", count=40), answer("cb-0000000b", zone="us-east-1b", count=24)])
    assert combinations == []
    assert rejected == [
        Rejection(
            ("cb-0000000a",),
            "plan.split-zones",
            "40 p5.48xlarge in us-east-1a (320 accelerators) from 2027-01-11; us-east-1 holds 64 only across us-east-1a, us-east-1b, "
            "and one EFA pool can't span zones (it needs 64)",
        ),
        Rejection(
            ("cb-0000000b",),
            "plan.split-zones",
            "24 p5.48xlarge in us-east-1b (192 accelerators) from 2027-01-11; us-east-1 holds 64 only across us-east-1a, us-east-1b, "
            "and one EFA pool can't span zones (it needs 64)",
        ),
    ]


def test_blocks_too_few_even_together_are_rejected_as_too_few():
    combinations, rejected = judged([answer("cb-0000000a", count=63)])
    assert combinations == []
    assert rejected == [
        Rejection(
            ("cb-0000000a",), "plan.too-few", "63 p5.48xlarge in us-east-1a (504 accelerators) from 2027-01-11; the job needs 64 (512 accelerators)"
        )
    ]


def test_blocks_of_different_windows_are_not_one_pool():
    combinations, rejected = judged([answer("cb-0000000a", count=32), answer("cb-0000000b", count=32, start="2027-01-12")])
    assert combinations == []
    assert codes(rejected) == {(("cb-0000000a",), "plan.too-few"), (("cb-0000000b",), "plan.too-few")}


def test_a_partial_ultraserver_is_rejected_and_a_whole_one_too_small_is_too_few():
    job = needs(144, ("b200",), interconnect={"scale_up_accelerators": 72}, regions=["us-west-2"])
    gb200 = {"instance_type": "p6e-gb200.36xlarge", "zone": "us-west-2c", "rate": "49.42"}
    combinations, rejected = judged(
        [
            answer("cb-0000000a", count=18, UltraserverType="u-p6e-gb200x72", UltraserverCount=1, **gb200),
            answer("cb-0000000b", count=9, UltraserverType="u-p6e-gb200x36", UltraserverCount=1, **gb200),
            answer("cb-0000000c", count=36, UltraserverType="u-p6e-gb200x72", UltraserverCount=1, **gb200),
        ],
        job,
    )
    # 144 GPUs = 36 nodes = 2 UltraServers of 18.
    assert combinations == []
    assert codes(rejected) == {
        (("cb-0000000b",), "plan.partial-ultraserver"),
        (("cb-0000000c",), "plan.partial-ultraserver"),
        (("cb-0000000a",), "plan.too-few"),
    }
    partial = next(one for one in rejected if one.offering_ids == ("cb-0000000b",))
    assert partial.message == "9 p6e-gb200.36xlarge (u-p6e-gb200x36 x 1) is not whole u-p6e-gb200x72 UltraServers of 18 instances"
    two = judged([answer("cb-0000000d", count=36, UltraserverType="u-p6e-gb200x72", UltraserverCount=2, **gb200)], job)[0]
    assert [combination.nodes for combination in two] == [36]


def test_the_window_bounds_are_inclusive_days_in_utc():
    inside = answer("cb-0000000a", start="2027-02-07")  # ends 2027-02-28 11:30, on latest_end
    early = answer("cb-0000000b", start="2027-01-03")
    late = answer("cb-0000000c", start="2027-02-08")  # ends 2027-03-01 11:30
    combinations, rejected = judged([inside, early, late])
    assert [combination.offering_ids for combination in combinations] == [("cb-0000000a",)]
    assert codes(rejected) == {(("cb-0000000b",), "plan.outside-window"), (("cb-0000000c",), "plan.outside-window")}
    assert next(one for one in rejected if one.offering_ids == ("cb-0000000c",)).message == (
        "2027-02-08 11:30 to 2027-03-01 11:30 UTC falls outside 2027-01-04 to 2027-02-28"
    )


def test_a_block_shorter_than_the_job_is_rejected_and_a_longer_one_kept():
    combinations, rejected = judged([answer("cb-0000000a", days=14), answer("cb-0000000b", days=28)])
    assert [combination.offering_ids for combination in combinations] == [("cb-0000000b",)]
    assert rejected == [Rejection(("cb-0000000a",), "plan.duration", "a 336 h block; the job runs 504 h")]


def test_a_type_or_a_region_the_needs_dont_allow_is_excluded():
    combinations, rejected = judged([answer("cb-0000000a", instance_type="p6-b300.48xlarge"), answer("cb-0000000b", zone="eu-west-1a")])
    assert combinations == []
    assert codes(rejected) == {(("cb-0000000a",), "plan.excluded"), (("cb-0000000b",), "plan.excluded")}
    assert next(one for one in rejected if one.offering_ids == ("cb-0000000b",)).message == (
        "zone eu-west-1a is in none of the regions searched (us-east-1, us-east-2, us-west-2)"
    )


def test_the_budget_is_met_to_the_cent():
    offer = answer("cb-0000000a")  # $1,339,527.17
    at = needs(512, budget={"max_upfront_usd": 1339527.17})
    assert [c.offering_ids for c in judged([offer], at)[0]] == [("cb-0000000a",)]
    over = judged([offer], needs(512, budget={"max_upfront_usd": 1339527.16}))[1]
    assert over == [Rejection(("cb-0000000a",), "plan.over-budget", "$1,339,527.17 upfront exceeds max_upfront_usd $1,339,527.16")]


def test_blocks_beyond_the_accounts_instance_limit_are_rejected():
    # 1,024 GPUs = 128 nodes, within a limit of 130; 64 + 63 is short, and adding the next 63 makes 190.
    job = needs(1024, block_instance_limit=130)
    combinations, rejected = judged([answer("cb-0000000a"), answer("cb-0000000b", count=63), answer("cb-0000000c", count=63)], job)
    assert combinations == []
    assert rejected == [
        Rejection(
            ("cb-0000000a", "cb-0000000b", "cb-0000000c"),
            "plan.instance-limit",
            "190 p5.48xlarge across 3 blocks exceed the 130 instances an account may hold across Capacity Blocks",
        )
    ]


def test_offerings_of_a_type_the_job_needs_beyond_the_limit_of_are_rejected_with_the_limit():
    # 2,056 GPUs = 257 p5.48xlarge: more than an account may hold across Capacity Blocks (256).
    combinations, rejected = judged([answer(f"cb-0000000{index}") for index in range(5)], needs(2056))
    assert combinations == []
    assert {one.code for one in rejected} == {"plan.instance-limit"} and len(rejected) == 5
    assert rejected[0].message == "p5.48xlarge: 257 nodes exceed the 256 instances an account may hold across Capacity Blocks"


def test_an_offering_missing_a_field_or_in_another_currency_is_invalid_not_guessed():
    missing = answer("cb-0000000a")
    del missing["UpfrontFee"]
    euros = answer("cb-0000000b", CurrencyCode="EUR")
    offerings, rejected = offerings_of({"a.json": {"CapacityBlockOfferings": [missing, euros]}, "b.json": {"Other": []}})
    assert offerings == []
    assert rejected == [
        Rejection(("cb-0000000a",), "plan.offering-invalid", "cb-0000000a (a.json) has no UpfrontFee"),
        Rejection(("cb-0000000b",), "plan.offering-invalid", "cb-0000000b (a.json) is priced in EUR; railyard plans in USD"),
    ]


def test_an_offering_listed_by_two_answers_is_read_once():
    offerings, _ = offerings_of(
        {"a.json": {"CapacityBlockOfferings": [answer("cb-0000000a")]}, "b.json": {"CapacityBlockOfferings": [answer("cb-0000000a")]}}
    )
    assert [(offering.offering_id, offering.source) for offering in offerings] == [("cb-0000000a", "a.json")]
    assert isinstance(offerings[0], Offering)
