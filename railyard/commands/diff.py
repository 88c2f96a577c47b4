"""`railyard diff OLD NEW` / `railyard diff --git REV FILE`: what a blueprint change does to the running cluster.

OLD and NEW are blueprint files or stack configs (`Pulumi.<stack>.yaml`).
With `--git REV`, OLD is FILE as it was at that revision. The report has the
impact, the ceilings (max nodes, accelerators, spend and quotas at max), the
cost totals before and after, the resource changes, and the new side's
findings against the old side's (docs/diff.md). Exit 1 when either side is
invalid or a change loses state the new blueprint didn't accept.
"""

from __future__ import annotations

import json
import sys

from blueprints.source import SourceError
from railyard.collector import fewer_collections
from railyard.commands.arguments import instant
from railyard.progress import reporting, wanted

NAME = "diff"
HELP = (
    "Compare two blueprints (or stack configs, or a file against a git revision): every resource change, its impact on the cluster, "
    "the ceilings and cost before and after, and the new side's findings against the old side's."
)


def add_arguments(parser) -> None:
    """OLD [NEW], --git, --project-dir, --at, --json, --markdown."""
    parser.add_argument("old", help="the blueprint (or Pulumi.<stack>.yaml) before the change; with --git, the file to compare")
    parser.add_argument("new", nargs="?", help="the blueprint (or Pulumi.<stack>.yaml) after the change; omit with --git")
    parser.add_argument("--git", metavar="REV", help="compare OLD as it was at this git revision (a branch, tag or commit) with OLD now")
    parser.add_argument("--project-dir", default=".", help="where Pulumi.<stack>.yaml files live, for blueprint files (default: .)")
    parser.add_argument("--at", metavar="TIME", type=instant, default=None, help="plan both sides at this UTC time (default: now)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--markdown", action="store_true", help="print the Markdown a pull request gets as a comment")


def run(args) -> int:
    """Diff, print, and exit 1 on an invalid side or unaccepted state loss (2 on unusable arguments or input)."""
    if (args.git is None) == (args.new is None):
        print("railyard diff: give OLD and NEW, or one file with --git REV", file=sys.stderr)
        return 2
    with fewer_collections():  # the Pulumi SDK's import and two previews
        from railyard.change.diff import diff, diff_against_revision, side_of
        from railyard.change.render import markdown_report, text_report

        try:
            with reporting(sys.stderr, wanted(sys.stderr, args.json or args.markdown)):
                if args.git is not None:
                    result = diff_against_revision(side_of(args.old, args.project_dir), args.git, args.at)
                else:
                    result = diff(side_of(args.old, args.project_dir), side_of(args.new, args.project_dir), args.at)
        except SourceError as problem:
            if problem.finding is not None:
                raise  # a YAML syntax error: the CLI frames it like every finding
            print(f"railyard diff: {problem}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True, default=str))
    elif args.markdown:
        sys.stdout.write(markdown_report(result))
    else:
        print(text_report(result))
    return 0 if result.ok else 1
