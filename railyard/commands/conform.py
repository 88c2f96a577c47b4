"""`railyard conform FILE [--stack ENV] (--from DIR | [--record DIR] [--profile NAME]) [--json | --markdown]`.

`railyard conform --print iam-policy|cluster-role` prints what the live read needs, to grant before it runs.

Is the running cluster what the blueprint says? Read-only. `--from DIR` judges a folder of recorded
answers offline; without it the live cluster is read (AWS through `validate --online`'s read-only
account, Kubernetes through `kubectl get`), and `--record DIR` keeps what was read in that same
folder shape. Exit 1 when any finding is an error (a check that could not run is one).
"""

from __future__ import annotations

import json
import sys
import tempfile

from railyard.commands.arguments import add_file_arguments
from railyard.progress import reporting, stage, wanted
from railyard.render import findings_report

NAME = "conform"
HELP = "Compare the running cluster (or a folder of its recorded answers) with the blueprint, read-only."


def add_arguments(parser) -> None:
    """FILE, --stack, --project-dir, --from, --record, --profile, --kubectl, --print, --json, --markdown."""
    add_file_arguments(parser)
    parser.add_argument("--from", dest="source", metavar="DIR", help="judge this folder of recorded answers instead of the live cluster")
    parser.add_argument("--record", metavar="DIR", help="read the live cluster and keep every answer in DIR (the folder --from reads)")
    parser.add_argument("--profile", help="the AWS profile to read the account with (default: the environment's credentials)")
    parser.add_argument("--kubectl", default="kubectl", help="the kubectl to read the cluster with (default: kubectl on PATH, its current context)")
    parser.add_argument(
        "--print",
        dest="permission",
        choices=("iam-policy", "cluster-role"),
        help="print the IAM policy or the Kubernetes ClusterRole the live read needs (JSON) and exit; no blueprint is read",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--markdown", action="store_true", help="print the Markdown a pull request gets as a comment")


def run(args) -> int:
    """Judge and print; exit 1 on an error, 2 when --from and --record are both given."""
    from railyard.conform import conform
    from railyard.online.evidence import read_evidence
    from railyard.pipeline import validate

    if args.permission:
        from railyard.online.cluster import cluster_role, iam_policy

        print(json.dumps(iam_policy() if args.permission == "iam-policy" else cluster_role(), indent=2))
        return 0
    if args.source and args.record:
        print("railyard conform: give --from DIR (judge a recorded folder) or --record DIR (read the cluster), not both", file=sys.stderr)
        return 2
    with reporting(sys.stderr, wanted(sys.stderr, args.json or args.markdown)):
        result = validate(args.file, args.stack, args.project_dir)
        folder = args.source
        if folder is None and result.blueprint is not None and result.ok:
            stage("reading the cluster")
            folder = args.record or tempfile.mkdtemp(prefix="railyard-conform-")
            _record(result, folder, args.profile, args.kubectl)
        stage("comparing the cluster with the plan")
        report = conform(result, read_evidence(folder or "."))
    if args.json:
        print(json.dumps(report.as_json(), indent=2, sort_keys=True))
    elif args.markdown:
        sys.stdout.write(markdown(report))
    else:
        checked = f"cluster {report.cluster}" if report.cluster else "the blueprint did not validate; nothing was compared"
        print(
            "\n\n".join(
                [
                    f"blueprint {report.file}: {checked}, evidence {report.folder}",
                    findings_report(report.findings, result.load.source_map),
                    "ok: the cluster conforms" if report.ok else "FAILED: the cluster differs from the blueprint",
                ]
            )
        )
    return 0 if report.ok else 1


def _record(result, folder: str, profile: str | None, kubectl: str) -> None:
    """Read the live cluster into `folder` (boto3 is imported only here)."""
    from railyard.online.cluster import record_cluster

    for failure in record_cluster(result.blueprint, folder, profile=profile, kubectl=kubectl):
        print(f"railyard conform: not recorded: {failure}", file=sys.stderr)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(report) -> str:
    """The pull-request comment: the verdict, then one row per finding."""
    counts = {severity: sum(1 for finding in report.findings if finding.severity == severity) for severity in ("error", "warning", "info")}
    verdict = "conforms" if report.ok else "differs"
    out = [
        f"### railyard conform: `{report.cluster or report.file}` {verdict}",
        "",
        f"{counts['error']} error(s), {counts['warning']} warning(s); checks: {', '.join(report.checks) or 'none'}.",
        "",
    ]
    if report.findings:
        out += ["| severity | code | where | message |", "| --- | --- | --- | --- |"]
        for finding in report.findings:
            where = f"{finding.file}:{finding.line}" if finding.line else (finding.file or finding.path_text)
            out.append(f"| {finding.severity} | `{finding.code}` | {_cell(where)} | {_cell(finding.message)} |")
    return "\n".join(out) + "\n"
