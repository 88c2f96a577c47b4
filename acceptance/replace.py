"""A node that failed acceptance, replaced: its instance marked Unhealthy, so its Auto Scaling group launches another.

`python -m acceptance check|run ... --publish NODE --replace-on-failure` runs this after the verdict
is on the node, and only when the node was judged and failed (an unreadable expectation or folder
judges nothing, and replaces nothing):

1. the node's `spec.providerID`, read with the `get` on nodes the checker already has. On EKS it is
   `aws:///<zone>/<instance-id>` (kubernetes/cloud-provider-aws; the instance id is the last part);
2. credentials from EKS Pod Identity, then Auto Scaling `SetInstanceHealth` `Unhealthy`
   (acceptance/aws.py), in the region `AWS_REGION` names (the compiled DaemonSet sets it);
3. what happened, on the node: the annotation `railyard.dev/acceptance-replacement` (JSON: the
   instance, whether replacement was requested, the error) and the `railyard.dev/Accepted`
   condition's reason, `ReplacementRequested` or `ReplacementFailed`, its message saying which.

A node whose only failures are missing evidence (`evidence.<file>`: a command absent from the image or the
host, or cut off by the time limit) is not replaced: a new instance would fail the same way, in a loop. It is
held and the outcome says why. The node keeps its taint either way: while Auto Scaling terminates it nothing lands there, and a
node whose replacement failed is held for an operator as with `on_failure: taint`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from acceptance.aws import AwsError, container_credentials, set_instance_health
from acceptance.kube import CONDITION, ApiError, NodeApi, condition
from acceptance.report import Report

ANNOTATION = "railyard.dev/acceptance-replacement"
MISSING = "evidence."  # the checks acceptance.run names for a command's output missing from the folder
INSTANCE_ID = re.compile(r"^i-[0-9a-f]{8,17}$")  # EC2 user guide, "Resource IDs": 8 or 17 characters after the prefix


class ReplacementError(RuntimeError):
    """The replacement can't be asked for (no instance id on the node, no region): the message says what is missing."""


@dataclass(frozen=True)
class Replacement:
    """What came of asking Auto Scaling to replace a node's instance: the instance (None: unknown), and the error if any."""

    instance_id: str | None
    requested: bool
    error: str | None = None

    def sentence(self) -> str:
        """One line for the condition's message and the checker's output."""
        if self.requested:
            return f"instance {self.instance_id} marked Unhealthy: its Auto Scaling group replaces it"
        return f"replacement not requested: {self.error}"


def instance_of(node: Mapping[str, Any]) -> str:
    """The EC2 instance id in a node's `spec.providerID` (`aws:///us-west-2a/i-0123456789abcdef0`); `ReplacementError` without one."""
    provider = (node.get("spec") or {}).get("providerID") or ""
    instance = provider.rstrip("/").rsplit("/", 1)[-1]
    if not provider.startswith("aws://") or not INSTANCE_ID.match(instance):
        raise ReplacementError(f"the node's spec.providerID {provider!r} names no EC2 instance (expected aws:///<zone>/i-...)")
    return instance


def record(api: NodeApi, node: str, report: Report, outcome: Replacement, now: datetime) -> None:
    """Write the outcome on the node: the condition's reason and message, and the replacement annotation."""
    base = condition(report, now)
    reason = "ReplacementRequested" if outcome.requested else "ReplacementFailed"
    verdict = {"type": CONDITION, "status": "False", "reason": reason, "message": f"{base['message']}; {outcome.sentence()}"}
    # No lastTransitionTime: the status stays False, and a strategic merge by `type` keeps the one publish wrote.
    verdict["lastHeartbeatTime"] = base["lastHeartbeatTime"]
    path = f"/api/v1/nodes/{node}"
    api.request("PATCH", f"{path}/status", {"status": {"conditions": [verdict]}}, "application/strategic-merge-patch+json")
    document = {"instance_id": outcome.instance_id, "requested": outcome.requested, "error": outcome.error, "at": base["lastHeartbeatTime"]}
    annotation = json.dumps(document, sort_keys=True)
    api.request("PATCH", path, {"metadata": {"annotations": {ANNOTATION: annotation}}}, "application/merge-patch+json")


def replace_node(
    api: NodeApi,
    node: str,
    report: Report,
    environ: Mapping[str, str],
    endpoint: str | None = None,
    now: datetime | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Replacement:
    """Ask Auto Scaling to replace `node`'s instance, and record on the node what came of it.

    Returns the outcome; a refusal (no instance id, no region, no credentials, AWS's error) is an
    outcome, not an exception. `ApiError` only when the outcome can't be written on the node.
    """
    assert not report.passed, "only a node that failed is replaced"
    now = now or datetime.now(UTC)
    instance = None
    try:
        if all(name.startswith(MISSING) for name in report.failed):
            # A command that wrote nothing is missing from the checker's image or the host, or was cut off by the time
            # limit: a new instance would come up the same way, so replacing would loop. The node is held instead.
            raise ReplacementError(f"withheld: only evidence is missing ({', '.join(report.failed)}), which a new instance would not fix")
        instance = instance_of(api.request("GET", f"/api/v1/nodes/{node}"))
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION")
        if not region:
            raise ReplacementError("AWS_REGION is unset: the checker doesn't know its Auto Scaling endpoint's region")
        set_instance_health(instance, region, container_credentials(environ, sleep), endpoint, now)
        outcome = Replacement(instance, True)
    except (ApiError, AwsError, ReplacementError, OSError) as exc:
        outcome = Replacement(instance, False, str(exc))
    record(api, node, report, outcome, now)
    return outcome
