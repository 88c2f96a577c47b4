"""The CLI's commands, one module each: NAME, HELP, add_arguments(parser), run(args) -> exit status.

To add a command, write the module and list it here.
"""

from railyard.commands import catalog, preview, rules, schema, validate

COMMANDS = (validate, preview, schema, catalog, rules)
