"""`python -m acceptance`: record a node's evidence, judge it, or both, with only the standard library.

    python -m acceptance record --expect expectation.json --into /var/lib/railyard/evidence
    python -m acceptance check  --expect expectation.json --from /var/lib/railyard/evidence [--json]
    python -m acceptance run    --expect expectation.json --into DIR [--json]   # record, then check
    python -m acceptance rdma-devices [--sys DIR]   # the RDMA devices and their drivers (the EFA evidence)

With `--publish NODE` (in a pod: `--publish "$NODE_NAME"` from the downward API) the verdict is
written on the node as the `railyard.dev/Accepted` condition and the `railyard.dev/acceptance`
annotation; `--lift-taint` also removes the `railyard.dev/acceptance` taint from a node that
passed (leave it off where node-readiness-controller lifts it). See acceptance/kube.py.
With `--replace-on-failure` as well, a node that was judged and failed has its instance marked
Unhealthy so its Auto Scaling group replaces it, through EKS Pod Identity's credentials, and the
outcome written on the node (acceptance/replace.py; `--autoscaling-endpoint` overrides
`https://autoscaling.<AWS_REGION>.amazonaws.com/`).

Exit status: 0 when the node is accepted, 1 when a check failed (and, with `--replace-on-failure`,
its replacement was requested), 2 when the expectation or the folder can't be read or the verdict
can't be published, 3 when a check failed and the replacement could not be requested (the reason is
printed, and written on the node where the API server takes it).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from acceptance.efa import default_sys_root, list_rdma_devices
from acceptance.evidence import record
from acceptance.expectation import Expectation, ExpectationError
from acceptance.kube import ApiError, NodeApi, publish
from acceptance.replace import replace_node
from acceptance.report import Report
from acceptance.run import check_folder


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m acceptance", description="Accept a node against its pool's design.")
    sub = parser.add_subparsers(dest="action", required=True)
    for action, folder_flag, helptext in (
        ("record", "--into", "run the commands and write their output into a folder"),
        ("check", "--from", "judge a folder of recorded outputs"),
        ("run", "--into", "record, then judge"),
    ):
        command = sub.add_parser(action, help=helptext)
        command.add_argument("--expect", required=True, metavar="FILE", help="the expectation JSON")
        command.add_argument(folder_flag, dest="folder", required=True, metavar="DIR", help="the evidence folder")
        command.add_argument("--json", action="store_true", help="print the report as JSON")
        if action != "record":
            command.add_argument("--publish", metavar="NODE", help="write the verdict on this node (in-cluster service account)")
            command.add_argument("--lift-taint", action="store_true", help="with --publish: remove the acceptance taint when the node passed")
            command.add_argument(
                "--replace-on-failure", action="store_true", help="with --publish: mark a failed node's instance Unhealthy in its Auto Scaling group"
            )
            command.add_argument("--autoscaling-endpoint", metavar="URL", help="Auto Scaling's endpoint (default: the region's, from AWS_REGION)")
    devices = sub.add_parser("rdma-devices", help="list the RDMA devices in sysfs and the driver bound to each (the EFA evidence)")
    devices.add_argument("--sys", metavar="DIR", help="the sysfs to read (default: /host/sys where the checker pod mounts the host's, else /sys)")
    return parser


def _act_on(report: Report, node: str, api: NodeApi, endpoint: str | None) -> int:
    """A failed node's replacement, asked for after its verdict is published: 1 when requested, 3 when not."""
    try:
        outcome = replace_node(api, node, report, os.environ, endpoint)
    except (ApiError, OSError) as exc:
        print(f"node {node} failed, but the replacement's outcome can't be written on it: {exc}", file=sys.stderr)
        return 3
    print(f"node {node}: {outcome.sentence()}", file=sys.stderr)
    return 1 if outcome.requested else 3


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, act, print, and return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.action == "rdma-devices":
        print(list_rdma_devices(Path(args.sys) if args.sys else default_sys_root()), end="")
        return 0
    if getattr(args, "replace_on_failure", False) and not args.publish:
        parser.error("--replace-on-failure needs --publish NODE: the verdict goes on the node before its instance is replaced")
    try:
        expectation = Expectation.from_json(Path(args.expect).read_text(encoding="utf-8"))
    except OSError as exc:
        print(f"{args.expect}: can't read the expectation: {exc.strerror}", file=sys.stderr)
        return 2
    except ExpectationError as exc:
        print(f"{args.expect}: {exc}", file=sys.stderr)
        return 2
    folder = Path(args.folder)
    if args.action in ("record", "run"):
        for file, outcome in record(expectation, folder).items():
            print(f"{file}: {outcome}", file=sys.stderr)
        if args.action == "record":
            return 0
    elif not folder.is_dir():
        print(f"{folder}: no such folder", file=sys.stderr)
        return 2
    report = check_folder(expectation, folder)
    print(report.as_json() if args.json else report.as_text())
    if args.publish:
        try:
            api = NodeApi.in_cluster()
            lifted = publish(report, args.publish, api, args.lift_taint)
        except (ApiError, OSError) as exc:
            print(f"can't publish the verdict on node {args.publish}: {exc}", file=sys.stderr)
            return 2
        print(f"published on node {args.publish}{'; taint lifted' if lifted else ''}", file=sys.stderr)
        if args.replace_on_failure and not report.passed:
            return _act_on(report, args.publish, api, args.autoscaling_endpoint)
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
