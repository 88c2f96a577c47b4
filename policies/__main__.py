"""The CrossGuard policy pack: `pulumi preview --policy-pack policies`, or published with `pulumi policy publish`.

The Pulumi CLI runs this file from the pack's directory, in the pack's own
virtualenv (`requirements.txt`), as `python -u -m pulumi.policy <engine>
<pack directory>`, which puts the pack's directory first on sys.path. The pack
is self-contained: the rules import only `policies.*`, the Python standard
library and the pack's requirements, and what they know of railyard travels
in `data/`. So the directory is registered here as the package `policies`,
whatever the folder is called once published, and taken off sys.path (its
module names, `config` or `schema`, would otherwise shadow top-level ones).
`PolicyPack(...)` starts the analyzer and never returns: it is constructed
here and nowhere else.
"""

import importlib.util
import sys
from pathlib import Path

PACK_DIR = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != PACK_DIR]
if "policies" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("policies", PACK_DIR / "__init__.py", submodule_search_locations=[str(PACK_DIR)])
    if _spec is None or _spec.loader is None:  # a file path always gets a spec with a loader
        raise ImportError(f"can't load the policy pack from {PACK_DIR}")
    sys.modules["policies"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["policies"])

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from policies.registry import RULES  # noqa: E402

PolicyPack(
    name="railyard",
    description="railyard's accelerator-cluster rules: security, correctness, governance (docs/policies.md).",
    enforcement_level=EnforcementLevel.ADVISORY,
    policies=[rule.policy() for rule in RULES],
)
