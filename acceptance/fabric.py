"""A GPU's place in a multi-node NVLink domain (GB200 NVL72) and its link to the Grace CPU, as `nvidia-smi -q` reports them.

What a healthy GB200 compute tray shows, per GPU, in the `Fabric` section (the field names are the driver's: the text
prints `State`, `Status`, `CliqueId`, `ClusterUUID` and `Health/Summary`, the XML `fabric/state`, `fabric/status`,
`fabric/cliqueId`, `fabric/clusterUuid`, `fabric/health/summary`, both in the H100 capture of driver 580.159.04):
- `State : Completed`, `Status : Success`: the GPU registered with the NVLink fabric. NVML's own rule is that the
  status means anything only once the state is complete (NVML `nvmlGpuFabricInfo_v3_t`: "Must be checked only if Probe
  state returns 'complete'"); a real GB200 node reads `Completed`/`Success` (leptonai/gpud#1106, driver logs of a
  GB200). The other states are `Not Started` and `In Progress` (NVIDIA/NVSentinel#883; a GPU whose fabric manager
  never finished stays `In Progress`, NVIDIA/NVSentinel#889).
- a `CliqueId` other than 0 and a `ClusterUUID` other than all zeros: Azure's HPC image validation fails a node reading
  `State : Completed`, `Status : Insufficient Resources`, `CliqueId : 0`, `ClusterUUID : 00000000-0000-0000-0000-000000000000`
  (Azure/azhpc-images#506, which also requires `Completed`, `Success`, a non-zero clique and a non-zero cluster UUID).
- `Health/Summary` not `Unhealthy`: a node reading `Completed`, `Success`, `CliqueId : 2` and `Summary : Unhealthy`
  is one the DRA driver then treats as outside the fabric (kubernetes-sigs/dra-driver-nvidia-gpu#626). A GB200 whose
  driver does not report health prints `Not Supported` (gpud#1106), which passes.
- one clique and one cluster UUID for every GPU of the tray: the four GPUs of a p6e-gb200 are one NVLink domain's.
The check applies only where the design's NVLink domain spans instances: a single-node NVSwitch board reads
`Completed`/`Success` with `CliqueId : 0` and a zero cluster UUID (a real H200 SXM, driver 550.90.12: thamada/gls
gls/H200_smi.py; meta-pytorch/torchcomms#1385 for H100), which is right for it and wrong for a GB200.
And `GPU C2C Mode : Enabled`: the GPU's NVLink-C2C link to its Grace CPU is up (a real GH200 reads `Enabled`, an
H100 SXM5 `Disabled`: the capture; NVIDIA/k8s-test-infra#639 gives `Enabled` for its GB200 profile).
"""

from __future__ import annotations

from acceptance.expectation import Expectation
from acceptance.report import Checks
from acceptance.smi import Gpu, per_gpu

HEALTHY_SUMMARIES = frozenset({"Healthy", "Not Supported"})


def fabric_fault(gpu: Gpu) -> str:
    """What keeps the GPU out of its NVLink domain, in words ("" when it has joined and is healthy)."""
    faults = []
    if gpu.fabric_state != "Completed":
        faults.append(f"state {gpu.fabric_state or 'N/A'}")
    elif gpu.fabric_status != "Success":
        faults.append(f"status {gpu.fabric_status or 'N/A'}")
    if gpu.clique_id in (None, "0"):
        faults.append(f"clique {gpu.clique_id or 'N/A'}")
    if gpu.cluster_uuid is None or not gpu.cluster_uuid.strip("0-"):
        faults.append(f"cluster {gpu.cluster_uuid or 'N/A'}")
    if gpu.fabric_health is not None and gpu.fabric_health not in HEALTHY_SUMMARIES:
        faults.append(f"health {gpu.fabric_health}")
    return ", ".join(faults)


def _describe(gpu: Gpu) -> str:
    return fabric_fault(gpu) or f"Completed, clique {gpu.clique_id}"


def fabric_checks(expectation: Expectation, indexed: list[tuple[int, Gpu]], checks: Checks) -> None:
    """`gpu.fabric` (every GPU joined one NVLink domain, healthy) and `gpu.c2c` (every GPU's C2C link up), where expected."""
    if expectation.nvlink_fabric:
        expected = "every GPU's fabric Completed with Success, a non-zero clique and cluster, not Unhealthy, one domain for all"
        domains = {(g.clique_id, g.cluster_uuid) for _, g in indexed}
        if len(domains) > 1 and not any(fabric_fault(g) for _, g in indexed):
            # Every GPU joined a domain, but not the same one.
            split = "; ".join(f"GPU {i} ({g.bus_id}): clique {g.clique_id} of {g.cluster_uuid}" for i, g in indexed)
            checks.add("gpu.fabric", False, expected, f"{len(domains)} NVLink domains: {split}")
        else:
            per_gpu(checks, "gpu.fabric", indexed, lambda g: bool(fabric_fault(g)), expected, _describe)
    if expectation.c2c:
        per_gpu(
            checks, "gpu.c2c", indexed, lambda g: g.c2c_mode != "Enabled", "GPU C2C Mode Enabled on every GPU", lambda g: f"C2C {g.c2c_mode or 'N/A'}"
        )
