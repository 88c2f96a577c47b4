"""The CLI's commands, one module each: NAME, HELP, add_arguments(parser), run(args) -> exit status.

To add a command, write the module and list it here. The CLI imports every
command to build its parser, so a command that needs the Pulumi SDK (preview)
imports it inside `run`: `railyard validate` must never load it (a test in
tests/blueprints/test_cli.py holds it to that).
"""

from railyard.commands import catalog, diff, export, lock, preview, report, rules, schema, validate

COMMANDS = (validate, preview, diff, lock, export, report, schema, catalog, rules)
