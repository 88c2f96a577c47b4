"""The house's one direction of travel, held by its imports: load -> check -> compile -> police.

A stage imports only the stages before it (`railyard/` orchestrates them all),
so checking never imports compiling, and the validate path never loads the
Pulumi SDK. The first test reads every module's import statements; the second
runs `railyard validate` in a fresh interpreter and lists what it loaded.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Each stage and the top-level packages it may import (besides itself and third-party libraries).
ALLOWED = {
    "blueprints": set(),
    "topology": {"blueprints"},
    "components": {"blueprints", "topology"},
    # The policy pack stands beside the compiler: published and run as a folder of its own.
    "policies": set(),
    # The node checker stands alone too: it runs on the node, from a ConfigMap, with the standard library only.
    "acceptance": set(),
    "railyard": {"blueprints", "topology", "components", "policies", "acceptance"},
}
OURS = {"blueprints", "topology", "components", "railyard", "policies", "acceptance", "bench", "tests"}
SDK = ("pulumi", "pulumi_aws", "pulumi_kubernetes", "pulumi_policy", "grpc")
# boto3 is for `validate --online` only.
AWS_SDK = {"boto3", "botocore"}


def imported_packages(path: Path) -> set[str]:
    """The top-level names a module imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_every_stage_imports_only_the_stages_before_it():
    breaches = []
    for stage, allowed in ALLOWED.items():
        for path in sorted((ROOT / stage).rglob("*.py")):
            reached = (imported_packages(path) & OURS) - allowed - {stage}
            if reached:
                breaches.append(f"{path.relative_to(ROOT)} imports {sorted(reached)}")
    assert breaches == []


def test_the_policy_pack_imports_only_itself_and_its_requirements():
    allowed = {"policies", "pulumi", "pulumi_policy", "cerberus", "google", "__future__"} | set(sys.stdlib_module_names)
    # Generators that write the pack's data run in the dev environment, never in the pack's.
    tools = {"generate_constraints.py"}
    for path in sorted((ROOT / "policies").rglob("*.py")):
        if path.name not in tools:
            assert imported_packages(path) <= allowed, (path, imported_packages(path) - allowed)


def test_the_node_checker_imports_only_itself_and_the_standard_library():
    allowed = {"acceptance"} | set(sys.stdlib_module_names)
    for path in sorted((ROOT / "acceptance").rglob("*.py")):
        assert imported_packages(path) <= allowed, (path, imported_packages(path) - allowed)


def test_load_and_check_never_import_the_pulumi_sdk():
    for stage in ("blueprints", "topology"):
        for path in sorted((ROOT / stage).rglob("*.py")):
            assert not imported_packages(path) & set(SDK), path


def test_railyard_validate_loads_no_pulumi_grpc_aws_sdk_or_compiler_module_nor_another_command():
    script = (
        "import contextlib, io, json, sys\n"
        "from railyard.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['validate', 'blueprints/examples/p5-capacity-block.yaml'])\n"
        f"loaded = sorted(name for name in sys.modules if name.split('.')[0] in {set(SDK) | AWS_SDK | {'components', 'policies'}!r})\n"
        "commands = sorted(name for name in sys.modules if name.startswith('railyard.commands.'))\n"
        "print(json.dumps({'status': status, 'loaded': loaded, 'commands': commands}))\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    # validate's own module and the argument helpers it shares; never diff's, report's or lock's imports. Of the pack,
    # only its settings (`policies.config`: the knobs and their defaults, standard library only), which the pack's
    # verdict before preview reads (`railyard.preflight`); never its rules, registry or the policy SDK.
    assert report == {
        "status": 0,
        "loaded": ["policies", "policies.config"],
        "commands": ["railyard.commands.arguments", "railyard.commands.validate"],
    }
