"""Optional parts of railyard and the pip extra that installs each, asked for by name instead of failing on import.

`pip install .` installs the CLI without the CrossGuard pack's requirements
(pulumi-policy, Cerberus); `pip install '.[policies]'` adds them. A command
that needs the pack calls `require_policy_pack` first, so a missing extra is
a one-line message and exit 2, not a ModuleNotFoundError traceback.
"""

from __future__ import annotations

from importlib.util import find_spec

# The modules each extra provides (pyproject.toml [project.optional-dependencies]).
POLICY_PACK_MODULES = ("pulumi_policy", "cerberus")


class MissingExtra(Exception):
    """A command needs an optional dependency that is not installed; the message says how to install it."""


def require_policy_pack(what: str) -> None:
    """Raise `MissingExtra` naming the `policies` extra when the pack's requirements are not importable."""
    missing = [module for module in POLICY_PACK_MODULES if find_spec(module) is None]
    if missing:
        raise MissingExtra(
            f"{what} needs the policy pack's requirements ({', '.join(missing)} not installed): "
            "pip install 'railyard[policies]' (from a checkout: pip install '.[policies]', or pip install -r policies/requirements.txt)"
        )
