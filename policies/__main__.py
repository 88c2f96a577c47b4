"""The CrossGuard policy pack: `pulumi preview --policy-pack policies`.

The Pulumi CLI runs this file from the `policies/` directory, in the pack's
own virtualenv (`requirements.txt`), as `python -u -m pulumi.policy <engine>
policies`, which puts `policies/` first on sys.path. The rules import `policies.*` and
`blueprints.catalog`, so the repository root goes first on `sys.path`, in
place of this directory (whose modules would otherwise shadow top-level
names). `PolicyPack(...)` starts the analyzer and never returns: it is
constructed here and nowhere else.
"""

import sys
from pathlib import Path

PACK_DIR = Path(__file__).resolve().parent
sys.path[:] = [str(PACK_DIR.parent)] + [entry for entry in sys.path if Path(entry or ".").resolve() != PACK_DIR]

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from policies.registry import RULES  # noqa: E402

PolicyPack(
    name="railyard",
    description="railyard's accelerator-cluster rules: security, correctness, governance (docs/policies.md).",
    enforcement_level=EnforcementLevel.ADVISORY,
    policies=[rule.policy() for rule in RULES],
)
