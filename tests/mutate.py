"""Mutation testing of the modules where verdicts are made (`make mutate`, docs/testing.md): mutmut 3, one run per module.

Each module is one mutmut run in a scratch folder of its own, `build/mutate/<module>/`, against the tests that
exercise it (TESTS). mutmut records which tests call each function of a mutated module, then runs, for each
mutant, only those tests (its trampolines); a mutant no test calls is "no tests", and counts as a survivor here. Each
run writes its module's scores to `build/mutate/<module>.json`; `--table` prints them all as docs/testing.md holds them.

    python -m tests.mutate                      # every group's modules, one after the other
    python -m tests.mutate acceptance change    # those groups
    python -m tests.mutate acceptance/efa.py    # one module
    python -m tests.mutate --table              # the last scores, as a Markdown table
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mutmut.stats import status_by_exit_code

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mutate"
# What a test may import or read: the checkout's top level, less what is not the project's (the pyproject.toml of a
# scratch folder holds mutmut's settings instead).
LEFT_OUT = {".git", ".venv", "build", "dist", "mutants", "pyproject.toml"}

# The modules where verdicts are made, by group (`python -m tests.mutate GROUP`), each mutated in a run of its own.
GROUPS: dict[str, tuple[str, ...]] = {
    "acceptance": tuple(
        f"acceptance/{name}.py"
        for name in (
            # Verdicts first (the checks a node is accepted or held by), then what reads their evidence, runs them and publishes them.
            *("nccl", "nvidia", "efa", "dcgm", "neuron", "nccom", "burnin", "fabric", "kernel_log", "baseline", "regression"),
            *("smi", "smi_text", "expectation", "report", "run", "evidence", "kube", "replace", "aws", "sigv4", "__main__"),
        )
    ),
    "conform": tuple(f"railyard/conform/{name}.py" for name in ("nodes", "cluster", "fabric", "expected", "observed")),
    "preflight": ("railyard/preflight.py",),
    "change": tuple(
        f"railyard/change/{name}.py"
        for name in ("held_groups", "compare", "replace_table", "capacity", "capacity_blocks", "ceilings", "impact", "subnets", "upgrade")
    ),
    "cost": ("topology/cost.py",),
    "subnets": ("topology/cluster/subnets.py", "topology/cluster/addresses.py"),
    "blueprint-rules": tuple(
        f"blueprints/rules/{name}.py" for name in ("fsx", "capacity", "efa", "endpoint", "fabric_ports", "placement", "standby")
    ),
    "policy-rules": ("policies/rules",),
}
# The tests that exercise a module: the longest prefix of its path listed here. mutmut then runs, for each mutant,
# only those of them that called the function it changed.
TESTS: dict[str, tuple[str, ...]] = {
    "acceptance/": ("tests/acceptance",),
    # acceptance/: each module against its own tests (test_mutants_<module>.py) and the fast files that import it; not the
    # tests that start moto (test_replace_aws.py's last three, test_replace_node.py: 14-23 s each), nor test_checker.py but for
    # run.py and __main__.py (its subprocess runs of the checker): a mutant's tests run until one fails, these cost seconds each.
    "acceptance/nccl.py": ("tests/acceptance/test_nccl_judge.py", "tests/acceptance/test_verdict_edges.py", "tests/acceptance/test_mutants_nccl.py"),
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
    "railyard/preflight.py": ("tests/policies/test_preflight_verdicts.py",),
    # Not test_diff.py, test_day2*.py nor test_codes_fired.py: they preview examples under Pulumi's mocks, whose gRPC server
    # hangs in mutmut's forked workers (seen: a worker waiting in epoll for 27 minutes).
    "railyard/change/": ("tests/change/test_verdict_edges.py",),
    "railyard/change/replace_table.py": ("tests/change/test_replace_table.py", "tests/change/test_verdict_edges.py"),
    "topology/cost.py": (
        "tests/topology/test_cost.py",
        "tests/topology/test_cost_at.py",
        "tests/topology/test_cost_fsx.py",
        "tests/topology/test_cost_totals.py",
        "tests/topology/test_cost_edges.py",
    ),
    "topology/cluster/": (
        "tests/topology/cluster/test_subnets.py",
        "tests/topology/cluster/test_addresses.py",
        "tests/topology/cluster/test_subnet_verdicts.py",
    ),
    "blueprints/rules/": ("tests/blueprints/test_malformed.py", "tests/blueprints/test_codes_fired.py"),
    "blueprints/rules/fsx.py": (
        "tests/blueprints/test_fsx_edges.py",
        "tests/blueprints/test_malformed.py",
        "tests/blueprints/test_codes_fired.py",
        "tests/blueprints/test_fsx_steps.py",
    ),
    "policies/rules": ("tests/policies/test_rules.py",),
}
# Modules whose mutants may be forked from the process that ran mutmut's first pass ("fork": warm imports and fixtures,
# several times faster than "forkserver"). Safe only where the tests start no Pulumi preview (gRPC deadlocks in a fork)
# and read no result cached from the mutated module (a mutant would never run): tests/acceptance previews nothing, and
# neither acceptance/ nor its tests cache what acceptance/ computes.
FORKED = ("acceptance/",)
SCORED = ("killed", "timeout", "survived", "no tests", "suspicious", "segfault", "skipped", "not checked")


def _tree() -> list[Path]:
    """The checkout's top-level files and folders a test may read (hidden ones and build outputs left out)."""
    return [path for path in ROOT.iterdir() if path.name not in LEFT_OUT and not path.name.startswith((".", "__pycache__"))]


def _config(modules: tuple[str, ...], tests: tuple[str, ...]) -> str:
    """The pyproject.toml of a group's scratch folder: only mutmut's section."""
    copied = sorted(path.name for path in _tree())
    lines = [
        "[tool.mutmut]",
        f"source_paths = {json.dumps(list(modules))}",
        f"also_copy = {json.dumps(copied)}",
        f"pytest_add_cli_args_test_selection = {json.dumps(list(tests))}",
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:xdist"]',
        "use_git_change_detection = false",
        # Pulumi's mocks run over gRPC, which a fork of a process that has run them deadlocks in: each mutant is forked from
        # a server that has only collected the tests.
        f'process_isolation = "{"fork" if all(module.startswith(FORKED) for module in modules) else "forkserver"}"',
    ]
    return "\n".join(lines) + "\n"


def _scratch(group: str, modules: tuple[str, ...], tests: tuple[str, ...]) -> Path:
    """A fresh folder for one group's run: links to the tree (mutmut copies through them) and mutmut's settings."""
    folder = BUILD / group
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for path in _tree():
        (folder / path.name).symlink_to(path)
    (folder / "pyproject.toml").write_text(_config(modules, tests))
    return folder


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


def run_group(group: str, modules: tuple[str, ...], tests: tuple[str, ...], children: int) -> dict[str, dict[str, int]]:
    """One mutmut run over a group (or one module of it), its scores written beside the scratch folder."""
    folder = _scratch(group, modules, tests)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)]
    with (BUILD / f"{group}.log").open("w") as log:
        subprocess.run(command, cwd=folder, env=env, check=False, stdout=log, stderr=subprocess.STDOUT)
    found = scores(folder)
    (BUILD / f"{group}.json").write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    return found


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
    args = parser.parse_args(argv)
    if args.survivors:
        print("\n".join(survivors(args.survivors)))
        return 0
    if not args.table:
        for group, modules, tests in _selection(args.names):
            run_group(group, modules, tests, args.children)
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
