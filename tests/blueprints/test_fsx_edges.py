"""FSx for Lustre's rules (blueprints/rules/fsx.py) at their edges: every capacity step exactly and one GiB past it, a
property that the size the hint offers is the next legal one, the eighth data repository and the ninth, metadata IOPS
on and off the offered list, and throughput on each side of the scratch/persistent divide."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blueprints.rules.fsx import _nearest, legal_capacity
from tests.blueprints.base import load, mutate
from tests.properties import examples

KINDS = [
    ("PERSISTENT_1", "HDD", 12),
    ("PERSISTENT_1", "HDD", 40),
    ("SCRATCH_1", "SSD", None),
    ("SCRATCH_2", "SSD", None),
    ("PERSISTENT_2", "SSD", 250),
]


@pytest.mark.parametrize(
    ("deployment", "storage", "throughput", "legal", "illegal"),
    [
        ("PERSISTENT_1", "HDD", 12, (6000, 12000), (5999, 6001, 1800)),
        ("PERSISTENT_1", "HDD", 40, (1800, 3600), (1799, 1801, 0)),
        ("SCRATCH_1", "SSD", None, (1200, 2400, 6000, 9600), (1201, 2401, 3600, 4800, 5999)),
        ("SCRATCH_2", "SSD", None, (1200, 2400, 4800), (1199, 1201, 2399, 3600, 4801)),
        ("PERSISTENT_2", "SSD", 250, (1200, 2400, 72000), (0, 2401, 3600)),
    ],
)
def test_each_capacity_step_is_legal_exactly_and_not_one_gib_either_side(deployment, storage, throughput, legal, illegal):
    assert all(legal_capacity(deployment, storage, throughput, size)[0] for size in legal)
    assert not any(legal_capacity(deployment, storage, throughput, size)[0] for size in illegal)


def test_the_rule_is_worded_for_its_kind():
    assert legal_capacity("PERSISTENT_1", "HDD", 12, 1)[1] == "multiples of 6000 GiB"
    assert legal_capacity("PERSISTENT_1", "HDD", 40, 1)[1] == "multiples of 1800 GiB"
    assert legal_capacity("SCRATCH_1", "SSD", None, 1)[1] == "1200, 2400, then 2400 + multiples of 3600 GiB"
    assert legal_capacity("PERSISTENT_2", "SSD", 250, 1)[1] == "1200, 2400, then multiples of 2400 GiB"


@settings(max_examples=examples(80), deadline=None)
@given(kind=st.sampled_from(KINDS), capacity=st.integers(min_value=1, max_value=100_000))
def test_the_offered_size_is_the_smallest_legal_size_at_or_above_the_asked_one(kind, capacity):
    deployment, storage, throughput = kind
    offered = _nearest(capacity, deployment, storage, throughput)
    assert offered >= capacity
    assert legal_capacity(deployment, storage, throughput, offered)[0]
    # No legal size lies between: every step is a multiple of 600 GiB, so checking those is enough.
    between = range(-(-capacity // 600) * 600, offered, 600)
    assert not any(legal_capacity(deployment, storage, throughput, size)[0] for size in between)


REPOSITORY = "      - bucket: data\n        file_system_path: /data\n"


def _repositories(count: int) -> str:
    more = "".join(f"      - bucket: data\n        prefix: p{index}/\n        file_system_path: /d{index}\n" for index in range(1, count))
    return mutate(REPOSITORY, REPOSITORY + more)


def test_eight_data_repositories_are_allowed_and_the_ninth_is_named():
    assert not [f for f in load(_repositories(8)).findings if f.code == "fsx.too-many-repositories"]
    (finding,) = [f for f in load(_repositories(9)).findings if f.code == "fsx.too-many-repositories"]
    assert finding.path_text == "storage[0].data_repositories[8]"
    assert finding.message == "'lustre' links 9 S3 locations; FSx allows at most 8 data repository associations on a file system"


@pytest.mark.parametrize(
    ("iops", "offered"), [(1500, True), (12000, True), (18000, False), (24000, True), (192000, True), (204000, False), (1000, False)]
)
def test_provisioned_metadata_iops_are_1500_to_12000_or_a_multiple_of_12000_up_to_192000(iops, offered):
    text = mutate("    metadata: {mode: automatic}\n", f"    metadata: {{mode: user_provisioned, iops: {iops}}}\n")
    found = [f for f in load(text).findings if f.code == "fsx.metadata-iops"]
    assert [(f.path_text, f.message) for f in found] == ([] if offered else [("storage[0].metadata.iops", f"metadata iops {iops} is not offered")])


def test_iops_set_with_automatic_metadata_is_refused():
    (finding,) = [
        f
        for f in load(mutate("    metadata: {mode: automatic}\n", "    metadata: {mode: automatic, iops: 1500}\n")).findings
        if f.code == "fsx.metadata-iops"
    ]
    assert finding.message == "metadata mode automatic derives IOPS from capacity; iops 1500 can't be set"


@pytest.mark.parametrize(("throughput", "legal"), [(125, True), (1000, True), (200, False)])
def test_persistent_2_takes_only_its_offered_throughputs(throughput, legal):
    found = [
        f
        for f in load(mutate("    throughput_mbps_per_tib: 250\n", f"    throughput_mbps_per_tib: {throughput}\n")).findings
        if f.code.startswith("fsx.")
    ]
    assert [(f.code, f.message) for f in found] == (
        [] if legal else [("fsx.throughput-value", f"{throughput} MB/s per TiB is not offered for PERSISTENT_2 SSD")]
    )


def test_lustre_2_12_with_a_metadata_configuration_is_refused_and_2_15_is_not():
    text = mutate("    metadata: {mode: automatic}\n", '    metadata: {mode: automatic}\n    file_system_type_version: "2.12"\n')
    (finding,) = [f for f in load(text).findings if f.code == "fsx.version"]
    assert finding.message == "a metadata configuration needs Lustre 2.15, not 2.12"
    text = mutate("    metadata: {mode: automatic}\n", '    metadata: {mode: automatic}\n    file_system_type_version: "2.15"\n')
    assert not [f for f in load(text).findings if f.code == "fsx.version"]


SCRATCH = "    deployment_type: SCRATCH_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n"


def test_a_scratch_tier_with_a_throughput_is_refused_with_the_fix():
    text = mutate(
        "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n    metadata: {mode: automatic}\n"
        "    data_repositories:\n      - bucket: data\n        file_system_path: /data\n",
        SCRATCH,
    )
    (finding,) = [f for f in load(text).findings if f.code == "fsx.throughput-not-allowed"]
    assert finding.path_text == "storage[0].throughput_mbps_per_tib"
    assert finding.message == "SCRATCH_2 has no throughput setting, but 'lustre' sets 250"
    assert finding.hint == "remove throughput_mbps_per_tib (scratch gives about 200 MB/s per TiB)"


def test_a_persistent_tier_without_a_throughput_is_told_the_values_it_may_take():
    (finding,) = [f for f in load(mutate("    throughput_mbps_per_tib: 250\n", "")).findings if f.code == "fsx.throughput-required"]
    assert finding.message == "PERSISTENT_2 needs throughput_mbps_per_tib, and 'lustre' has none"
    assert finding.hint == "set one of [125, 250, 500, 1000]"


def _fsx(text: str, code: str):
    return [(f.path_text, f.message, f.hint) for f in load(text).findings if f.code == code]


def test_hdd_is_refused_beside_persistent_2_with_its_fix_and_allowed_on_persistent_1():
    assert _fsx(mutate("    deployment_type: PERSISTENT_2\n", "    deployment_type: PERSISTENT_2\n    storage_type: HDD\n"), "fsx.storage-type") == [
        ("storage[0].storage_type", "HDD storage is offered only on PERSISTENT_1, not PERSISTENT_2", "use storage_type: SSD")
    ]
    persistent_1 = "    deployment_type: PERSISTENT_1\n    storage_type: HDD\n    capacity_gib: 6000\n    throughput_mbps_per_tib: 12\n"
    text = mutate(
        "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n    throughput_mbps_per_tib: 250\n    metadata: {mode: automatic}\n"
        "    data_repositories:\n      - bucket: data\n        file_system_path: /data\n",
        persistent_1,
    )
    assert [f.code for f in load(text).findings if f.code.startswith("fsx.")] == []


def test_efa_without_metadata_has_its_fix_and_no_metadata_without_efa_is_fine():
    assert _fsx(mutate("    metadata: {mode: automatic}\n", "    efa: true\n"), "fsx.efa-needs-metadata")[0][2] == "add metadata: {mode: automatic}"
    assert _fsx(mutate("    metadata: {mode: automatic}\n", ""), "fsx.efa-needs-metadata") == []


def test_persistent_1_names_each_feature_only_persistent_2_has():
    text = mutate(
        "    deployment_type: PERSISTENT_2\n    capacity_gib: 2400\n", "    deployment_type: PERSISTENT_1\n    capacity_gib: 2400\n    efa: true\n"
    )
    text = text.replace("    throughput_mbps_per_tib: 250\n", "    throughput_mbps_per_tib: 200\n")
    assert sorted((path, message) for path, message, _ in _fsx(text, "fsx.feature-unsupported")) == [
        ("storage[0].data_repositories", "PERSISTENT_1 does not support data-repository associations; only PERSISTENT_2 does"),
        ("storage[0].efa", "PERSISTENT_1 does not support EFA; only PERSISTENT_2 does"),
        ("storage[0].metadata", "PERSISTENT_1 does not support a metadata configuration; only PERSISTENT_2 does"),
    ]


def test_iops_with_automatic_metadata_is_refused_at_the_iops_with_its_fix():
    assert _fsx(mutate("    metadata: {mode: automatic}\n", "    metadata: {mode: automatic, iops: 1500}\n"), "fsx.metadata-iops") == [
        (
            "storage[0].metadata.iops",
            "metadata mode automatic derives IOPS from capacity; iops 1500 can't be set",
            "remove iops or use mode: user_provisioned",
        )
    ]
