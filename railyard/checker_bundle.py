"""What the acceptance checkers carry into the cluster, compiled here because only `railyard` may read the `acceptance` package.

`checker_bundle` gives the compiler (`components.kubernetes.acceptance`) the package's source, each
gated pool's expectation (the same JSON `railyard acceptance expect` prints) and the `dcgmi diag`
command that expectation runs, so the DaemonSet's init container runs exactly what the checker would, and, where
a pool replaces its failed nodes, the region whose Auto Scaling endpoint its checker calls.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources

import acceptance
from acceptance.evidence import BURN_IN, DCGM, commands
from blueprints.catalog import Catalog
from blueprints.models import Blueprint
from components.kubernetes.acceptance import AcceptanceBundle
from railyard.expectations import pool_expectation
from topology.cluster.acceptance import AcceptanceGate


def package_sources() -> dict[str, str]:
    """The `acceptance` package's modules as ConfigMap data: `acceptance.<module>.py` -> source (the example evidence left out)."""
    modules = sorted((path for path in resources.files(acceptance).iterdir() if path.name.endswith(".py")), key=lambda path: path.name)
    return {f"acceptance.{path.name}": path.read_text(encoding="utf-8") for path in modules}


def checker_bundle(blueprint: Blueprint, catalog: Catalog, gates: Sequence[AcceptanceGate]) -> AcceptanceBundle:
    """The package, each gated pool's expectation at its level, and each gated NVIDIA pool's DCGM diagnostic command."""
    expectations: dict[str, str] = {}
    diagnostics: dict[str, tuple[str, ...]] = {}
    burn_ins: dict[str, tuple[str, ...]] = {}
    for gate in gates:
        expectation = pool_expectation(blueprint, catalog, gate.pool, gate.level)
        expectations[gate.pool] = json.dumps(expectation.as_dict(), indent=2, sort_keys=True) + "\n"
        for command in commands(expectation):
            if command.file == DCGM:
                diagnostics[gate.pool] = command.argv
            if command.file == BURN_IN:
                burn_ins[gate.pool] = command.argv
    # The region only where a checker calls Auto Scaling, so a cluster that only taints compiles as it did.
    region = blueprint.cloud.region if any(gate.replaces for gate in gates) else ""
    return AcceptanceBundle(package_sources(), expectations, diagnostics, burn_ins, region)
