"""`diff(old, new)`: two blueprints (or stack configs) compiled offline and compared, with the impact on the cluster.

A side is a blueprint file, or a stack config (`Pulumi.<stack>.yaml`: its
blueprint with its overrides), read from the working tree or from a git
revision (`git archive`, into a temporary directory). Both sides are previewed
under the same mocks at the same instant, so only the blueprints differ.
"""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
import tempfile
from contextlib import ExitStack
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path

from blueprints.findings import Finding, has_errors, info, sort_findings
from blueprints.records import record
from blueprints.source import SourceError
from railyard.change.bought_blocks import bought_block_findings
from railyard.change.capacity_blocks import capacity_block_findings
from railyard.change.ceilings import Ceiling, ceilings
from railyard.change.compare import ResourceChange, compare
from railyard.change.cost import CostChange, cost_change
from railyard.change.findings_change import FindingsChange, findings_change
from railyard.change.flavors import flavor_splits
from railyard.change.held_groups import held_template_findings
from railyard.change.impact import Impact, impacts
from railyard.change.node_group_steps import ami_switches, held_groups_created, versions_down
from railyard.change.protected import protection_lifted
from railyard.change.replace_table import ReplaceTable, load_table
from railyard.change.ultraserver_roll import ultraserver_pools, ultraserver_roll_findings
from railyard.change.upgrade import settle_adopted_versions, upgrade_order, version_findings
from railyard.progress import stage

_STACK_FILE = re.compile(r"Pulumi\.(.+)\.yaml")


@record
class Side:
    """One side of a diff: what it is called, and how to preview it."""

    label: str
    file: str | None
    stack: str | None
    project_dir: str


def side_of(path: str, project_dir: str = ".") -> Side:
    """A blueprint file, or a `Pulumi.<stack>.yaml` stack config (previewed from its own directory)."""
    match = _STACK_FILE.fullmatch(Path(path).name)
    if match:
        return Side(path, None, match.group(1), str(Path(path).parent))
    return Side(path, path, None, project_dir)


def _git(args: list[str], cwd: str, file: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise SourceError("git is not installed; --git needs it", file) from None
    if done.returncode != 0:
        raise SourceError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}", file)
    return done.stdout


def side_at_revision(side: Side, revision: str, into: Path) -> Side:
    """The same side as it was at a git revision: the repository's tree at `revision`, unpacked under `into`."""
    anchor = Path(side.file or side.label).resolve().parent
    top = Path(_git(["rev-parse", "--show-toplevel"], str(anchor), side.label).decode().strip())
    archive = _git(["archive", "--format=tar", revision], str(top), side.label)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        try:
            tar.extractall(into, filter="data")
        except tarfile.FilterError as refused:  # a link to an absolute path or out of the tree: never followed
            raise SourceError(f"git archive {revision}: {refused}; railyard unpacks only what stays inside the checkout", side.label) from None

    def moved(path: str) -> str:
        resolved = Path(path).resolve()
        try:
            return str(into / resolved.relative_to(top))
        except ValueError:
            raise SourceError(f"{path} is outside the git repository at {top}", path) from None

    label = f"{side.label}@{revision}"
    if side.stack is not None:
        return Side(label, None, side.stack, moved(side.project_dir))
    assert side.file is not None
    return Side(label, moved(side.file), None, moved(side.project_dir))


@record(frozen=False)
class DiffResult:
    """Two previews compared: the resource changes, their impact, the ceilings and cost on both sides, the new side's
    findings against the old side's (`new_side`), and the findings the diff raises itself (`findings`; when a side is
    invalid, that side's findings instead)."""

    old: Side
    new: Side
    table: ReplaceTable
    changes: list[ResourceChange] = field(default_factory=list)
    impacts: list[Impact] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    source_maps: tuple = ()
    compared: bool = True
    cost: CostChange | None = None
    ceilings: tuple[Ceiling, ...] = ()
    new_side: FindingsChange | None = None

    @property
    def ok(self) -> bool:
        """True when both sides are valid and no change loses state the blueprint didn't accept."""
        return self.compared and not has_errors(self.findings)

    def counts(self) -> dict[str, int]:
        """Changed resources per action."""
        counts: dict[str, int] = {}
        for change in self.changes:
            counts[change.action] = counts.get(change.action, 0) + 1
        return dict(sorted(counts.items()))

    def as_json(self) -> dict:
        """The `diff --json` document."""
        return {
            "old": self.old.label,
            "new": self.new.label,
            "replace_table": {provider: dict(source) for provider, source in self.table.source.items()},
            "compared": self.compared,
            "counts": self.counts(),
            "impact": [impact.as_json() for impact in self.impacts],
            "ceilings": [ceiling.as_json() for ceiling in self.ceilings],
            "cost": None if self.cost is None else self.cost.as_json(),
            "changes": [change.as_json() for change in self.changes],
            "findings": [finding.as_json() for finding in self.findings],
            "new_side_findings": None if self.new_side is None else self.new_side.as_json(),
        }


def diff(old: Side, new: Side, at: datetime | None = None, table: ReplaceTable | None = None) -> DiffResult:
    """Preview both sides (at the same instant) and compare them; an invalid side stops the diff with its findings."""
    from railyard.mocked import run_preview

    moment = at or datetime.now(UTC)
    table = table or load_table()
    stage(f"previewing {old.label}")
    before = run_preview(old.file, old.stack, old.project_dir, at=moment)
    stage(f"previewing {new.label}")
    after = run_preview(new.file, new.stack, new.project_dir, at=moment)
    maps = (before.validation.load.source_map, after.validation.load.source_map)
    new_side = findings_change(before.findings, after.findings)
    if not (before.ok and after.ok):
        findings = [finding for result in (before, after) if not result.ok for finding in result.findings]
        return DiffResult(old, new, table, findings=sort_findings(findings), source_maps=maps, compared=False, new_side=new_side)
    stage("comparing")
    changes = settle_adopted_versions(compare(before.resources, after.resources, table), before.resources)
    found, findings = impacts(changes, before.validation, after.validation, after.resources)
    found += upgrade_order(changes, before.validation, after.validation, after.resources)
    found += [Impact("protection-lifted", *lifted) for lifted in protection_lifted(before.resources, after.resources)]
    found += [Impact("flavor-split", *split) for split in flavor_splits(before, after)]
    findings += version_findings(before.validation, after.validation)
    findings += held_groups_created(changes, after.validation, after.resources) + ami_switches(changes, after.validation)
    findings += versions_down(changes, after.validation)
    findings += held_template_findings(changes, after.validation)
    # An UltraServer pool's roll is refused (change.ultraserver-roll), which says what the Capacity Block warning would.
    ultra = ultraserver_pools(after.validation)
    findings += [
        finding for finding in capacity_block_findings(changes, before.validation, after.validation) if finding.certificate.get("pool") not in ultra
    ]
    findings += bought_block_findings(before.validation, after.validation)
    findings += ultraserver_roll_findings(changes, after.validation)
    if before.stack != after.stack:
        findings.append(
            info(
                "change.different-stacks",
                (),
                f"comparing stack {before.stack} with stack {after.stack}: resource names carry the environment, so nothing matches by name",
                "compare one stack's config before and after a change: `railyard diff --git <rev> Pulumi.<stack>.yaml`",
            )
        )
    was, now = before.validation.cost, after.validation.cost
    cost = cost_change(was, now) if was is not None and now is not None else None
    return DiffResult(old, new, table, changes, found, sort_findings(findings), maps, cost=cost, ceilings=ceilings(before, after), new_side=new_side)


def diff_against_revision(side: Side, revision: str, at: datetime | None = None) -> DiffResult:
    """`side` as it was at `revision` against `side` as it is now."""
    with ExitStack() as stack:
        into = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="railyard-diff-")))
        return diff(side_at_revision(side, revision, into), side, at)
