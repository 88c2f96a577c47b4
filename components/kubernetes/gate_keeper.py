"""railyard's node gate keeper: lifts a gate's taint from this pod's node once the node says the gate is ready.

It runs on the node, in the railyard-node-gates DaemonSet, so it stands alone:
the standard library only, nothing of railyard, its whole configuration in
two environment variables, and short enough to read before approving it.

* `NODE_NAME`: the node it runs on (the downward API's `spec.nodeName`).
* `RAILYARD_GATES`: JSON, `[{"name": "lnet", "taint_key": "railyard.dev/lnet",
  "path": "/run/railyard/gates/lnet"}]`.

Every 15 seconds, for each gate, it reads the gate's file (written on the
node by the unit the gate waits for: `ready`, or `failed: <why>`), and makes
the node agree: `ready` means no taint with the gate's key; anything else
(no file yet, a failure, a reboot that emptied /run) means the taint
`<key>=pending:NoSchedule`. It records the file's text in the node's
annotation `railyard.dev/gate.<name>`, so `kubectl describe node` says why a
node is held. It needs `get` and `patch` on nodes and nothing else. The node
can't do this itself: the NodeRestriction admission plugin refuses a kubelet
that changes its own taints.

The patch is a JSON patch whose first operation tests the taints it read,
so a concurrent change by someone else makes it fail and retry on the next
round instead of overwriting it.
"""

from __future__ import annotations

import json
import os
import ssl
import sys
import time
import urllib.request
from collections.abc import Callable

API = "https://kubernetes.default.svc"
ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
PENDING = "pending"
ROUND_SECONDS = 15


def verdict(path: str) -> str:
    """The gate file's first line, or '' when the node has written none yet."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline().strip()
    except OSError:
        return ""


def reconcile(node: dict, gates: list[dict], read: Callable[[str], str]) -> list[dict]:
    """The JSON patch that makes `node` agree with its gates' files (empty when it already does)."""
    spec_taints = (node.get("spec") or {}).get("taints")
    taints = list(spec_taints or [])
    annotations = (node.get("metadata") or {}).get("annotations") or {}
    wanted = [taint for taint in taints if taint.get("key") not in {gate["taint_key"] for gate in gates}]
    notes = {}
    for gate in gates:
        said = read(gate["path"])
        held = [taint for taint in taints if taint.get("key") == gate["taint_key"]]
        if said != "ready":
            wanted.append(held[0] if held else {"key": gate["taint_key"], "value": PENDING, "effect": "NoSchedule"})
        note = said or PENDING
        if annotations.get(f"railyard.dev/gate.{gate['name']}") != note:
            notes[f"railyard.dev/gate.{gate['name']}"] = note
    patch = []
    if wanted != taints:
        patch.append({"op": "test", "path": "/spec/taints", "value": spec_taints} if spec_taints is not None else None)
        patch.append({"op": "replace" if spec_taints is not None else "add", "path": "/spec/taints", "value": wanted})
    if notes:
        if not annotations:
            patch.append({"op": "add", "path": "/metadata/annotations", "value": notes})
        else:
            patch += [
                {"op": "add", "path": "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1"), "value": value}
                for key, value in notes.items()
            ]
    return [operation for operation in patch if operation is not None]


def _request(method: str, path: str, body: list | None = None) -> dict:
    with open(f"{ACCOUNT}/token", encoding="utf-8") as handle:
        token = handle.read().strip()
    context = ssl.create_default_context(cafile=f"{ACCOUNT}/ca.crt")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(API + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", "application/json-patch+json")
    with urllib.request.urlopen(request, context=context, timeout=10) as response:
        return json.loads(response.read())


def main() -> None:
    """Reconcile this node's gates every ROUND_SECONDS, forever; an API error is logged and retried next round."""
    node_name = os.environ["NODE_NAME"]
    gates = json.loads(os.environ["RAILYARD_GATES"])
    while True:
        try:
            patch = reconcile(_request("GET", f"/api/v1/nodes/{node_name}"), gates, verdict)
            if patch:
                _request("PATCH", f"/api/v1/nodes/{node_name}", patch)
                print(f"node {node_name}: {json.dumps(patch)}", flush=True)
        except Exception as problem:  # noqa: BLE001 (a keeper that stops leaves nodes held; it logs and tries again)
            print(f"node {node_name}: {problem}", file=sys.stderr, flush=True)
        time.sleep(ROUND_SECONDS)


if __name__ == "__main__":
    main()
