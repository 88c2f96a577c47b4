"""`railyard conform`'s FSx verdict on each failure it can take: the file system absent from the account (not merely
unhealthy) and one not AVAILABLE, each `conform.fsx` at the tier's path."""

from __future__ import annotations

from tests.conform.clusters import P5
from tests.conform.test_judge import Documents, judged


def test_a_tier_with_no_file_system_in_the_account_is_an_error_at_the_tier(tmp_path):
    def absent(documents: Documents) -> None:
        documents["fsx-describe-file-systems.json"]["FileSystems"] = []

    (finding,) = [f for f in judged(P5, tmp_path, absent).findings if f.code == "conform.fsx"]
    assert (finding.severity, finding.path) == ("error", ("storage", 0))
    assert finding.message == "no FSx file system of tier 'lustre' is in the account"
    assert finding.hint == "run `pulumi up`, or check the tier's `existing.id`"


def test_a_file_system_still_creating_is_an_error_naming_its_state(tmp_path):
    def creating(documents: Documents) -> None:
        documents["fsx-describe-file-systems.json"]["FileSystems"][0]["Lifecycle"] = "CREATING"

    (finding,) = [f for f in judged(P5, tmp_path, creating).findings if f.code == "conform.fsx"]
    assert (finding.severity, finding.path) == ("error", ("storage", 0))
    assert finding.message == "FSx fs-0123456789abcdef0 of tier 'lustre' is CREATING, not AVAILABLE"
    assert finding.certificate["observed"] == "CREATING"


def test_an_available_file_system_raises_no_fsx_finding(tmp_path):
    assert "conform.fsx" not in {f.code for f in judged(P5, tmp_path).findings}
