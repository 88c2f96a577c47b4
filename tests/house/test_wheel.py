"""Every command as a user runs it: the wheel built, installed in a fresh virtualenv, run from a folder that isn't the checkout.

Tests that import railyard from the checkout can't see what the wheel leaves out: `railyard diff` once ended
in `FileNotFoundError` for every pip user because `replace_on_change.json` wasn't package data. So here:

- the wheel is built offline (`pip wheel --no-build-isolation`, the setuptools the dev requirements pin) from
  a copy of the project's files, so no `build/` or `*.egg-info` lands in the checkout;
- a new virtualenv gets it with `pip install --no-deps`; its dependencies are the pinned ones already installed
  for the suite, reached through a `.pth` file (tests never touch the network), and that site-packages holds no
  railyard of its own, so every railyard module comes from the wheel (a test checks where they load from);
- each command runs as the `railyard` script the wheel installs, from an empty folder, on a shipped example
  read from the installed package, and must exit as documented with no traceback.

`test_every_command_is_run_from_the_wheel` fails when a command is added to the CLI without a case here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from railyard import __version__
from railyard.commands import COMMANDS
from tests import shared
from tests.shared import shared as computed_once

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("blueprints", "topology", "components", "railyard", "policies", "acceptance")
WHEEL = f"railyard-{__version__}-py3-none-any.whl"

# Files of the packages that are not read at run time, so the wheel may leave them out.
NOT_SHIPPED = {
    # The Go source `python -m blueprints.catalog.prices` generates prices.json from; the JSON ships.
    "blueprints/catalog/sources/karpenter_pricing_aws.go",
    "blueprints/catalog/sources/karpenter_pricing_aws_us_gov.go",
    # The Capacity Block scrape the same generator folds into prices.json (blueprints/catalog/block_sources.py).
    "blueprints/catalog/sources/capacity_blocks_pricing.json",
    # The hand-kept source of api_constraints.json, read only by its generator; the JSON ships.
    "policies/data/api_constraints.source.yaml",
}


@dataclass(frozen=True)
class Installed:
    """A fresh virtualenv with the wheel installed: its interpreter, its `railyard` script and its site-packages."""

    wheel: Path
    python: Path
    script: Path
    site: Path

    @property
    def examples(self) -> Path:
        return self.site / "blueprints" / "examples"

    def run(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """The installed `railyard` script with these arguments, in `cwd`, with nothing of the checkout on its path."""
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run([str(self.script), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _project_copy(into: Path) -> Path:
    """The files a source distribution holds (pyproject, README, the packages), without caches or build output."""
    source = into / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "venv"))
    return source


def _build(base: Path) -> Installed:
    quiet = ["--quiet", "--disable-pip-version-check", "--no-index"]
    dist = base / "dist"
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "wheel", *quiet, "--no-deps", "--no-build-isolation", "-w", str(dist), str(_project_copy(base))], check=True, cwd=base)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    where = [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    site = Path(subprocess.run(where, check=True, capture_output=True, text=True).stdout.strip())
    # The suite's own pinned dependencies; railyard itself is not installed there (the suite imports it from the checkout).
    (site / "pinned-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    subprocess.run([*pip, "--python", str(python), "install", *quiet, "--no-deps", str(dist / WHEEL)], check=True, cwd=base)
    return Installed(wheel=dist / WHEEL, python=python, script=venv / "bin" / "railyard", site=site)


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    """The wheel in its virtualenv, built once per run and shared by the suite's workers."""
    base = Path(tempfile.mkdtemp(dir=shared.folder)) if shared.folder else tmp_path_factory.mktemp("wheel")
    return computed_once("installed-wheel", lambda: _build(base))


@pytest.fixture
def empty(tmp_path) -> Path:
    """An empty working folder, far from the checkout."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def _no_traceback(completed: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in completed.stderr + completed.stdout, completed.stderr


def test_the_wheel_ships_every_file_the_packages_read(installed):
    tracked = subprocess.run(["git", "ls-files", *PACKAGES], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    data = {path for path in tracked if not path.endswith(".py")} - NOT_SHIPPED
    with zipfile.ZipFile(installed.wheel) as wheel:
        shipped = set(wheel.namelist())
    assert sorted(data - shipped) == []
    assert {path for path in tracked if path.endswith(".py") and "/tests/" not in path} <= shipped


def test_railyard_loads_from_the_wheel_not_the_checkout(installed, empty):
    code = f"import {', '.join(PACKAGES)}; print('\\n'.join(m.__file__ for m in ({', '.join(PACKAGES)})))"
    bare = {"PATH": os.environ["PATH"]}
    where = subprocess.run([str(installed.python), "-c", code], cwd=empty, check=True, capture_output=True, text=True, env=bare)
    assert [Path(path).is_relative_to(installed.site) for path in where.stdout.split()] == [True] * len(PACKAGES)


def _changed_copy(example: Path, into: Path) -> Path:
    """dev-g6e with its pool's ceiling raised: a routine change `diff` reads as a resize."""
    changed = into / "changed.yaml"
    text = example.read_text(encoding="utf-8")
    assert "nodes: {min: 0, max: 1, desired: 1}" in text
    changed.write_text(text.replace("nodes: {min: 0, max: 1, desired: 1}", "nodes: {min: 0, max: 2, desired: 1}"), encoding="utf-8")
    return changed


# (the command, its arguments with EXAMPLE for the shipped dev-g6e, the exit status, a line its output must hold)
CASES = {
    "validate": (["validate", "EXAMPLE"], 0, "ok: no errors"),
    "validate --json": (["validate", "EXAMPLE", "--json"], 0, '"ok": true'),
    "preview": (["preview", "EXAMPLE"], 0, "eks:Cluster"),
    "preview --policies": (["preview", "EXAMPLE", "--policies"], 0, "policies"),
    "preview --json": (["preview", "EXAMPLE", "--json"], 0, '"aws:eks/cluster:Cluster"'),
    "lock": (["lock", "EXAMPLE"], 0, "subnet_cidrs"),
    "export slurm-tree": (["export", "EXAMPLE", "--format", "slurm-tree"], 0, ""),
    "export slurm-block": (["export", "EXAMPLE", "--format", "slurm-block"], 0, ""),
    "export topograph": (["export", "EXAMPLE", "--format", "topograph"], 0, ""),
    "schema": (["schema"], 0, '"$schema"'),
    "schema needs": (["schema", "needs"], 0, '"title": "railyard needs"'),
    "catalog": (["catalog"], 0, "g6e.xlarge"),
    "catalog --system": (["catalog", "--system"], 0, "m7i.xlarge"),
    "rules": (["rules"], 0, "SEC003"),
    "acceptance expect": (["acceptance", "expect", "EXAMPLE", "--pool", "dev"], 0, '"accelerator_model": "L40S"'),
    "init --list": (["init", "--list"], 0, "dev-g6e "),
    "explain": (["explain", "fsx.capacity-step"], 0, "How to fix it\n  use <nearest>, the next legal size"),
    "explain a policy": (["explain", "SEC003", "--json"], 0, '"owner": "policies.rules.security.fsx_encrypted_with_kms"'),
    "explain an unknown code": (["explain", "fsx.capacity-stp"], 2, "did you mean fsx.capacity-step"),
    "missing file": (["validate", "no-such.yaml"], 2, "no-such.yaml"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_installed_command_runs_outside_the_checkout(installed, empty, case):
    args, status, expected = CASES[case]
    completed = installed.run(*(str(installed.examples / "dev-g6e.yaml") if arg == "EXAMPLE" else arg for arg in args), cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == status, completed.stderr
    assert expected in completed.stdout + completed.stderr


def test_the_installed_version_is_the_checkout_version(installed, empty):
    completed = installed.run("--version", cwd=empty)
    assert (completed.returncode, completed.stdout.strip()) == (0, f"railyard {__version__}")


def test_the_installed_diff_compares_two_files(installed, empty):
    example = installed.examples / "dev-g6e.yaml"
    completed = installed.run("diff", str(example), str(_changed_copy(example, empty)), "--json", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert '"type": "aws:eks/nodeGroup:NodeGroup"' in completed.stdout


def test_the_installed_diff_compares_a_file_with_its_git_revision(installed, empty):
    blueprint = empty / "blueprint.yaml"
    shutil.copy(installed.examples / "dev-g6e.yaml", blueprint)
    for git in (["init", "-q"], ["add", "blueprint.yaml"], ["commit", "-q", "-m", "a blueprint"]):
        assert installed_git(empty, *git).returncode == 0
    blueprint.write_text(_changed_copy(blueprint, empty).read_text(encoding="utf-8"), encoding="utf-8")
    completed = installed.run("diff", "--git", "HEAD", "blueprint.yaml", "--markdown", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert "scalingConfig.maxSize" in completed.stdout


def installed_git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git in the user's folder, with an identity for its commits."""
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env = {**os.environ, **identity}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_the_installed_report_writes_a_page(installed, empty):
    completed = installed.run("report", str(installed.examples / "dev-g6e.yaml"), "-o", "report.html", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert (empty / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_the_installed_lock_writes_the_pins_into_a_copy(installed, empty):
    blueprint = empty / "blueprint.yaml"
    shutil.copy(installed.examples / "dev-g6e.yaml", blueprint)
    completed = installed.run("lock", "blueprint.yaml", "--write", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert "subnet_cidrs:" in blueprint.read_text(encoding="utf-8")
    assert installed.run("validate", "blueprint.yaml", cwd=empty).returncode == 0


def test_the_installed_acceptance_check_accepts_the_shipped_h100_capture_copied_into_the_users_folder(installed, empty):
    shutil.copytree(installed.site / "acceptance" / "examples" / "h100-80gb-hbm3", empty / "evidence")
    completed = installed.run("acceptance", "check", "--expect", "evidence/expectation.json", "--from", "evidence", cwd=empty)
    _no_traceback(completed)
    assert (completed.returncode, completed.stdout.splitlines()[-1]) == (0, "ACCEPTED")
    (empty / "evidence" / "dmesg.txt").unlink()
    rejected = installed.run("acceptance", "check", "--expect", "evidence/expectation.json", "--from", "evidence", cwd=empty)
    assert (rejected.returncode, rejected.stdout.splitlines()[-1]) == (1, "REJECTED (1 failed: evidence.dmesg.txt)")


def test_the_installed_acceptance_judge_records_a_baseline_and_holds_a_slower_run_to_it(installed, empty):
    from tests.acceptance.baselines import P5_LOG, scaled_busbw

    (empty / "run.log").write_text(P5_LOG, encoding="utf-8")
    (empty / "slower.log").write_text(scaled_busbw(P5_LOG, 0.8), encoding="utf-8")
    judge = ["acceptance", "judge", "--pool", "p5", "--nodes", "2"]
    blueprint = str(installed.examples / "adt-eks-capacity-block.yaml")
    recorded = installed.run(*judge, "run.log", blueprint, "--record-baseline", "baselines/p5.json", "--at", "2026-12-01", cwd=empty)
    _no_traceback(recorded)
    assert (recorded.returncode, recorded.stderr) == (0, "wrote the default run into baselines/p5.json\n")
    slower = installed.run(*judge, "slower.log", blueprint, "--baseline", "baselines/p5.json", cwd=empty)
    assert (slower.returncode, slower.stdout.splitlines()[-1]) == (1, "REJECTED (1 failed: fabric.baseline)")
    (empty / "baselines" / "p5.json").write_text("{", encoding="utf-8")
    broken = installed.run(*judge, "run.log", blueprint, "--baseline", "baselines/p5.json", cwd=empty)
    _no_traceback(broken)
    assert (broken.returncode, broken.stderr.split(":")[:2]) == (2, ["baselines/p5.json", " not a usable baseline"])


def test_the_installed_init_writes_a_starter_and_an_example_that_validate(installed, empty):
    starter, example = ("a starter blueprint", "railyard.yaml"), ("example dev-g6e", "dev-g6e.yaml")
    for args, (what, written) in ((["init"], starter), (["init", "dev-g6e"], example)):
        completed = installed.run(*args, cwd=empty)
        _no_traceback(completed)
        assert (completed.returncode, completed.stdout) == (
            0,
            f"wrote {what} to {written}; next: railyard validate {written}, and before the first deployment railyard lock {written} --write\n",
        )
        assert installed.run("validate", written, cwd=empty).returncode == 0
    assert (empty / "dev-g6e.yaml").read_text(encoding="utf-8") == (installed.examples / "dev-g6e.yaml").read_text(encoding="utf-8")


def test_the_installed_conform_judges_a_recorded_folder(installed, empty):
    from tests.conform.clusters import P5
    from tests.conform.folders import write_folder

    folder = write_folder(P5, empty / "evidence")
    completed = installed.run("conform", str(installed.examples / P5.blueprint), "--from", "evidence", "--json", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert '"ok": true' in completed.stdout and f'"evidence": "{folder.name}"' in completed.stdout


def test_the_installed_conform_says_what_an_empty_folder_could_not_check(installed, empty):
    (empty / "evidence").mkdir()
    completed = installed.run("conform", str(installed.examples / "dev-g6e.yaml"), "--from", "evidence", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 1, completed.stderr
    assert "conform.not-checked" in completed.stdout and "kubectl-get-nodes.json is missing" in completed.stdout


def test_the_installed_plan_ranks_the_shipped_sample_writes_it_and_adopts_a_reservation(installed, empty):
    sample = installed.examples / "plan"
    needs, offerings = str(sample / "llama-pretrain.needs.yaml"), str(sample / "offerings")
    completed = installed.run("plan", needs, "--offerings", offerings, "--at", "2026-12-01T00:00:00Z", "--top", "1", "--write", "out", cwd=empty)
    _no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert "aws ec2 purchase-capacity-block --capacity-block-offering-id cb-0e1a000000000001a" in completed.stdout
    adopted = installed.run("plan", "adopt", "out/llama-pretrain-1.yaml", "--reservation", "cr-0123456789abcdef0", cwd=empty)
    _no_traceback(adopted)
    assert adopted.returncode == 0, adopted.stderr
    assert (
        "reservation_id: cr-0123456789abcdef0  # bought from offering cb-0e1a000000000001a" in (empty / "out" / "llama-pretrain-1.yaml").read_text()
    )


COVERED = {
    "validate",
    "preview",
    "lock",
    "export",
    "schema",
    "catalog",
    "rules",
    "diff",
    "report",
    "init",
    "explain",
    "acceptance",
    "conform",
    "plan",
}


def test_every_command_is_run_from_the_wheel():
    assert set(COMMANDS) == COVERED
