"""`railyard explain CODE [--json]`: what a finding code or policy means, why it matters, the fix and its source."""

from __future__ import annotations

import difflib
import json
import re
import sys
import textwrap

from railyard.extras import MissingExtra

NAME = "explain"
HELP = "Explain a finding code or policy id (as `railyard rules` lists them): what it means, why, the fix, its source."
POLICY_ID = re.compile(r"^[A-Za-z]{3}\d{3}$")
WIDTH = 100


def add_arguments(parser) -> None:
    """CODE and --json."""
    parser.add_argument("code", help="a finding code (fsx.capacity-step) or a policy id (SEC003)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def explanations_of(code: str):
    """The explanations of `code` (a policy's only when it is asked for: the pack loads its own SDK), and the codes
    that exist, for a "did you mean" when it is none of them."""
    # Imported here: explaining reads every stage's registry and source, which no other command needs.
    from railyard.checks import every_check
    from railyard.explanations import check_explanations, policy_explanations

    checks = sorted({check.code for check in every_check()})
    for candidate in (code, code.lower()):
        if candidate in checks:
            return check_explanations(only=candidate)[candidate], checks
    try:
        policies = policy_explanations()
    except MissingExtra:
        if POLICY_ID.match(code):
            raise  # a policy id asked for without the pack: say which extra explains it
        policies = {}
    found = policies.get(code.upper())
    return ([found] if found else []), checks + sorted(policies)


def _paragraphs(title: str, text: str) -> list[str]:
    lines = [title]
    for paragraph in text.split("\n\n"):
        lines += textwrap.wrap(paragraph, WIDTH, initial_indent="  ", subsequent_indent="  ") or [""]
    return lines


def render(explanation) -> str:
    """One explanation as the text `railyard explain` prints."""
    lines = [f"{explanation.code}  ({explanation.stage}; raised by {explanation.owner})", ""]
    lines += _paragraphs("What it means", explanation.meaning)
    if explanation.messages and list(explanation.messages) != [explanation.meaning]:
        lines += ["", "What railyard says (<...> is filled in from your blueprint)"]
        lines += [f"  - {message}" for message in explanation.messages]
    lines += [""] + _paragraphs("Why it matters", explanation.why)
    lines += [""] + _paragraphs("How to fix it", explanation.fix)
    lines += ["", "Source"] + ([f"  - {cited}" for cited in explanation.source] or [f"  no document cited: the check itself, in {explanation.owner}"])
    return "\n".join(lines)


def run(args) -> int:
    """Print the explanation, or exit 2 with the closest codes for one that doesn't exist."""
    found, known = explanations_of(args.code)
    if not found:
        close = difflib.get_close_matches(args.code, known, n=3, cutoff=0.5)
        suggestion = f"did you mean {', '.join(close)}? " if close else ""
        print(f"railyard explain: no finding code or policy '{args.code}'; {suggestion}`railyard rules` lists them all", file=sys.stderr)
        return 2
    code = found[0].code
    if args.json:
        print(json.dumps({"code": code, "explanations": [item.as_json() for item in found]}, indent=2, sort_keys=True))
        return 0
    print("\n\n".join(render(item) for item in found))
    return 0
