"""The CLI's commands, one module each: NAME, HELP, add_arguments(parser), run(args) -> exit status.

To add a command, write the module and list its name here. The CLI imports only the command it
runs (`railyard validate` never loads what diff, report or lock need: about 90 ms of a cold start
on this project's machine); `railyard --help` imports them all for their help. A command that needs
the Pulumi SDK (preview) imports it inside `run`: `railyard validate` must never load it (a test in
tests/blueprints/test_cli.py holds it to that).
"""

from __future__ import annotations

import importlib
from types import ModuleType

COMMANDS = (
    "init",
    "validate",
    "preview",
    "diff",
    "lock",
    "export",
    "report",
    "schema",
    "catalog",
    "rules",
    "explain",
    "acceptance",
    "conform",
    "plan",
)


def command(name: str) -> ModuleType:
    """The module of the command `name` (one of COMMANDS), imported on first use."""
    return importlib.import_module(f"railyard.commands.{name}")
