"""A YAML syntax error as a finding: the same code frame (file, line, caret) and a hint as every other finding.

PyYAML stops at the first syntax error and names the problem in its own words
("mapping values are not allowed in this context"), with a mark where it broke and,
for an unclosed `[` or `{`, a context mark where the collection opened. The words say
what the parser expected, not what the author did, so each problem PyYAML raises for
a blueprint-shaped file is given the fix an author needs (the problem strings are
PyYAML's, `yaml/scanner.py` and `yaml/parser.py`). An unknown problem keeps a general hint.
"""

from __future__ import annotations

from blueprints.findings import Finding, error

CODE = "yaml.syntax"
# `railyard explain yaml.syntax`: the hint is chosen per problem at run time.
EXPLAIN = {
    CODE: {
        "meaning": "the file is not valid YAML: the parser stopped at the caret (nothing of the blueprint was checked)",
        "fix": "fix the YAML at the caret (indentation, an unclosed bracket or quote, a tab); the hint names the usual cause",
    },
}
# PyYAML's problem text (a prefix of it) -> what usually causes it in a hand-written blueprint.
HINTS = (
    (
        "mapping values are not allowed",
        "a `key: value` sits where YAML expects a plain value: line this key up with the other keys of its mapping "
        "(same indentation), or quote a value that contains ': '",
    ),
    ("did not find expected ',' or ']'", "close the `[` list opened {opened} with `]`, or write the items as a block list (`- item` per line)"),
    ("did not find expected ',' or '}'", "close the `{{` mapping opened {opened} with `}}`, or write it as a block mapping (`key: value` per line)"),
    ("found unexpected end of stream", "a quote or bracket opened {opened} is never closed"),
    ("could not find expected ':'", "a key is missing its `:`, or a quoted string opened {opened} isn't closed"),
    (
        "did not find expected key",
        "this line's indentation doesn't match a key of the mapping above: line it up with its siblings, or start a list item with `- `",
    ),
    ("did not find expected '-' indicator", "a list's items each start with `- ` at the same indentation; this line breaks the list"),
    ("found undefined alias", "an `*alias` names no `&anchor` defined above it: define the anchor first or write the value out"),
)
TAB = "YAML indents with spaces only: replace the tab on this line with spaces"
GENERAL = "fix the YAML at the caret; `railyard schema` gives the blueprint's JSON Schema, for an editor that checks as you type"


def syntax_hint(problem: str, opened_line: int | None, text: str = "") -> str:
    """The fix for one of PyYAML's problems; `opened_line` is where the unclosed collection or quote began, if known, and
    `text` the line it broke on (libyaml words a tab as "found character that cannot start any token", without the tab)."""
    opened = f"at line {opened_line}" if opened_line else "above"
    if "cannot start any token" in problem and "\t" in text:
        return TAB
    return next((hint.format(opened=opened) for prefix, hint in HINTS if problem.startswith(prefix)), GENERAL)


def syntax_finding(problem: str, file: str, line: int | None, column: int | None, opened_line: int | None = None, text: str = "") -> Finding:
    """The error for a YAML syntax error, placed at PyYAML's mark (`text` is that line), with the hint for its problem."""
    return error(CODE, (), f"YAML syntax error: {problem}", syntax_hint(problem, opened_line, text)).at(file, line, column)
