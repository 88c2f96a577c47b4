"""The own-program example of docs/library.md runs: railyard's cluster plus the user's resource, offline.

The example's code block is read from the document and run under
`railyard.mocked.run_mocked`, so the page can't drift from what works.
"""

from __future__ import annotations

import contextvars
import os
import re
from pathlib import Path

from railyard.mocked import run_mocked

ROOT = Path(__file__).resolve().parents[2]


def example_program() -> str:
    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return code


def test_the_documented_program_builds_railyards_cluster_and_the_users_resource():
    code = example_program()
    cwd = os.getcwd()
    os.chdir(ROOT)  # the example names its blueprint relative to the project
    try:
        resources, outputs = contextvars.copy_context().run(run_mocked, lambda: exec(compile(code, "library.md", "exec"), {}), "us-west-2")
    finally:
        os.chdir(cwd)
    types = {resource.type for resource in resources}
    assert {"aws:eks/cluster:Cluster", "aws:eks/nodeGroup:NodeGroup", "aws:ssm/parameter:Parameter"} <= types
    (parameter,) = [resource for resource in resources if resource.type == "aws:ssm/parameter:Parameter"]
    assert parameter.inputs["type"] == "String"
    assert parameter.inputs["value"] == "[secret]"  # pulumi-aws marks a parameter's value secret
    assert outputs["clusterName"] == "devbox-dev" and outputs["clusterEndpoint"].startswith("https://")
