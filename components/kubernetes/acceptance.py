"""The acceptance gate, emitted: the checker's package and expectations, its rights, and one DaemonSet per gated pool.

`topology.cluster.acceptance.plan_gates` decided where each checker runs; here that becomes objects:

- ConfigMap `railyard-acceptance-checker`: the modules of the `acceptance` package the node checker imports
  (standard library only, what a reviewer reads in one sitting; `railyard.checker_bundle.package_sources`), and
  ConfigMap `railyard-acceptance-<pool>`: the pool's expectation JSON (`railyard acceptance expect`), so a change
  to one pool touches that pool's objects only;
- ServiceAccount, ClusterRole and ClusterRoleBinding `railyard-acceptance`: `get` and `patch` on `nodes`,
  `patch` on `nodes/status`, nothing else. RBAC's `resourceNames` can't name "the node this pod runs on" (a
  ClusterRole is written before any node exists), so the rights reach every node; one role for all pools,
  since a role per pool would grant exactly the same verbs on the same resource. The ValidatingAdmissionPolicy
  `railyard-acceptance-own-node` and its binding narrow them to the node named in the pod's token, and to the
  acceptance taint, condition, label and annotations on it (`components.kubernetes.acceptance_policy`);
- DaemonSet `railyard-acceptance-<pool>` in kube-system, on the pool's nodes labelled `pending`, tolerating their
  taints. NVIDIA pools at a DCGM level run the diagnostic in a step beside the checker, from NVIDIA's DCGM image
  (it holds `dcgmi` and the diagnostic plugins; the checker's Python image does not), writing
  `dcgmi-diag.json` into the shared evidence folder; the checker then records the rest and judges the whole
  folder, publishes the verdict and, on a pass, lifts the taint and relabels the node `passed`, which takes
  the DaemonSet's pod off it. The container then sleeps, so a failed node keeps its pod and its verdict
  without rerunning the diagnostic in a loop. A pool with `on_failure: replace` passes `--replace-on-failure`
  and sets `AWS_REGION`: a failed node's instance is marked Unhealthy for its Auto Scaling group to replace,
  with credentials from the EKS Pod Identity association `components.acceptance_access` makes for the
  same service account (the Pod Identity webhook adds the credential variables to the pod).

Why privileged, and no device requests: a checker that requested `nvidia.com/gpu: 8` or
`vpc.amazonaws.com/efa: 32` would stay Pending on the very node it exists to catch (seven GPUs
advertised, 31 EFA devices), and hold those devices for as long as its pod lives. Privileged, the runtime
gives it the node's device nodes as they are (the NVIDIA runtime adds `nvidia-smi` and the driver's
libraries for `NVIDIA_VISIBLE_DEVICES=all`), `dmesg` reads the kernel log (CAP_SYSLOG), and DCGM can load
the GPUs. It shares no host namespace, mounts the host only for `/sys` (read-only, at `/host/sys`, on EFA pools: the
kernel's RDMA devices and their drivers, which every EFA node has; EKS's AMIs install EFA without libfabric, so there is
no `fi_info` to mount), with `type: Directory`, which never creates anything on the host, and its root filesystem is
read-only.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from blueprints.catalog.pins import load_pins
from blueprints.records import record
from components.kubernetes import acceptance_policy
from topology.cluster.acceptance import AcceptanceGate

NAME = "railyard-acceptance"
NAMESPACE = "kube-system"
CHECKER_CONFIG = f"{NAME}-checker"
ROOT = "/opt/railyard"
EVIDENCE = "/var/lib/railyard/evidence"
BURN_IN_FILE = "dcgmi-burn-in.json"  # acceptance.evidence.BURN_IN: the burn-in's JSON, which the checker judges
# The host's sysfs, where the EFA devices are counted (acceptance.efa.HOST_SYS); /sys is on every Linux node.
HOST_SYS = "/host/sys"
SEARCH_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# acceptance.evidence's Neuron command and file, run in the Neuron image (aws-neuronx-tools, under /opt/aws/neuron/bin).
NEURON_LS = ("neuron-ls", "--json-output")
NEURON_LS_FILE = "neuron-ls.json"
NEURON_SECONDS = 300  # seconds, which coreutils' and BusyBox's `timeout` both read
# The reads (nvidia-smi, sysfs, neuron-ls, dmesg) take seconds; a checker still running after this is stuck.
CHECKER_MINUTES = 10
RULES = (
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]},
    {"apiGroups": [""], "resources": ["nodes/status"], "verbs": ["patch"]},
)


@record
class AcceptanceBundle:
    """What the checkers carry, compiled by `railyard` (the only stage that reads the `acceptance` package).

    `package` maps each ConfigMap key (`acceptance.run.py`) to a source file of the package; `expectations`
    each gated pool to its expectation JSON; `diagnostics` each gated NVIDIA pool at a DCGM level to the
    `dcgmi diag` arguments its expectation runs (acceptance.evidence.commands), so the DCGM step
    runs exactly what the checker would; `burn_ins` each such pool with `burn_in_minutes` to the `dcgmi diag`
    arguments of its burn-in (acceptance.burnin.burn_in_argv), which the same step runs next;
    `region` the cluster's, whose Auto Scaling endpoint the checkers of `on_failure: replace` pools call.
    """

    package: Mapping[str, str]
    expectations: Mapping[str, str]
    diagnostics: Mapping[str, tuple[str, ...]]
    burn_ins: Mapping[str, tuple[str, ...]]
    region: str = ""


def _items(keys: Sequence[str]) -> list[dict[str, str]]:
    """ConfigMap keys (`acceptance.kube.py`) projected to their paths (`acceptance/kube.py`)."""
    return [{"key": key, "path": key.replace(".", "/", key.count(".") - 1)} for key in sorted(keys)]


def _shell(*lines: str) -> list[str]:
    return ["/bin/sh", "-c", "\n".join(lines)]


# What the checker allows a step beside it for its image to be pulled and started, on top of the step's own limit.
STEP_START_MINUTES = 10


@record
class Step:
    """A command that runs beside the checker in an image that carries its tool (DCGM's, Neuron's), its output into the
    evidence folder: its container, and the minutes the checker waits for its marker (`<name>.done`) before judging."""

    name: str
    container: Mapping[str, Any]
    minutes: int

    @property
    def marker(self) -> str:
        """The file the step writes when its command is done, whatever the command's outcome."""
        return f"{EVIDENCE}/{self.name}.done"


def _step_script(marker: str, *lines: str) -> list[str]:
    """A step's command: its lines, then its marker, then sleep (a step that exits would be restarted, and rerun)."""
    return _shell(f"rm -f {marker}", *lines, f"touch {marker}", "exec sleep infinity")


def _waits(steps: Sequence[Step]) -> list[str]:
    """Shell lines that wait for every step's marker, up to its minutes: a step whose image can't be pulled, or that never
    starts, then leaves its file missing, which the checker fails and publishes as missing evidence."""
    lines = []
    for step in steps:
        lines += [
            f"deadline=$(( $(date +%s) + {step.minutes * 60} ))",
            f'while [ ! -e {step.marker} ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 10; done',
        ]
    return lines


def checker_script(gate: AcceptanceGate, steps: Sequence[Step] = ()) -> list[str]:
    """The checker's command: wait for the steps beside it, run and publish within the time limit; on a timeout judge
    what was recorded; then sleep.

    A pool with `on_failure: replace` adds `--replace-on-failure` to both: a node whose reads hung past the limit is
    judged on what was recorded (missing evidence fails), and replaced like any other failed node.
    """
    expect = f"{ROOT}/expect/{gate.pool}.json"
    replace = " --replace-on-failure" if gate.replaces else ""
    return _shell(
        *_waits(steps),
        f'timeout {CHECKER_MINUTES}m python3 -m acceptance run --expect {expect} --into {EVIDENCE} --publish "$NODE_NAME" --lift-taint{replace}',
        "status=$?",
        # 124: `timeout` stopped it; what was recorded is judged (missing evidence fails) and published, the taint kept.
        f'if [ "$status" -eq 124 ]; then python3 -m acceptance check --expect {expect} --from {EVIDENCE} --publish "$NODE_NAME"{replace}; fi',
        "exec sleep infinity",
    )


def diagnostic_lines(gate: AcceptanceGate, argv: Sequence[str], burn_in: Sequence[str] = (), burn_in_minutes: int = 0) -> list[str]:
    """The DCGM step's lines: the diagnostic, then any burn-in, within the pool's timeout, JSON into the evidence folder.

    Each ends `|| true`: a failed or timed-out diagnostic is evidence for the checker to judge and publish, not a
    reason for the kubelet to restart the pod. With a burn-in the diagnostic gets the timeout less the burn-in's
    minutes, and the burn-in whatever of the timeout is left when it starts (one deadline for both); its parameters
    hold `;`, so they are quoted for the shell.
    """
    if not burn_in:
        return [f"timeout {gate.timeout_minutes}m {' '.join(argv)} > {EVIDENCE}/dcgmi-diag.json 2>&1 || true"]
    return [
        f"deadline=$(( $(date +%s) + {gate.timeout_minutes * 60} ))",
        f"timeout {gate.timeout_minutes - burn_in_minutes}m {' '.join(argv)} > {EVIDENCE}/dcgmi-diag.json 2>&1 || true",
        f'timeout "$(( deadline - $(date +%s) ))s" {shlex.join(burn_in)} > {EVIDENCE}/{BURN_IN_FILE} 2>&1 || true',
    ]


def _mounts(efa: bool) -> list[dict[str, Any]]:
    mounts: list[dict[str, Any]] = [{"name": "checker", "mountPath": ROOT, "readOnly": True}, {"name": "evidence", "mountPath": EVIDENCE}]
    if efa:
        mounts.append({"name": "host-sys", "mountPath": HOST_SYS, "readOnly": True})
    return mounts


def _volumes(gate: AcceptanceGate, package: Sequence[str]) -> list[dict[str, Any]]:
    sources = [
        {"configMap": {"name": CHECKER_CONFIG, "items": _items(package)}},
        {"configMap": {"name": f"{NAME}-{gate.pool}", "items": [{"key": f"{gate.pool}.json", "path": f"expect/{gate.pool}.json"}]}},
    ]
    volumes: list[dict[str, Any]] = [
        {"name": "checker", "projected": {"sources": sources, "defaultMode": 0o444}},
        {"name": "evidence", "emptyDir": {"sizeLimit": "64Mi"}},
    ]
    if gate.efa:
        # Directory: the kubelet checks it exists and creates nothing (DirectoryOrCreate, or no type, would make a missing
        # path on the host); /sys is on every node, so the pod never waits in ContainerCreating for it.
        volumes.append({"name": "host-sys", "hostPath": {"path": "/sys", "type": "Directory"}})
    return volumes


PRIVILEGED = {"privileged": True, "readOnlyRootFilesystem": True}
RESOURCES = {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}}
# DCGM's diagnostic gets no memory limit: no source sizes an embedded host engine with the NVVS plugins on 8 GPUs, and a
# limit it passed would OOM-kill the step into a restart loop with no verdict. Nothing else runs on the tainted
# node. Google's DCGM health check on GKE sets none either (GoogleCloudPlatform/cluster-health-scanner
# deploy/helm/health_checks/gpu_healthcheck/templates/gpu_healthcheck.yaml @ 193bb214: GPU limits only).
DIAGNOSTIC_RESOURCES = {"requests": {"cpu": "100m", "memory": "128Mi"}}


def pod_spec(gate: AcceptanceGate, bundle: AcceptanceBundle) -> dict[str, Any]:
    """The checker pod of one gated pool: placed by the gate, the checker beside the steps whose evidence it waits for."""
    pins = load_pins()
    env: list[dict[str, Any]] = [
        {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "PYTHONPATH", "value": ROOT},
        {"name": "PATH", "value": SEARCH_PATH},
    ]
    if gate.vendor == "nvidia":
        env += [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}, {"name": "NVIDIA_DRIVER_CAPABILITIES", "value": "utility"}]
    if gate.replaces:
        if not bundle.region:
            raise ValueError(f"pool {gate.pool!r} replaces failed nodes: give the bundle the cluster's region")
        env.append({"name": "AWS_REGION", "value": bundle.region})
    steps = _steps(gate, bundle)
    checker = {
        "name": "checker",
        # One image for every pool: its Python (3.13) is published, and the checker needs 3.11 or later.
        "image": pins.image("gate_keeper_python").reference,
        "command": checker_script(gate, steps),
        "env": env,
        "securityContext": PRIVILEGED,
        "resources": RESOURCES,
        "volumeMounts": _mounts(gate.efa),
    }
    return {
        "serviceAccountName": NAME,
        "priorityClassName": "system-node-critical",
        "affinity": gate.placement.affinity(),
        "tolerations": gate.placement.tolerations_k8s(),
        # The checker first; the steps beside it, not before it: a step whose image can't be pulled then holds nothing
        # up, and the checker publishes its file as missing once the step's minutes are past.
        "containers": [checker, *(dict(step.container) for step in steps)],
        "volumes": _volumes(gate, sorted(bundle.package)),
    }


def _steps(gate: AcceptanceGate, bundle: AcceptanceBundle) -> list[Step]:
    """The steps beside a pool's checker: DCGM's diagnostic (and burn-in) on NVIDIA pools at a DCGM level, `neuron-ls` on Neuron pools."""
    steps = []
    argv = bundle.diagnostics.get(gate.pool)
    if argv:
        name = "dcgm-diag"
        lines = diagnostic_lines(gate, argv, bundle.burn_ins.get(gate.pool, ()), gate.burn_in_minutes)
        container = {
            "name": name,
            "image": load_pins().image("dcgm").reference,
            "command": _step_script(f"{EVIDENCE}/{name}.done", *lines),
            "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}],
            "securityContext": PRIVILEGED,
            "resources": DIAGNOSTIC_RESOURCES,
            "volumeMounts": [{"name": "evidence", "mountPath": EVIDENCE}],
        }
        steps.append(Step(name, container, gate.timeout_minutes + STEP_START_MINUTES))
    if gate.vendor == "aws":
        steps.append(Step("neuron-ls", neuron_ls_container(), NEURON_SECONDS // 60 + STEP_START_MINUTES))
    return steps


def neuron_ls_container() -> dict[str, Any]:
    """A Neuron pool's step: `neuron-ls` in the Neuron image, its JSON into the evidence folder.

    The Neuron image (`neuron-monitor`, which installs aws-neuronx-tools) carries `neuron-ls`, but its Python version
    is published nowhere, so the checker runs in the Python image and judges this file, as it judges DCGM's. The image
    is known to have a shell (its entrypoint is `/opt/bin/entrypoint.sh`), not that it has coreutils' `timeout`, so
    the limit applies where `timeout` exists.
    """
    run = f"{' '.join(NEURON_LS)} > {EVIDENCE}/{NEURON_LS_FILE} 2>&1 || true"
    return {
        "name": "neuron-ls",
        "image": load_pins().image("neuron_monitor").reference,
        "command": _step_script(
            f"{EVIDENCE}/neuron-ls.done", f"if command -v timeout >/dev/null 2>&1; then timeout {NEURON_SECONDS} {run}; else {run}; fi"
        ),
        "env": [{"name": "PATH", "value": f"/opt/aws/neuron/bin:{SEARCH_PATH}"}],
        "securityContext": PRIVILEGED,
        "resources": RESOURCES,
        "volumeMounts": [{"name": "evidence", "mountPath": EVIDENCE}],
    }


def daemon_set(gate: AcceptanceGate, bundle: AcceptanceBundle) -> dict[str, Any]:
    """The DaemonSet spec of one gated pool's checker."""
    labels = {"app.kubernetes.io/name": NAME, "railyard.dev/pool": gate.pool}
    return {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": pod_spec(gate, bundle)}}


class AcceptanceGates(pulumi.ComponentResource):
    """The checkers of one cluster's gated pools (`railyard:kubernetes:AcceptanceGates`)."""

    def __init__(
        self,
        name: str,
        gates: Sequence[AcceptanceGate],
        bundle: AcceptanceBundle,
        provider: pulumi.ProviderResource,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("railyard:kubernetes:AcceptanceGates", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        meta = k8s.meta.v1.ObjectMetaArgs

        account = k8s.core.v1.ServiceAccount(f"{name}-account", metadata=meta(name=NAME, namespace=NAMESPACE), opts=child)
        role = k8s.rbac.v1.ClusterRole(f"{name}-role", metadata=meta(name=NAME), rules=[dict(rule) for rule in RULES], opts=child)
        subject = {"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}
        ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME}
        binding = k8s.rbac.v1.ClusterRoleBinding(f"{name}-binding", metadata=meta(name=NAME), role_ref=ref, subjects=[subject], opts=child)
        # The role reaches every node; the policy holds the account to its own node's acceptance marks.
        policy = k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
            f"{name}-own-node", metadata=meta(name=acceptance_policy.NAME), spec=acceptance_policy.policy_spec(NAME, NAMESPACE), opts=child
        )
        held = k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
            f"{name}-own-node-binding",
            metadata=meta(name=acceptance_policy.NAME),
            spec=acceptance_policy.binding_spec(),
            opts=pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[policy]),
        )
        package = k8s.core.v1.ConfigMap(
            f"{name}-checker", metadata=meta(name=CHECKER_CONFIG, namespace=NAMESPACE), data=dict(sorted(bundle.package.items())), opts=child
        )
        after = pulumi.ResourceOptions(parent=self, provider=provider, depends_on=[account, role, binding, held, package])
        self.daemon_sets = {}
        for gate in gates:
            expectation = k8s.core.v1.ConfigMap(
                f"{name}-{gate.pool}-expectation",
                metadata=meta(name=f"{NAME}-{gate.pool}", namespace=NAMESPACE),
                data={f"{gate.pool}.json": bundle.expectations[gate.pool]},
                opts=child,
            )
            self.daemon_sets[gate.pool] = k8s.apps.v1.DaemonSet(
                f"{name}-{gate.pool}",
                metadata=meta(name=f"{NAME}-{gate.pool}", namespace=NAMESPACE),
                spec=daemon_set(gate, bundle),
                opts=pulumi.ResourceOptions.merge(after, pulumi.ResourceOptions(depends_on=[expectation])),
            )
        self.register_outputs({"pools": sorted(self.daemon_sets)})
