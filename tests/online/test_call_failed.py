"""`validate --online` when AWS refuses a call for a reason that is neither a denial nor throttling: a warning that
quotes AWS's code and message, names what went unchecked, and leaves the other checks running."""

from __future__ import annotations

from railyard.online import validate_online
from railyard.pipeline import validate
from tests.online.conftest import DURING, P5, added
from tests.online.moto_account import answer_with


def test_a_call_refused_for_another_reason_is_a_warning_quoting_aws(p5_account):
    session = p5_account.session()
    answer_with(session, "ec2.DescribeInstanceTypeOfferings", 400, "InvalidParameterValue", "The filter 'location' is invalid.")
    offline = validate(str(P5))
    online = validate_online(offline, session=session, now=DURING)
    assert added(offline, online) == [("online.call-failed", "warning", "pools")]
    (failed,) = [f for f in online.findings if f.code == "online.call-failed"]
    assert failed.message.startswith("ec2:DescribeInstanceTypeOfferings failed (InvalidParameterValue: The filter 'location' is invalid.), so ")
    assert failed.hint == "run again; if it persists, the message above is AWS's own"
    assert "reservations" in online.online.checks and "quotas" in online.online.checks
