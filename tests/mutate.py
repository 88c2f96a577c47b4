"""Mutation testing of the modules where verdicts are made (`make mutate`, docs/testing.md): mutmut 3, one run per module.

Each module is one mutmut run in a scratch folder of its own, `build/mutate/<module>/`, against the tests that
exercise it (TESTS). mutmut records which tests call each function of a mutated module, then runs, for each
mutant, only those tests (its trampolines); a mutant no test calls is "no tests", and counts as a survivor here. Each
run writes its module's scores to `build/mutate/<module>.json`; `--table` prints them all as docs/testing.md holds them.

    python -m tests.mutate                      # every group's modules, one after the other
    python -m tests.mutate acceptance change    # those groups
    python -m tests.mutate acceptance/efa.py    # one module
    python -m tests.mutate --table              # the last scores, as a Markdown table
    python -m tests.mutate --rerun policies-rules   # a finished run's survivors again, after new tests
    python -m tests.mutate --rerun policies-rules 'policies.rules.security.vpc_flow_logs.*'   # and an edited module's
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from mutmut.stats import status_by_exit_code

from tests import recorded

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mutate"
# What a test may import or read: the checkout's top level, less what is not the project's (the pyproject.toml of a
# scratch folder holds mutmut's settings instead).
LEFT_OUT = {".git", ".venv", "build", "dist", "mutants", "pyproject.toml"}

# The modules where verdicts are made, by group (`python -m tests.mutate GROUP`), each mutated in a run of its own.
# blueprints/rules/: every rule module (the registry, __init__.py, only runs them), the most verdict logic first.
GROUPS_RULES = (
    "fsx",
    "names",
    "references",
    "standby",
    "offerings",
    "regions",
    "fabric_ports",
    "mounts",
    "existing",
    "kubernetes_version",
    "placement",
    "capacity",
    "endpoint",
    "custom_ami",
    "context",
    "vpc_blocks",
    "scale_up",
    "lustre_efa",
    "unbought",
    "compute_domains",
    "fabric_nics",
    "reservation_use",
    "local_zones",
    "karpenter",
    "efa",
    "instance",
    "system_nodes",
    "quota_values",
)
GROUPS: dict[str, tuple[str, ...]] = {
    "acceptance": tuple(
        f"acceptance/{name}.py"
        for name in (
            # Verdicts first (the checks a node is accepted or held by), then what reads their evidence, runs them and publishes them.
            *("nccl", "nvidia", "efa", "dcgm", "neuron", "nccom", "burnin", "fabric", "kernel_log", "baseline", "regression"),
            *("smi", "smi_text", "expectation", "report", "run", "evidence", "kube", "replace", "aws", "sigv4", "__main__"),
        )
    ),
    "conform": tuple(f"railyard/conform/{name}.py" for name in ("nodes", "cluster", "fabric", "expected", "observed", "nvlink", "base", "__init__")),
    "preflight": ("railyard/preflight.py",),
    "change": tuple(
        f"railyard/change/{name}.py"
        for name in (
            "compare",
            "replace_table",
            "held_groups",
            "subnets",
            "upgrade",
            "node_group_steps",
            "capacity",
            "capacity_blocks",
            "bought_blocks",
            "ultraserver_roll",
            "protected",
            "running_pools",
            "impact",
            "ceilings",
            "karpenter_drift",
            "cost",
            "findings_change",
            "flavors",
            "before_after",
            "diff",
            "render",
            "impact_record",
            "go_source",
            "terraform_source",
            "kubernetes_source",
            "sdk_names",
        )
    ),
    "cost": ("topology/cost.py", "topology/cost_blocks.py", "topology/cost_prices.py"),
    "subnets": ("topology/cluster/subnets.py", "topology/cluster/addresses.py"),
    # Every rule module (the registry, __init__.py, only runs them), the ones with the most verdict logic first.
    "blueprint-rules": tuple(f"blueprints/rules/{name}.py" for name in GROUPS_RULES),
    "policy-rules": ("policies/rules",),
    # The pack's own logic: what a rule is and how its Cerberus schemas are read and worded (policies/rules/ holds the rules).
    "policies": ("policies/rule.py", "policies/schema.py"),
}
# The blueprint rules run on every blueprint a test loads, so a mutant of any rule runs every such test the group lists:
# the group lists the broad cases (every code, every malformed line) and each module's own file of edge tests,
# tests/blueprints/test_mutants_<rule>.py, which load blueprint text built there (no example validated once and kept,
# no preview).
RULE_TESTS = ("tests/blueprints/test_malformed.py", "tests/blueprints/test_codes_fired.py")
RULE_EXTRA = {
    "fsx": ("tests/blueprints/test_fsx_edges.py", "tests/blueprints/test_fsx_steps.py"),
    "offerings": ("tests/blueprints/test_offerings_rule.py",),
    "placement": ("tests/blueprints/test_group_maxima.py",),
    "system_nodes": ("tests/blueprints/test_group_maxima.py",),
    "quota_values": ("tests/blueprints/test_quota_values.py",),
    "kubernetes_version": ("tests/blueprints/test_version_skew.py",),
}
# The tests that exercise a module: the longest prefix of its path listed here. mutmut then runs, for each mutant,
# only those of them that called the function it changed.
TESTS: dict[str, tuple[str, ...]] = {
    "acceptance/": ("tests/acceptance",),
    # acceptance/: each module against its own tests (test_mutants_<module>.py) and the fast files that import it; not the
    # tests that start moto (test_replace_aws.py's last three, test_replace_node.py: 14-23 s each), nor test_checker.py but for
    # run.py and __main__.py (its subprocess runs of the checker): a mutant's tests run until one fails, these cost seconds each.
    "acceptance/nccl.py": (
        "tests/acceptance/test_nccl_judge.py",
        "tests/acceptance/test_verdict_edges.py",
        "tests/acceptance/test_mutants_nccl.py",
        "tests/acceptance/test_nccl_older_layout.py",
    ),
    "acceptance/nccom.py": ("tests/acceptance/test_nccom_judge.py", "tests/acceptance/test_mutants_nccom.py"),
    "acceptance/dcgm.py": ("tests/acceptance/test_burn_in.py", "tests/acceptance/test_mutants_dcgm.py"),
    "acceptance/neuron.py": ("tests/acceptance/test_mutants_neuron.py",),
    "acceptance/burnin.py": ("tests/acceptance/test_burn_in.py", "tests/acceptance/test_mutants_burnin.py"),
    "acceptance/baseline.py": ("tests/acceptance/test_baseline.py", "tests/acceptance/test_mutants_baseline.py"),
    "acceptance/regression.py": ("tests/acceptance/test_baseline.py", "tests/acceptance/test_mutants_regression.py"),
    "acceptance/expectation.py": (
        "tests/acceptance/test_expectations.py",
        "tests/acceptance/test_mutants_expectation.py",
    ),
    "acceptance/report.py": (
        "tests/acceptance/test_gpu_and_efa_edges.py",
        "tests/acceptance/test_mutants_report.py",
    ),
    "acceptance/efa.py": ("tests/acceptance/test_gpu_and_efa_edges.py", "tests/acceptance/test_mutants_efa.py"),
    "acceptance/nvidia.py": (
        "tests/acceptance/test_gpu_and_efa_edges.py",
        "tests/acceptance/test_nvidia_text.py",
        "tests/acceptance/test_mutants_nvidia.py",
    ),
    "acceptance/fabric.py": ("tests/acceptance/test_kernel_log_and_fabric.py", "tests/acceptance/test_mutants_fabric.py"),
    "acceptance/kernel_log.py": ("tests/acceptance/test_kernel_log_and_fabric.py", "tests/acceptance/test_mutants_kernel_log.py"),
    "acceptance/smi.py": ("tests/acceptance/test_nvidia_text.py", "tests/acceptance/test_mutants_smi.py"),
    "acceptance/smi_text.py": ("tests/acceptance/test_nvidia_text.py", "tests/acceptance/test_mutants_smi_text.py"),
    "acceptance/evidence.py": ("tests/acceptance/test_burn_in.py", "tests/acceptance/test_mutants_evidence.py"),
    "acceptance/run.py": (
        "tests/acceptance/test_checker.py",
        "tests/acceptance/test_nvidia_text.py",
        "tests/acceptance/test_kernel_log_and_fabric.py",
        "tests/acceptance/test_mutants_run.py",
    ),
    "acceptance/kube.py": ("tests/acceptance/test_publish.py", "tests/acceptance/test_mutants_kube.py"),
    "acceptance/aws.py": ("tests/acceptance/test_mutants_aws.py",),
    "acceptance/sigv4.py": ("tests/acceptance/test_mutants_sigv4.py",),
    "acceptance/replace.py": ("tests/acceptance/test_mutants_replace.py",),
    "acceptance/__main__.py": ("tests/acceptance/test_checker.py", "tests/acceptance/test_publish.py", "tests/acceptance/test_mutants_main.py"),
    "railyard/conform/": ("tests/conform",),
    # Unit tests that judge a few nodes built in memory (tests/conform/judges.py): milliseconds a test, where the files
    # above write and judge a 64-node folder and validate an example for every test.
    "railyard/conform/nodes.py": ("tests/conform/test_mutants_nodes.py",),
    "railyard/conform/fabric.py": ("tests/conform/test_mutants_fabric.py",),
    "railyard/conform/cluster.py": ("tests/conform/test_mutants_cluster.py",),
    "railyard/conform/expected.py": ("tests/conform/test_mutants_expected.py",),
    "railyard/conform/observed.py": ("tests/conform/test_mutants_observed.py",),
    "railyard/conform/nvlink.py": ("tests/conform/test_mutants_nvlink.py", "tests/conform/test_nvlink.py"),
    "railyard/conform/base.py": ("tests/conform/test_mutants_base.py",),
    "railyard/conform/__init__.py": ("tests/conform/test_mutants_conform.py",),
    "railyard/preflight.py": ("tests/policies/test_preflight_verdicts.py",),
    # Not test_diff.py, test_day2*.py nor test_codes_fired.py: they preview examples under Pulumi's mocks, whose gRPC server
    # hangs in mutmut's forked workers (seen: a worker waiting in epoll for 27 minutes).
    "railyard/change/": ("tests/change/test_verdict_edges.py",),
    "railyard/change/replace_table.py": (
        "tests/change/test_mutants_replace_table.py",
        "tests/change/test_mutants_compare.py",
    ),
    "railyard/change/compare.py": ("tests/change/test_mutants_compare.py",),
    "railyard/change/held_groups.py": ("tests/change/test_mutants_held_groups.py",),
    "railyard/change/subnets.py": ("tests/change/test_mutants_subnets.py",),
    "railyard/change/upgrade.py": ("tests/change/test_mutants_upgrade.py",),
    "railyard/change/node_group_steps.py": ("tests/change/test_mutants_node_group_steps.py",),
    "railyard/change/capacity.py": ("tests/change/test_mutants_capacity_blocks.py",),
    "railyard/change/capacity_blocks.py": ("tests/change/test_mutants_capacity_blocks.py",),
    "railyard/change/bought_blocks.py": ("tests/change/test_mutants_capacity_blocks.py",),
    "railyard/change/ultraserver_roll.py": ("tests/change/test_mutants_node_group_rolls.py",),
    "railyard/change/running_pools.py": ("tests/change/test_mutants_node_group_rolls.py",),
    "railyard/change/protected.py": ("tests/change/test_mutants_node_group_rolls.py",),
    "railyard/change/impact.py": ("tests/change/test_mutants_impact.py",),
    "railyard/change/karpenter_drift.py": ("tests/change/test_mutants_karpenter_drift.py",),
    "railyard/change/before_after.py": ("tests/change/test_mutants_review.py",),
    "railyard/change/flavors.py": ("tests/change/test_mutants_review.py",),
    "railyard/change/findings_change.py": ("tests/change/test_mutants_review.py",),
    "railyard/change/cost.py": ("tests/change/test_mutants_cost_and_ceilings.py",),
    "railyard/change/ceilings.py": ("tests/change/test_mutants_cost_and_ceilings.py",),
    "railyard/change/render.py": ("tests/change/test_mutants_render.py",),
    # The replace table's generator: its Go readers on the fixture provider trees, the SDK's names through the table's tests.
    "railyard/change/go_source.py": (
        "tests/change/test_mutants_go_source.py",
        "tests/change/test_terraform_source.py",
        "tests/change/test_kubernetes_source.py",
    ),
    "railyard/change/terraform_source.py": (
        "tests/change/test_mutants_terraform_source.py",
        "tests/change/test_terraform_source.py",
        "tests/change/test_mutants_replace_table.py",
    ),
    "railyard/change/kubernetes_source.py": (
        "tests/change/test_mutants_kubernetes_source.py",
        "tests/change/test_kubernetes_source.py",
        "tests/change/test_mutants_replace_table.py",
    ),
    "railyard/change/sdk_names.py": ("tests/change/test_mutants_sdk_names.py",),
    "railyard/change/impact_record.py": ("tests/change/test_mutants_impact_record.py",),
    # diff() with its two previews faked (run_preview returns built sides) and its checks stood in for: what it gathers.
    "railyard/change/diff.py": ("tests/change/test_mutants_diff.py",),
    # Every line compared whole against a price table of round prices made in the test (test_cost.py previews an example, 9 s
    # a mutant; the others validate examples against the shipped table).
    "topology/cost.py": ("tests/topology/test_mutants_cost.py",),
    "topology/cost_blocks.py": ("tests/topology/test_mutants_cost_blocks.py", "tests/topology/test_mutants_cost.py"),
    "topology/cost_prices.py": ("tests/topology/test_mutants_cost_prices.py", "tests/topology/test_mutants_cost.py"),
    "topology/cluster/": (
        "tests/topology/cluster/test_subnets.py",
        "tests/topology/cluster/test_addresses.py",
        "tests/topology/cluster/test_subnet_verdicts.py",
    ),
    # Demands, blocks and pod settings built in the test, every range and count worked out by hand (the files above plan examples).
    "topology/cluster/subnets.py": ("tests/topology/cluster/test_mutants_subnets.py",),
    "topology/cluster/addresses.py": ("tests/topology/cluster/test_mutants_addresses.py",),
    "blueprints/rules/": RULE_TESTS,
    **{f"blueprints/rules/{name}.py": (*RULE_TESTS, *RULE_EXTRA.get(name, ()), f"tests/blueprints/test_mutants_{name}.py") for name in GROUPS_RULES},
    # The preview cases (previews recorded, `ISOLATION`) and the edge cases on small built stacks.
    "policies/rules": (
        "tests/policies/test_rules.py",
        "tests/policies/test_rule_edges_correctness.py",
        "tests/policies/test_rule_edges_security.py",
        "tests/policies/test_rule_edges_governance.py",
    ),
    # The rule kinds and the Cerberus layer on inputs built in the test, and the rules' edge cases on small built stacks
    # (through the engine's own path); no preview.
    **{
        module: (
            "tests/policies/test_mutants_rule.py",
            "tests/policies/test_mutants_schema.py",
            "tests/policies/test_schema.py",
            "tests/policies/test_rule_edges_correctness.py",
            "tests/policies/test_rule_edges_security.py",
            "tests/policies/test_rule_edges_governance.py",
        )
        for module in ("policies/rule.py", "policies/schema.py")
    },
}


@dataclass(frozen=True)
class Isolation:
    """How a group's mutants are run: the process each is forked from, and where the tests' previews come from.

    `fork`: mutmut's "fork", each mutant forked straight from mutmut's main process after its stats pass (imports,
    fixtures and module caches warm: a mutant in a fraction of a second); otherwise "forkserver", each forked from a
    server that has only collected the tests, so each re-runs its fixtures. Fork is wrong where a test reads a value
    cached in that process that the mutated module computed (the mutant would never run), and it hangs where that
    process ran a mocked preview (Pulumi's executor threads and gRPC don't survive a fork).
    `previews`: the tests' previews are recorded by one run of them in the checkout before mutmut starts, and only
    read back under mutmut (`tests/recorded.py`), so no process of mutmut's starts Pulumi; right only where the
    mutated modules take no part in compiling a preview. A forked group always reads previews back: one whose tests
    record none fails its clean run at the first preview instead of hanging.
    """

    fork: bool = False
    previews: bool = False


DEFAULT = Isolation()
# A module's isolation, where it differs from DEFAULT: the longest prefix of its path listed here (like TESTS).
ISOLATION: dict[str, Isolation] = {
    # The rules police a preview's resources and take no part in making them (no module of railyard/ or components/
    # calls one), and they cache nothing: a recorded preview is the one every mutant's tests would compute.
    "policies/rules": Isolation(fork=True, previews=True),
    # The blueprint rules' tests load blueprint text they build (tests/blueprints/base.py): no preview, and no example
    # validated once and cached in mutmut's main process, so every mutant's tests run the mutated rule.
    "blueprints/rules/": Isolation(fork=True),
    # Scored against unit tests that build their inputs (no preview, no example validated inside a test) and cache only
    # what the mutated module does not compute: an example's planned expectation, made when the test module is imported,
    # which forkserver's collection computes unmutated too (expected.py's expect() is also called inside a test).
    "railyard/conform/nodes.py": Isolation(fork=True),
    "railyard/conform/fabric.py": Isolation(fork=True),
    "railyard/conform/cluster.py": Isolation(fork=True),
    "railyard/conform/expected.py": Isolation(fork=True),
    "railyard/conform/observed.py": Isolation(fork=True),
    "railyard/conform/nvlink.py": Isolation(fork=True),
    "railyard/conform/base.py": Isolation(fork=True),
    "railyard/conform/__init__.py": Isolation(fork=True),
    "topology/cost.py": Isolation(fork=True),
    "topology/cost_blocks.py": Isolation(fork=True),
    "topology/cost_prices.py": Isolation(fork=True),
    "topology/cluster/subnets.py": Isolation(fork=True),
    "topology/cluster/addresses.py": Isolation(fork=True),
    # tests/acceptance previews nothing, and neither acceptance/ nor its tests cache what acceptance/ computes.
    "acceptance/": Isolation(fork=True),
    # railyard/change/ modules whose tests build their inputs (tests/change/built.py, no preview) and which no cache stands
    # in for: their only caches are functools.cache functions that read botocore (impact.rolling_inputs,
    # running_pools.applies_to_running_nodes), which mutmut never mutates (it skips decorated functions) and which call
    # nothing of railyard/change/. sdk_names (whose cache is over its own _class) and replace_table (load_table) stay
    # forkserver (docs/testing.md).
    **{
        f"railyard/change/{name}.py": Isolation(fork=True)
        for name in (
            *("protected", "running_pools", "bought_blocks", "capacity_blocks", "upgrade", "node_group_steps", "impact"),
            *("impact_record", "cost", "ceilings", "render", "karpenter_drift", "go_source", "terraform_source", "kubernetes_source", "diff"),
        )
    },
    # Their tests preview nothing. The one cache, schema.py's validators per thread, is warm in mutmut's main process;
    # test_mutants_schema.py empties it for each of its tests, so a mutant of how a validator is built still runs there.
    "policies/rule.py": Isolation(fork=True),
    "policies/schema.py": Isolation(fork=True),
}
SCORED = ("killed", "timeout", "survived", "no tests", "suspicious", "segfault", "skipped", "not checked")


def _tree() -> list[Path]:
    """The checkout's top-level files and folders a test may read (hidden ones and build outputs left out)."""
    return [path for path in ROOT.iterdir() if path.name not in LEFT_OUT and not path.name.startswith((".", "__pycache__"))]


def _config(modules: tuple[str, ...], tests: tuple[str, ...], isolation: Isolation = DEFAULT) -> str:
    """The pyproject.toml of a group's scratch folder: only mutmut's section."""
    copied = sorted(path.name for path in _tree())
    lines = [
        "[tool.mutmut]",
        f"source_paths = {json.dumps(list(modules))}",
        f"also_copy = {json.dumps(copied)}",
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}",
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:xdist"]',
        "use_git_change_detection = false",
        f'process_isolation = "{"fork" if isolation.fork else "forkserver"}"',
    ]
    return "\n".join(lines) + "\n"


def _scratch(group: str, modules: tuple[str, ...], tests: tuple[str, ...], isolation: Isolation = DEFAULT) -> Path:
    """A fresh folder for one group's run: links to the tree (mutmut copies through them) and mutmut's settings."""
    folder = BUILD / group
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for path in _tree():
        (folder / path.name).symlink_to(path)
    (folder / "pyproject.toml").write_text(_config(modules, tests, isolation))
    return folder


def isolation_of(module: str) -> Isolation:
    """How a module's mutants are run (ISOLATION's longest matching prefix; DEFAULT when none matches)."""
    prefix = max((key for key in ISOLATION if module.startswith(key)), key=len, default=None)
    return DEFAULT if prefix is None else ISOLATION[prefix]


def record_previews(group: str, tests: tuple[str, ...], log: TextIO) -> dict[str, str]:
    """The environment under which mutmut's runs read previews back, after one run of `tests` in the checkout
    recorded them (`tests/recorded.py`); the recording run's output goes to `log`. A failing run stops the group."""
    folder = BUILD / f"{group}.previews"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist", *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", recorded.VARIABLE: f"record:{folder}"}
    if subprocess.run(command, cwd=ROOT, env=env, check=False, stdout=log, stderr=subprocess.STDOUT).returncode != 0:
        raise SystemExit(f"{group}: the tests failed while recording their previews; see {log.name}")
    return {recorded.VARIABLE: f"replay:{folder}"}


def scores(folder: Path) -> dict[str, dict[str, int]]:
    """Per mutated module, how many of its mutants ended in each state (mutmut's own names for its exit codes)."""
    result: dict[str, dict[str, int]] = {}
    for meta in sorted((folder / "mutants").rglob("*.py.meta")):
        module = str(meta.relative_to(folder / "mutants"))[: -len(".meta")]
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        counts = {state: 0 for state in SCORED}
        for code in codes.values():
            state = status_by_exit_code[code]
            counts[state] = counts.get(state, 0) + 1
        counts["mutants"] = len(codes)
        result[module] = counts
    return result


def _mutmut(group: str, modules: tuple[str, ...], tests: tuple[str, ...], arguments: list[str], log_name: str) -> dict[str, dict[str, int]]:
    """`mutmut run ARGUMENTS` in a group's scratch folder, previews recorded first where its isolation says; its
    scores written beside the folder."""
    isolation = isolation_of(modules[0])
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with (BUILD / log_name).open("w") as log:
        if isolation.previews:
            env.update(record_previews(group, tests, log))
        elif isolation.fork:
            # Nothing recorded: a preview in mutmut's main process fails the clean run rather than hang its forks.
            env[recorded.VARIABLE] = f"replay:{BUILD / f'{group}.previews'}"
            shutil.rmtree(BUILD / f"{group}.previews", ignore_errors=True)
        log.flush()
        command = [sys.executable, "-m", "mutmut", "run", *arguments]
        subprocess.run(command, cwd=BUILD / group, env=env, check=False, stdout=log, stderr=subprocess.STDOUT)
    found = scores(BUILD / group)
    (BUILD / f"{group}.json").write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    return found


def run_group(group: str, modules: tuple[str, ...], tests: tuple[str, ...], children: int) -> dict[str, dict[str, int]]:
    """One mutmut run over a group (or one module of it), its scores written beside the scratch folder."""
    _scratch(group, modules, tests, isolation_of(modules[0]))
    return _mutmut(group, modules, tests, ["--max-children", str(children)], f"{group}.log")


def rerun_survivors(group: str, children: int, patterns: tuple[str, ...] = ()) -> dict[str, dict[str, int]]:
    """A run's surviving mutants tested again in its scratch folder, against its test files as they are now, with
    the mutants `patterns` name (mutmut's names, `*` for any part: those of a module whose source changed since).

    For checking new tests against the survivors without testing every mutant again: mutmut collects its stats for
    the new tests only and keeps every other verdict. The run's test files stay those of its first run (listing
    other files would make mutmut start over), so new tests go in the files it was run with. A module edited since
    gets new mutants, which mutmut tests only when `patterns` names them.
    """
    settings = tomllib.loads((BUILD / group / "pyproject.toml").read_text())["tool"]["mutmut"]
    modules, tests = tuple(settings["source_paths"]), tuple(settings["pytest_add_cli_args_test_selection"])
    names = [*survivors(group), *patterns]
    if not names:
        return scores(BUILD / group)
    return _mutmut(group, modules, tests, ["--max-children", str(children), *names], f"{group}.rerun.log")


def survivors(group: str) -> list[str]:
    """The names of a group's mutants that no test killed, for `mutmut show NAME` in its scratch folder."""
    folder = BUILD / group
    names = []
    for meta in sorted((folder / "mutants").rglob("*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if status_by_exit_code[code] in ("survived", "no tests"):
                names.append(name)
    return names


def table() -> str:
    """Every group's last scores as the Markdown table of docs/testing.md (killed counts timeouts, as mutmut does)."""
    rows = ["| module | mutants | killed | survived | no tests | score |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for path in sorted(BUILD.glob("*.json")):
        for module, counts in sorted(json.loads(path.read_text()).items()):
            killed = counts["killed"] + counts["timeout"]
            share = f"{100 * killed / counts['mutants']:.0f}%" if counts["mutants"] else "-"
            rows.append(f"| `{module}` | {counts['mutants']} | {killed} | {counts['survived']} | {counts['no tests']} | {share} |")
    return "\n".join(rows)


def tests_of(module: str) -> tuple[str, ...]:
    """The tests that exercise a module (TESTS' longest matching prefix), those present in the checkout."""
    prefix = max((key for key in TESTS if module.startswith(key)), key=len, default=None)
    if prefix is None:
        raise SystemExit(f"{module}: no tests are listed for it in TESTS")
    return tuple(path for path in TESTS[prefix] if (ROOT / path).exists())


def _selection(names: list[str]) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """The runs the command line asks for, one per module: every group's by default, a group's, or one module's."""
    modules: list[str] = []
    for name in names or list(GROUPS):
        modules += GROUPS.get(name, (name,))
    return [(module.replace("/", "-").removesuffix(".py"), (module,), tests_of(module)) for module in modules]


def main(argv: list[str] | None = None) -> int:
    """Run the groups asked for (all by default) and print their scores."""
    parser = argparse.ArgumentParser(prog="python -m tests.mutate", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="groups or modules (default: every group)")
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--table", action="store_true", help="print the last scores and run nothing")
    parser.add_argument("--survivors", metavar="GROUP", help="list a group's surviving mutants and run nothing")
    parser.add_argument("--rerun", metavar="GROUP", help="test a finished run's survivors again, against its test files as they are now")
    args = parser.parse_args(argv)
    if args.survivors:
        print("\n".join(survivors(args.survivors)))
        return 0
    if args.rerun:
        rerun_survivors(args.rerun, args.children, tuple(args.names))
    elif not args.table:
        for group, modules, tests in _selection(args.names):
            run_group(group, modules, tests, args.children)
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
