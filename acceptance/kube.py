"""Publishing a node's verdict to Kubernetes with the standard library: a condition, an annotation, and the taint lifted.

What the checker writes, with the narrowest rights that allow it (a ClusterRole with `get` and
`patch` on `nodes` and `patch` on `nodes/status`, nothing else):

- the node condition `railyard.dev/Accepted`, `True` or `False`, with the failed checks in its
  message: a strategic merge patch of `status.conditions`, which Kubernetes merges by `type`, so
  the kubelet's own conditions are left alone;
- the annotation `railyard.dev/acceptance`: the whole report as JSON (a JSON merge patch);
- when the node passed and the checker is the one to lift the gate: the taint
  `railyard.dev/acceptance` removed, by a JSON patch that first tests the node's
  `resourceVersion`, so a taint another controller changed meanwhile is never overwritten (on a
  conflict it reads the node again, three times at most). Where node-readiness-controller holds the
  gate, its `NodeReadinessRule` lifts the taint from the condition and the checker leaves it.

The client speaks to the API server the way every in-cluster client does: the service account's
token and CA under `/var/run/secrets/kubernetes.io/serviceaccount`, the address in
`KUBERNETES_SERVICE_HOST`/`PORT`. The official `kubernetes` Python client was weighed and lost: it
is not the standard library, and four requests don't need it.
"""

from __future__ import annotations

import json
import os
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acceptance.report import Report

CONDITION = "railyard.dev/Accepted"
ANNOTATION = "railyard.dev/acceptance"
TAINT_KEY = "railyard.dev/acceptance"
ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")


class ApiError(RuntimeError):
    """The API server refused a request: the message holds the method, the path, the status and what the server said."""

    def __init__(self, method: str, path: str, status: int, body: str):
        super().__init__(f"{method} {path}: HTTP {status}: {body[:300]}")
        self.status = status


@dataclass(frozen=True)
class NodeApi:
    """The few node requests the checker makes, against `base_url` with a bearer token."""

    base_url: str
    token: str
    context: ssl.SSLContext | None = None

    @classmethod
    def in_cluster(cls) -> NodeApi:
        """The client a pod's service account gives it; `OSError` outside a pod."""
        host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT")
        if not host or not port:
            raise OSError("not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset")
        context = ssl.create_default_context(cafile=str(ACCOUNT / "ca.crt"))
        return cls(f"https://{host}:{port}", (ACCOUNT / "token").read_text(encoding="utf-8").strip(), context)

    def request(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> dict[str, Any]:
        """One request; the decoded JSON answer, or `ApiError`."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json", "Content-Type": content_type}
        call = urllib.request.Request(f"{self.base_url}{path}", data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(call, context=self.context, timeout=30) as answer:
                decoded: dict[str, Any] = json.loads(answer.read() or b"{}")
                return decoded
        except urllib.error.HTTPError as exc:
            raise ApiError(method, path, exc.code, exc.read().decode(errors="replace")) from None


def condition(report: Report, now: datetime) -> dict[str, str]:
    """The `railyard.dev/Accepted` node condition for a report."""
    stamp = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    message = "every check passed" if report.passed else f"failed: {', '.join(report.failed) or 'no check ran'}"
    status, reason = ("True", "AcceptancePassed") if report.passed else ("False", "AcceptanceFailed")
    return {"type": CONDITION, "status": status, "reason": reason, "message": message, "lastHeartbeatTime": stamp, "lastTransitionTime": stamp}


def publish(report: Report, node: str, api: NodeApi, lift_taint: bool, now: datetime | None = None) -> bool:
    """Write the condition and the annotation on `node`; when it passed and `lift_taint`, remove the acceptance taint.

    Returns True when the taint was removed (False: it stays, or there was none). A failed node
    keeps its taint: holding it is the point.
    """
    path = f"/api/v1/nodes/{node}"
    status = {"status": {"conditions": [condition(report, now or datetime.now(UTC))]}}
    api.request("PATCH", f"{path}/status", status, "application/strategic-merge-patch+json")
    api.request("PATCH", path, {"metadata": {"annotations": {ANNOTATION: report.as_json()}}}, "application/merge-patch+json")
    if not (report.passed and lift_taint):
        return False
    for _ in range(3):
        current = api.request("GET", path)
        taints = current.get("spec", {}).get("taints") or []
        kept = [taint for taint in taints if taint.get("key") != TAINT_KEY]
        if len(kept) == len(taints):
            return False
        version = current["metadata"]["resourceVersion"]
        patch = [{"op": "test", "path": "/metadata/resourceVersion", "value": version}, {"op": "replace", "path": "/spec/taints", "value": kept}]
        try:
            api.request("PATCH", path, patch, "application/json-patch+json")
            return True
        except ApiError as exc:
            # A failed `test` (the node changed since it was read) answers 409 or 422: read it again.
            if exc.status not in (409, 422):
                raise
    raise ApiError("PATCH", path, 409, "the node kept changing: the taint was not removed after three reads")
