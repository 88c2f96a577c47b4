"""The cross-layer check: the Kubernetes layer against the node groups it runs on.

`check_kubernetes(blueprint, catalog)` lays out the layer
(`lay_out_kubernetes`, the layout the compiler emits) and proves, node group by node group:
every accelerator and EFA pool has its device plugin and no plugin serves a
pool without its device (`k8s.missing-plugin`, `k8s.unused-plugin`); every
label a plugin selector, a Kueue flavor or a Topology level names is set on
the nodes it targets, by the node group or by AWS for that instance type
(`k8s.label-not-set`); every blocking taint of a pool is tolerated by the
plugins that must run there (`k8s.untolerated-taint`); each flavor's quota
equals the accelerators its nodes hold (`k8s.quota-mismatch`; the Kueue rules are in
`topology.cluster.kueue_checks`). Names of pools that don't exist are `k8s.unknown-pool`; Kueue's 8-toleration limit is
`k8s.flavor-limit`. Rules are registered in `RULES`; each is a pure function
of the layout and returns findings with a path to the YAML to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from blueprints.catalog import Catalog
from blueprints.catalog.system_types import load_system_types
from blueprints.findings import Finding, Path, error
from blueprints.models import Blueprint
from blueprints.records import record
from topology.cluster.acceptance import CODES as ACCEPTANCE_CODES
from topology.cluster.acceptance import gate_findings
from topology.cluster.acceptance_karpenter import CODES as KARPENTER_CODES
from topology.cluster.acceptance_karpenter import karpenter_findings
from topology.cluster.acceptance_replace import CODES as REPLACE_CODES
from topology.cluster.acceptance_replace import replace_findings
from topology.cluster.device_plugins import PluginPlacement, needs
from topology.cluster.health import CODES as HEALTH_CODES
from topology.cluster.health import health_findings
from topology.cluster.kubernetes import KubernetesLayout, lay_out_kubernetes
from topology.cluster.kueue import FlavorPlan
from topology.cluster.kueue_checks import check_flavor_pools, check_quota
from topology.cluster.labels import GATE_TAINT_KEYS, NVLINK_CLIQUE_LABEL, ULTRASERVER_LABEL
from topology.cluster.node_gates import CODES as GATE_CODES
from topology.cluster.node_gates import check_gates
from topology.cluster.node_groups import NodeGroupPlan
from topology.cluster.scheduling import NodeGroupView, Placement

FAMILIES = {
    "nvidia": ("nvidia_device_plugin", "gpu_operator"),
    "aws": ("neuron_device_plugin",),
    "efa": ("efa_device_plugin",),
}
KUEUE_MAX_TOLERATIONS = 8


@record
class Rule:
    """A registered cross-layer rule."""

    name: str
    codes: tuple[str, ...]
    check: Callable[[Blueprint, KubernetesLayout], Iterable[Finding]]


def _plugin_path(plugin: PluginPlacement, *rest: str | int) -> Path:
    return ("kubernetes", "device_plugins", plugin.index, *rest)


def _device(view: NodeGroupView, family: str) -> str:
    """What a node of `view` has that the family's plugin advertises, for messages."""
    if family == "efa":
        return f"{view.efa_interfaces} EFA interfaces (vpc.amazonaws.com/efa)"
    accelerator = view.spec.accelerator
    assert accelerator is not None, "only nodes with a GPU or a Neuron device need its plugin"
    return f"{accelerator.count} {accelerator.model} per node ({view.spec.accelerator_resource})"


def check_coverage(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """Every pool with a device has a plugin listed for it; every plugin serves pools with its device."""
    pools = layout.by_pool()
    for family, kinds in FAMILIES.items():
        listed = [plugin for plugin in layout.plugins if plugin.kind in kinds]
        for pool, views in pools.items():
            view = views[0]
            if not needs(kinds[0], view):
                continue
            if not listed:
                field = "fabric" if family == "efa" else "instance_type"
                yield error(
                    "k8s.missing-plugin",
                    ("pools", view.pool_index, field),
                    f"pool '{pool}' ({view.spec.name}) has {_device(view, family)}, but kubernetes.device_plugins lists no {' or '.join(kinds)}; "
                    "the device is never advertised and pods requesting it stay Pending",
                    f"add `- kind: {kinds[0]}` to kubernetes.device_plugins",
                    pool=pool,
                    kinds=list(kinds),
                )
            elif not any(pool in plugin.pools for plugin in listed):
                plugin = listed[0]
                yield error(
                    "k8s.missing-plugin",
                    _plugin_path(plugin, "pools"),
                    f"{plugin.kind} runs only on pools {list(plugin.pools)}, but pool '{pool}' "
                    f"({view.spec.name}) has {_device(view, family)} and no plugin",
                    f"add '{pool}' to the plugin's pools, or remove `pools` to serve every pool with the device",
                    pool=pool,
                )
    yield from _unused(layout, pools)


def _unused(layout: KubernetesLayout, pools: dict[str, list[NodeGroupView]]) -> Iterable[Finding]:
    """Plugins that serve nothing, name unknown pools, or land on pools without their device."""
    for plugin in layout.plugins:
        unknown = [pool for pool in plugin.pools if pool not in pools]
        if unknown:
            yield error(
                "k8s.unknown-pool",
                _plugin_path(plugin, "pools"),
                f"{plugin.kind} names pool(s) {unknown}, which the blueprint doesn't have (pools: {list(pools)})",
                "use names from `pools[].name`",
                unknown=unknown,
            )
        useless = [pool for pool in plugin.pools if pool in pools and not needs(plugin.kind, pools[pool][0])]
        if not plugin.pools and "pools" in plugin.overridden:
            yield error(
                "k8s.unused-plugin",
                _plugin_path(plugin, "pools"),
                f"{plugin.kind} is limited to no pool (pools: [])",
                "list the pools it serves, or remove `pools`",
                kind=plugin.kind,
            )
        elif not [pool for pool in plugin.pools if pool in pools]:
            yield error(
                "k8s.unused-plugin",
                _plugin_path(plugin),
                f"{plugin.kind} has nothing to do: no pool has {plugin.resource}",
                "remove it from kubernetes.device_plugins",
                kind=plugin.kind,
            )
        elif useless:
            types = sorted({pools[pool][0].spec.name for pool in useless})
            yield error(
                "k8s.unused-plugin",
                _plugin_path(plugin, "pools"),
                f"{plugin.kind} lands on pool(s) {useless} ({', '.join(types)}), whose nodes have no {plugin.resource}",
                f"remove {useless} from the plugin's pools",
                pools=useless,
            )


def _served(plugin: PluginPlacement, layout: KubernetesLayout) -> list[NodeGroupView]:
    """The node groups a plugin must run on: those of its pools that have its device."""
    return [view for view in layout.nodes if view.pool in plugin.pools and needs(plugin.kind, view)]


def _selector_path(plugin: PluginPlacement, unmet: list[str]) -> Path:
    """Point at the node_selector key that fails, when the user wrote one; else at the plugin."""
    if "node_selector" in plugin.overridden:
        key = next((item.split("=", 1)[0] for item in unmet if "=" in item), None)
        if key is not None:
            return _plugin_path(plugin, "node_selector", key)
    return _plugin_path(plugin)


def _label_finding(path: Path, who: str, unmet: list[str], view: NodeGroupView, hint: str) -> Finding:
    return error(
        "k8s.label-not-set",
        path,
        f"{who} requires {', '.join(unmet)}, but nodes of pool '{view.pool}' in '{view.domain}' ({view.spec.name}) don't carry it; "
        f"their node group sets {', '.join(f'{key}={value}' for key, value in sorted(view.labels.items()))} (AWS adds instance type, zone, hostname)",
        hint,
        node_group=view.name,
        unmet=unmet,
    )


def check_labels(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """Plugin selectors, the FSx node plugin, flavor labels and topology levels name labels the nodes carry."""
    for plugin in layout.plugins:
        for view in _served(plugin, layout):
            unmet = plugin.placement.unmet(view.all_labels())
            if unmet:
                hint = f"add the label to pools[{view.pool_index}].labels, or remove it from the plugin's node_selector"
                yield _label_finding(_selector_path(plugin, unmet), plugin.kind, unmet, view, hint)
    mounts = layout.mounts
    if mounts.placement:
        for view in (view for view in layout.nodes if view.pool in mounts.pools):
            unmet = mounts.placement.unmet(view.all_labels())
            if unmet:
                yield _label_finding(
                    ("pools", view.pool_index, "storage"), "the FSx CSI node plugin", unmet, view, "report this: railyard derived the selector"
                )
    yield from _flavor_labels(layout)


def _flavor_labels(layout: KubernetesLayout) -> Iterable[Finding]:
    """Each flavor's node labels and topology levels are set on every node group of its pool."""
    if layout.kueue is None:
        return
    pools = layout.by_pool()
    for flavor in layout.kueue.flavors:
        base: Path = ("kubernetes", "kueue", "flavors", flavor.entry) if flavor.entry is not None else ("pools", flavor.pool_index)
        for view in pools[flavor.pool]:
            labels = view.all_labels()
            unmet = Placement(flavor.node_labels).unmet(labels)
            if unmet:
                key = unmet[0].split("=", 1)[0]
                path = (*base, "node_labels", key) if flavor.entry is not None else base
                yield _label_finding(path, f"Kueue flavor '{flavor.pool}'", unmet, view, "use labels the pool's nodes carry, e.g. railyard.dev/pool")
            for index, level in enumerate(flavor.topology.levels):
                if level not in labels:
                    path = (*base, "topology_levels", index) if flavor.entry is not None else base
                    yield _level_finding(path, flavor, level, view)


def _level_finding(path: Path, flavor: FlavorPlan, level: str, view: NodeGroupView) -> Finding:
    layers = view.spec.topology_layers
    spans = view.spec.scale_up is not None and view.spec.scale_up.instances_per_domain > 1
    if level.startswith(ULTRASERVER_LABEL.format("")):
        who = "the Neuron device plugin sets UltraServer ids, " + (
            "and it isn't deployed (kubernetes.device_plugins: neuron_device_plugin)"
            if spans
            else f"on the nodes of an UltraServer only, and {view.spec.name} is not one"
        )
    elif level == NVLINK_CLIQUE_LABEL:
        who = "NVIDIA's GPU feature discovery sets the NVLink clique, " + (
            "and it isn't deployed (kubernetes.device_plugins: gpu_operator)"
            if spans
            else f"on the nodes of a multi-node NVLink domain only, and {view.spec.name} is not one"
        )
    elif layers:
        who = f"AWS labels {view.spec.name} with {layers} network-node layer(s)"
    else:
        who = f"AWS sets no network-node layers on {view.spec.name}"
    return error(
        "k8s.label-not-set",
        path,
        f"Kueue Topology '{flavor.topology.name}' level '{level}' is not set on nodes of pool '{view.pool}' in '{view.domain}': {who}, "
        "so Kueue finds no topology domain at that level and the flavor's workloads never fit",
        f"drop '{level}', or remove topology_levels to derive zone, failure domain, the type's network layers, its UltraServer ids and hostname",
        node_group=view.name,
        level=level,
        network_layers=layers,
    )


def _taint_path(plugin: PluginPlacement, view: NodeGroupView) -> Path:
    if "tolerations" in plugin.overridden:
        return _plugin_path(plugin, "tolerations")
    return ("pools", view.pool_index, "taints")


def check_taints(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """Plugins tolerate every blocking taint of the node groups they must run on; flavors stay within Kueue's limit."""
    for plugin in layout.plugins:
        for view in _served(plugin, layout):
            if not plugin.placement.selects(view.all_labels()):
                continue  # reported as k8s.label-not-set
            # A gate's taint is k8s.gate-untolerated's to report (topology.cluster.node_gates).
            for taint in (t for t in plugin.placement.untolerated(view.taints) if t.key not in GATE_TAINT_KEYS):
                yield error(
                    "k8s.untolerated-taint",
                    _taint_path(plugin, view),
                    f"{plugin.kind} doesn't tolerate taint {taint.key}={taint.value}:{taint.effect} of pool '{view.pool}' "
                    f"(tolerates {[toleration.describe() for toleration in plugin.placement.tolerations]}); its pods never start there and "
                    f"{plugin.resource} is never advertised",
                    f"add {{key: {taint.key}, value: '{taint.value}', effect: {taint.effect}}} to the plugin's "
                    "tolerations, or remove `tolerations` to derive them",
                    node_group=view.name,
                    taint=f"{taint.key}={taint.value}:{taint.effect}",
                )
    if layout.kueue is not None:
        for flavor in layout.kueue.flavors:
            if len(flavor.tolerations) > KUEUE_MAX_TOLERATIONS:
                yield error(
                    "k8s.flavor-limit",
                    ("pools", flavor.pool_index, "taints"),
                    f"pool '{flavor.pool}' has {len(flavor.tolerations)} taints; its Kueue flavor can carry at "
                    f"most {KUEUE_MAX_TOLERATIONS} tolerations",
                    f"keep at most {KUEUE_MAX_TOLERATIONS - 1} extra taints on the pool",
                    taints=len(flavor.tolerations),
                )


def check_health(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """Every accelerator pool has something watching its devices (`topology.cluster.health`)."""
    return health_findings(blueprint, layout.nodes)


def check_node_gates(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """What must run on a gated node before its gate opens tolerates the gate: device plugins, FSx node plugin, exporters."""
    first: list[tuple[str, Placement | None, Path]] = [
        (plugin.kind, plugin.placement, _plugin_path(plugin, "tolerations") if "tolerations" in plugin.overridden else ())
        for plugin in layout.plugins
    ]
    first.append(("the FSx CSI node plugin", layout.mounts.placement, ()))
    first += [(exporter.exporter, exporter.placement, ()) for exporter in layout.exporters]
    return check_gates(layout.nodes, first)


def check_acceptance(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """The acceptance gate can open: what must run first tolerates its taint, the level fits (`topology.cluster.acceptance`)."""
    return gate_findings(blueprint, layout.nodes, layout.acceptance, layout.exporters, layout.mounts)


def check_replacement(blueprint: Blueprint, layout: KubernetesLayout) -> Iterable[Finding]:
    """Pools that replace failed nodes can: Pod Identity on, something to check, room in a Capacity Block; and what a
    failed node of a gated Karpenter pool does to it (`acceptance_replace`, `acceptance_karpenter`)."""
    return [*replace_findings(blueprint, layout.acceptance), *karpenter_findings(blueprint, layout.acceptance)]


RULES: tuple[Rule, ...] = (
    Rule("coverage", ("k8s.missing-plugin", "k8s.unused-plugin", "k8s.unknown-pool"), check_coverage),
    Rule("labels", ("k8s.label-not-set",), check_labels),
    Rule("taints", ("k8s.untolerated-taint", "k8s.flavor-limit"), check_taints),
    Rule("quota", ("k8s.quota-mismatch",), check_quota),
    Rule("flavor-pools", ("k8s.unknown-pool", "k8s.standby-flavor"), check_flavor_pools),
    Rule("health", HEALTH_CODES, check_health),
    Rule("node-gates", GATE_CODES, check_node_gates),
    Rule("acceptance", ACCEPTANCE_CODES, check_acceptance),
    Rule("acceptance-replace", (*REPLACE_CODES, *KARPENTER_CODES), check_replacement),
)
CODES: tuple[str, ...] = tuple(dict.fromkeys(code for rule in RULES for code in rule.codes))


def plannable(blueprint: Blueprint, catalog: Catalog) -> bool:
    """True when the node groups can be planned: known instance types and domains, EFA only where supported.

    Anything else is already a blueprint-rule error; the check is skipped then, never crashed.
    """
    if blueprint.kubernetes.system_nodes.instance_type not in load_system_types():
        return False
    domains = {zone.name for zone in blueprint.failure_domains.zones}
    domains |= {block.name for zone in blueprint.failure_domains.zones for block in zone.blocks}
    efa_fabrics = {fabric.name for fabric in blueprint.fabrics if fabric.transport == "efa"}
    for pool in blueprint.pools:
        spec = catalog.get(pool.instance_type)
        if spec is None or not set(pool.placement.domains) <= domains:
            return False
        if pool.fabric in efa_fabrics and not spec.efa_supported:
            return False
    return True


def check_kubernetes(blueprint: Blueprint, catalog: Catalog, planned: Sequence[NodeGroupPlan] | None = None) -> list[Finding]:
    """Every cross-layer finding for a validated blueprint, from the layout the compiler emits.

    `planned` is the node groups when the caller has planned them. Returns no
    findings (the check is skipped) when the blueprint can't be planned; the
    blueprint rules report why.
    """
    if not plannable(blueprint, catalog):
        return []
    layout = lay_out_kubernetes(blueprint, catalog, planned)
    return [finding for rule in RULES for finding in rule.check(blueprint, layout)]
