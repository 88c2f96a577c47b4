"""The evidence folder: one JSON file per read call, as the AWS CLI and kubectl print it.

`railyard conform --record DIR` writes it (`railyard.online.cluster`) and `--from DIR` reads it back
(`read_evidence`), so the live path and the offline judge share one contract: these names and these
shapes. Each AWS file is what `aws <service> <operation> --output json` prints once the CLI has
followed every page (the pages' lists joined under the operation's own result key); each Kubernetes
file is what `kubectl get <kind> -o json` prints (a `List` object). Nothing railyard-specific is
added, so a folder recorded by hand with the CLI is judged the same way.

A file that is absent, unreadable or not a JSON object is kept as a `Problem`: the checks that need
it report that they could not run, never a pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from blueprints.records import record

INSTANCES = "ec2-describe-instances.json"
TOPOLOGY = "ec2-describe-instance-topology.json"
RESERVATIONS = "ec2-describe-capacity-reservations.json"
BLOCK_STATUS = "ec2-describe-capacity-block-status.json"
CLUSTER = "eks-describe-cluster.json"
FILE_SYSTEMS = "fsx-describe-file-systems.json"
NODES = "kubectl-get-nodes.json"
DAEMONSETS = "kubectl-get-daemonsets.json"
DEPLOYMENTS = "kubectl-get-deployments.json"
PODS = "kubectl-get-pods.json"
VOLUMES = "kubectl-get-persistentvolumes.json"
CLAIMS = "kubectl-get-persistentvolumeclaims.json"
KUEUE_TOPOLOGIES = "kubectl-get-topologies.json"
KUEUE_FLAVORS = "kubectl-get-resourceflavors.json"
COMPUTE_DOMAINS = "kubectl-get-computedomains.json"
NODEGROUP_PREFIX = "eks-describe-nodegroup-"

# The file name -> the command that prints it (docs/conform.md lists the same table; a test keeps them equal).
COMMANDS: dict[str, str] = {
    INSTANCES: "aws ec2 describe-instances --filters Name=tag:eks:cluster-name,Values=CLUSTER --output json",
    TOPOLOGY: "aws ec2 describe-instance-topology --instance-ids ID... --output json",
    RESERVATIONS: "aws ec2 describe-capacity-reservations --capacity-reservation-ids ID... --output json",
    BLOCK_STATUS: "aws ec2 describe-capacity-block-status --capacity-block-ids ID... --output json",
    CLUSTER: "aws eks describe-cluster --name CLUSTER --output json",
    NODEGROUP_PREFIX + "NAME.json": "aws eks describe-nodegroup --cluster-name CLUSTER --nodegroup-name NAME --output json",
    FILE_SYSTEMS: "aws fsx describe-file-systems --output json",
    NODES: "kubectl get nodes -o json",
    DAEMONSETS: "kubectl get daemonsets -A -o json",
    DEPLOYMENTS: "kubectl get deployments -A -o json",
    PODS: "kubectl get pods -A -o json",
    VOLUMES: "kubectl get persistentvolumes -o json",
    CLAIMS: "kubectl get persistentvolumeclaims -A -o json",
    KUEUE_TOPOLOGIES: "kubectl get topologies.kueue.x-k8s.io -o json",
    KUEUE_FLAVORS: "kubectl get resourceflavors.kueue.x-k8s.io -o json",
    COMPUTE_DOMAINS: "kubectl get computedomains.resource.nvidia.com -A -o json",
}


def nodegroup_file(name: str) -> str:
    """The file of one node group's DescribeNodegroup answer."""
    return f"{NODEGROUP_PREFIX}{name}.json"


@record
class Problem:
    """Why a file of the folder can't be used: it is missing, unreadable, or not the JSON object expected."""

    file: str
    reason: str


@record
class Evidence:
    """The folder's documents by file name, and the files that could not be used."""

    folder: str
    documents: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    problems: Mapping[str, Problem] = field(default_factory=dict)

    def get(self, name: str) -> dict[str, Any] | None:
        """The document of file `name`, or None when it is missing or unusable (`problem` says why)."""
        return self.documents.get(name)

    def problem(self, name: str) -> Problem:
        """Why `name` can't be used (a file never read counts as missing)."""
        return self.problems.get(name) or Problem(name, "missing")


def read_evidence(folder: str | Path) -> Evidence:
    """Every `*.json` file of `folder`; a folder that can't be listed gives an Evidence with no documents."""
    root = Path(folder)
    documents: dict[str, dict[str, Any]] = {}
    problems: dict[str, Problem] = {}
    try:
        paths = sorted(path for path in root.iterdir() if path.suffix == ".json")
    except OSError as exc:
        return Evidence(str(root), {}, {"": Problem(str(root), f"the folder can't be read ({exc.strerror})")})
    for path in paths:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            problems[path.name] = Problem(path.name, f"unreadable ({exc.strerror})")
            continue
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems[path.name] = Problem(path.name, f"not JSON ({exc})")
            continue
        if not isinstance(document, dict):
            problems[path.name] = Problem(path.name, f"not a JSON object (a {type(document).__name__})")
            continue
        documents[path.name] = document
    return Evidence(str(root), documents, problems)


def _as_text(value: Any) -> str:
    """How the AWS CLI prints a timestamp botocore parsed: ISO 8601 with the offset."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def dumps(document: Mapping[str, Any]) -> str:
    """The text of one file: 4-space indented JSON as the AWS CLI and kubectl print it, keys in their order."""
    return json.dumps(document, indent=4, ensure_ascii=False, default=_as_text) + "\n"


def write_document(folder: str | Path, name: str, document: Mapping[str, Any]) -> Path:
    """Write one file of the folder (made if needed) and return its path."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    path = root / name
    path.write_text(dumps(document), encoding="utf-8")
    return path
