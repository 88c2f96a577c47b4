"""What the acceptance checkers carry into the cluster, compiled here because only `railyard` may read the `acceptance` package.

`checker_bundle` gives the compiler (`components.kubernetes.acceptance`) the package's source, each
gated pool's expectation (the same JSON `railyard acceptance expect` prints) and the `dcgmi diag`
command that expectation runs, so the DaemonSet's init container runs exactly what the checker would, and, where
a pool replaces its failed nodes, the region whose Auto Scaling endpoint its checker calls.
"""

from __future__ import annotations

import ast
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

# What a node runs: `python -m acceptance`, which loads the package's __init__ and __main__ first.
ENTRY_MODULES = ("__init__", "__main__")


def _imported(source: str) -> set[str]:
    """The `acceptance` modules a module's source imports (`from acceptance.x import ...`, `import acceptance.x`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("acceptance."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("acceptance."))
    return found


def package_sources() -> dict[str, str]:
    """The modules the checker runs on a node, as ConfigMap data: `acceptance.<module>.py` -> source.

    Only what `python -m acceptance` imports, followed module by module: the fabric judges (`nccl`, `nccom`,
    `baseline`, `regression`), which run on a reviewer's machine, stay out, so a change to them does not touch the
    ConfigMap or restart the checkers on nodes still held.
    """
    package = resources.files(acceptance)
    sources: dict[str, str] = {}
    waiting = list(ENTRY_MODULES)
    while waiting:
        module = waiting.pop()
        if module in sources:
            continue
        sources[module] = package.joinpath(f"{module}.py").read_text(encoding="utf-8")
        waiting += sorted(_imported(sources[module]) - set(sources))
    return {f"acceptance.{module}.py": sources[module] for module in sorted(sources)}


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
