"""The pack runs from a copy of its folder alone, with only its own requirements installed.

This is how `pulumi policy publish` ships it and how an organisation enforces
it from the Pulumi service: the folder (under whatever name), its
`requirements.txt`, nothing of railyard's repository. The copy is started the
way the CLI starts a pack, `python -u -m pulumi.policy <engine> <pack dir>`
from the pack's directory, in a virtualenv holding exactly the pack's
requirements (`tests/policies/isolated.py`), and is spoken to over gRPC: it
must list every rule and report, for a recorded preview of the insecure
example, exactly what the offline runner reports.
"""

from __future__ import annotations

import shutil
import subprocess

import grpc
import pytest
from google.protobuf import empty_pb2
from pulumi.runtime.proto import analyzer_pb2_grpc

from policies.registry import RULES
from tests.policies.isolated import closure, isolated_env, make_venv, requirement_lines
from tests.policies.previews import ROOT, example
from tests.policies.test_pack import LEVELS, _engine_view, offline_view


@pytest.fixture(scope="module")
def copied_pack(tmp_path_factory):
    """A running analyzer from a copy of `policies/` named as a published pack would be, in its own venv."""
    scratch = tmp_path_factory.mktemp("published")
    pack = scratch / "railyard-0.2.0"
    shutil.copytree(ROOT / "policies", pack, ignore=shutil.ignore_patterns("__pycache__", "venv"))
    python = make_venv(scratch / "venv", pack / "requirements.txt")
    process = subprocess.Popen(
        [str(python), "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(pack)],
        cwd=pack,
        env=isolated_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = process.stdout.readline().strip()
        assert port.isdigit(), process.stderr.read() if process.poll() is not None else port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield python, analyzer_pb2_grpc.AnalyzerStub(channel)
    finally:
        process.kill()
        process.wait(timeout=10)


def test_the_isolated_venv_holds_the_pack_requirements_and_nothing_of_railyard(copied_pack):
    python, _ = copied_pack
    probe = (
        "import importlib.util, json; print(json.dumps({name: importlib.util.find_spec(name) is not None for name in "
        "['pulumi_policy', 'cerberus', 'blueprints', 'topology', 'components', 'railyard', 'networkx', 'pydantic', 'moto']}))"
    )
    completed = subprocess.run([str(python), "-c", probe], env=isolated_env(), cwd="/", capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == (
        '{"pulumi_policy": true, "cerberus": true, "blueprints": false, "topology": false, "components": false, '
        '"railyard": false, "networkx": false, "pydantic": false, "moto": false}'
    )
    names = {
        distribution.metadata["Name"].lower().replace("_", "-") for distribution in closure(requirement_lines(ROOT / "policies" / "requirements.txt"))
    }
    assert {"pulumi", "pulumi-policy", "cerberus"} <= names


def test_the_copied_pack_lists_every_rule(copied_pack):
    _, stub = copied_pack
    info = stub.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "railyard"
    assert {policy.name: LEVELS[policy.enforcementLevel] for policy in info.policies} == {rule.name: rule.enforcement for rule in RULES}


def test_the_copied_pack_reports_what_the_offline_runner_reports(copied_pack):
    _, stub = copied_pack
    insecure = example("insecure")
    offline = offline_view(insecure)
    assert offline and _engine_view(stub, insecure) == offline
