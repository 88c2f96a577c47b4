"""How one run deploys, read from its stack file: shared by the cluster's program and a layer stack's.

It stands apart from `railyard.program` (the cluster's stack) so that `railyard.layer_program` (the layer stack's)
needs nothing of it: program -> layer_program -> deployment, every arrow one way.
"""

from __future__ import annotations

from blueprints.records import record
from components.plan.kubeconfig import DeployerIdentity


@record
class Deployment:
    """How one run deploys, from its stack file: who it acts as, and (for a layer stack) whose cluster it reads.

    `cluster_stack` set means this stack applies only the Kubernetes layer of
    that stack's cluster (`kubernetes.layer_stack: separate`).
    """

    identity: DeployerIdentity = DeployerIdentity()
    cluster_stack: str | None = None
