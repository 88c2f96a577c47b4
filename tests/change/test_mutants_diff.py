"""railyard/change/diff.py without a preview: which side a path is (a blueprint, or a stack config previewed from its
own folder), a side as it was at a git revision (a repository made in the test) and git's refusals, a result's
verdict, counts and JSON, and what `diff()` gathers from two previews it is handed (run_preview faked): both
previewed at one instant, an invalid side stopping the diff with its findings, and every check's impacts and findings
reaching the result, each check given the side it must read. The checks themselves have their own tests
(`test_mutants_<check>.py`); here each stands in as a function that records what it was called with."""

from __future__ import annotations

import io
import subprocess
import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType

import pytest

import railyard.change.diff as diff_module
import railyard.mocked
from blueprints.findings import error, info, warning
from blueprints.source import SourceError
from railyard.change.diff import DiffResult, Side, diff, diff_against_revision, side_at_revision, side_of
from railyard.change.impact_record import Impact
from railyard.change.replace_table import ReplaceTable
from railyard.mocked import PreviewResult
from railyard.progress import reporting
from tests.change.built import blueprint, change, side
from topology.cost_report import CostReport

AT = datetime(2026, 3, 1, 12, tzinfo=UTC)
TABLE = ReplaceTable(MappingProxyType({"aws": MappingProxyType({"described": "pulumi-aws 7"})}), MappingProxyType({}))


# --- side_of ---------------------------------------------------------------------------------------------------------


def test_a_blueprint_file_is_previewed_from_the_given_project_folder():
    assert side_of("plans/train.yaml") == Side("plans/train.yaml", "plans/train.yaml", None, ".")
    assert side_of("plans/train.yaml", "infra") == Side("plans/train.yaml", "plans/train.yaml", None, "infra")


def test_a_stack_config_is_previewed_as_its_stack_from_its_own_folder():
    assert side_of("infra/Pulumi.prod-kubernetes.yaml", "elsewhere") == Side("infra/Pulumi.prod-kubernetes.yaml", None, "prod-kubernetes", "infra")


@pytest.mark.parametrize("name", ["xPulumi.prod.yaml", "Pulumi.prod.yaml.bak", "Pulumi..yaml", "pulumi.prod.yaml"])
def test_only_a_whole_pulumi_stack_file_name_is_a_stack(name):
    assert side_of(f"infra/{name}") == Side(f"infra/{name}", f"infra/{name}", None, ".")


# --- side_at_revision ------------------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=repo, capture_output=True, check=True)
    return done.stdout.decode().strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repository whose first commit holds `plans/train.yaml` ("nodes: 2") and `infra/Pulumi.dev.yaml`; the working
    tree has since changed the blueprint to "nodes: 4"."""
    top = tmp_path / "repo"
    (top / "plans").mkdir(parents=True)
    (top / "infra").mkdir()
    (top / "plans" / "train.yaml").write_text("nodes: 2\n")
    (top / "infra" / "Pulumi.dev.yaml").write_text("config: {}\n")
    _git(top, "init", "-q")
    _git(top, "add", ".")
    _git(top, "commit", "-q", "-m", "first")
    (top / "plans" / "train.yaml").write_text("nodes: 4\n")
    return top


def test_a_blueprint_at_a_revision_is_the_committed_file_unpacked_under_the_folder(repo, tmp_path):
    into = tmp_path / "into"
    at = side_at_revision(side_of(str(repo / "plans" / "train.yaml"), str(repo / "infra")), "HEAD", into)
    assert at == Side(f"{repo / 'plans' / 'train.yaml'}@HEAD", str(into / "plans" / "train.yaml"), None, str(into / "infra"))
    assert Path(at.file).read_text() == "nodes: 2\n"
    assert (into / "infra" / "Pulumi.dev.yaml").read_text() == "config: {}\n"


def test_a_stack_at_a_revision_keeps_its_stack_and_moves_its_folder(repo, tmp_path):
    into = tmp_path / "into"
    at = side_at_revision(side_of(str(repo / "infra" / "Pulumi.dev.yaml")), "HEAD", into)
    assert at == Side(f"{repo / 'infra' / 'Pulumi.dev.yaml'}@HEAD", None, "dev", str(into / "infra"))


def test_a_side_read_from_a_subfolder_finds_the_repositorys_top(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo / "plans")
    at = side_at_revision(side_of("train.yaml", "."), "HEAD", tmp_path / "into")
    assert at == Side("train.yaml@HEAD", str(tmp_path / "into" / "plans" / "train.yaml"), None, str(tmp_path / "into" / "plans"))


def test_a_project_folder_outside_the_repository_is_refused_by_name(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    with pytest.raises(SourceError) as raised:
        side_at_revision(side_of(str(repo / "plans" / "train.yaml"), str(outside)), "HEAD", tmp_path / "into")
    assert (raised.value.message, raised.value.file) == (f"{outside} is outside the git repository at {repo}", str(outside))


def test_a_revision_git_does_not_know_is_refused_with_gits_own_words(repo, tmp_path):
    with pytest.raises(SourceError) as raised:
        side_at_revision(side_of(str(repo / "plans" / "train.yaml"), str(repo)), "no-such-rev", tmp_path / "into")
    assert raised.value.message.startswith("git archive --format=tar no-such-rev: fatal: ")
    assert raised.value.message == raised.value.message.strip()
    assert raised.value.file == str(repo / "plans" / "train.yaml")


def test_gits_words_that_are_not_utf8_are_shown_with_replacement_characters(repo, tmp_path):
    # A revision whose name holds the byte 0xff (passed through as a surrogate): git echoes the byte back.
    with pytest.raises(SourceError) as raised:
        side_at_revision(side_of(str(repo / "plans" / "train.yaml"), str(repo)), "bad\udcffrev", tmp_path / "into")
    assert raised.value.message == "git archive --format=tar bad\udcffrev: fatal: not a valid object name: bad\ufffdrev"


def test_a_revision_holding_a_link_out_of_the_tree_is_refused_not_unpacked(repo, tmp_path):
    (repo / "plans" / "escape").symlink_to("/etc/hostname")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "a link to an absolute path")
    with pytest.raises(SourceError) as raised:
        side_at_revision(side_of(str(repo / "plans" / "train.yaml"), str(repo)), "HEAD", tmp_path / "into")
    assert raised.value.message == (
        "git archive HEAD: 'plans/escape' is a link to an absolute path; railyard unpacks only what stays inside the checkout"
    )
    assert raised.value.file == str(repo / "plans" / "train.yaml")
    assert not (tmp_path / "into" / "plans" / "escape").exists()


def test_a_file_outside_any_repository_is_refused_by_rev_parse(tmp_path):
    (tmp_path / "loose.yaml").write_text("nodes: 1\n")
    with pytest.raises(SourceError) as raised:
        side_at_revision(side_of(str(tmp_path / "loose.yaml"), str(tmp_path)), "HEAD", tmp_path / "into")
    assert raised.value.message.startswith("git rev-parse --show-toplevel: fatal: not a git repository")
    assert raised.value.file == str(tmp_path / "loose.yaml")


def test_without_git_installed_the_refusal_says_so(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SourceError) as raised:
        side_at_revision(side_of(str(repo / "plans" / "train.yaml"), str(repo)), "HEAD", tmp_path / "into")
    assert (raised.value.message, raised.value.file) == ("git is not installed; --git needs it", str(repo / "plans" / "train.yaml"))


def test_diff_against_a_revision_diffs_the_unpacked_side_against_the_side_as_it_is(repo, monkeypatch):
    seen = []

    def compared(old, new, at=None):
        seen.append((old, Path(old.file).read_text(), new, at))
        return "result"

    monkeypatch.setattr(diff_module, "diff", compared)
    now = side_of(str(repo / "plans" / "train.yaml"), str(repo))
    assert diff_against_revision(now, "HEAD", AT) == "result"
    [(old, text, new, at)] = seen
    assert (old.label, text, new, at) == (f"{now.label}@HEAD", "nodes: 2\n", now, AT)
    assert Path(old.file).relative_to(tempfile.gettempdir()).parts[0].startswith("railyard-diff-")
    assert not Path(old.file).exists(), "the unpacked tree is removed once the diff is made"


# --- DiffResult --------------------------------------------------------------------------------------------------------


OLD, NEW = Side("old.yaml", "old.yaml", None, "."), Side("new.yaml", "new.yaml", None, ".")


def test_a_result_is_ok_only_when_compared_and_without_an_error():
    assert DiffResult(OLD, NEW, TABLE).ok is True
    assert DiffResult(OLD, NEW, TABLE, findings=[warning("w.x", (), "m")]).ok is True
    assert DiffResult(OLD, NEW, TABLE, findings=[error("e.x", (), "m")]).ok is False
    assert DiffResult(OLD, NEW, TABLE, compared=False).ok is False


def test_counts_are_changes_per_action_in_action_order():
    changes = [change(name, "aws:ec2/subnet:Subnet", action, {}, {}) for name, action in (("a", "update"), ("b", "create"), ("c", "update"))]
    assert list(DiffResult(OLD, NEW, TABLE, changes).counts().items()) == [("create", 1), ("update", 2)]
    assert DiffResult(OLD, NEW, TABLE).counts() == {}


def test_the_json_document_of_a_result_not_compared():
    finding = error("e.x", ("pools",), "bad", "fix it")
    assert DiffResult(OLD, NEW, TABLE, findings=[finding], compared=False).as_json() == {
        "old": "old.yaml",
        "new": "new.yaml",
        "replace_table": {"aws": {"described": "pulumi-aws 7"}},
        "compared": False,
        "counts": {},
        "impact": [],
        "ceilings": [],
        "cost": None,
        "changes": [],
        "findings": [finding.as_json()],
        "new_side_findings": None,
    }


def test_the_json_document_carries_every_part_as_its_own_json():
    class Part:
        def __init__(self, name):
            self.name = name

        def as_json(self):
            return {"part": self.name}

    grown = change("a", "aws:ec2/subnet:Subnet", "create", None, {"cidrBlock": "10.0.0.0/24"})
    result = DiffResult(
        OLD, NEW, TABLE, [grown], [Impact("resized", "pool a", "grown")], cost=Part("cost"), ceilings=(Part("ceiling"),), new_side=Part("new side")
    )
    document = result.as_json()
    assert (document["counts"], document["impact"], document["ceilings"]) == (
        {"create": 1},
        [{"kind": "resized", "subject": "pool a", "summary": "grown", "figures": {}}],
        [{"part": "ceiling"}],
    )
    assert (document["cost"], document["changes"], document["new_side_findings"]) == ({"part": "cost"}, [grown.as_json()], {"part": "new side"})


# --- diff() --------------------------------------------------------------------------------------------------------------


def _preview(findings=(), stack="railyard-preview", cost=None, resources=None) -> PreviewResult:
    validation = replace(side(blueprint()), cost=cost)
    return PreviewResult(validation, resources if resources is not None else [], {}, list(findings), stack=stack)


class Checks:
    """diff()'s checks stood in for: each returns a marked impact or finding and records the arguments it was given."""

    def __init__(self, monkeypatch):
        self.calls: dict[str, tuple] = {}
        self.ultra: set[str] = set()
        self.capacity = [warning("stand.capacity", (), "on a block", pool="train"), warning("stand.capacity", (), "ultra", pool="rack")]
        found = {
            "protection_lifted": [("pool a", "lifted")],
            "flavor_splits": [("pool b", "split")],
            "version_findings": [info("stand.version", (), "version")],
            "held_groups_created": [info("stand.held", (), "held")],
            "ami_switches": [info("stand.ami", (), "ami")],
            "versions_down": [info("stand.down", (), "down")],
            "held_template_findings": [info("stand.template", (), "template")],
            "bought_block_findings": [info("stand.bought", (), "bought")],
            "ultraserver_roll_findings": [info("stand.ultra-roll", (), "roll")],
            "upgrade_order": [Impact("upgrade", "cluster", "order")],
            "ceilings": ("ceiling",),
            "cost_change": "cost change",
            "findings_change": "new side",
        }
        for name, value in found.items():
            monkeypatch.setattr(diff_module, name, self._recording(name, value))
        monkeypatch.setattr(diff_module, "compare", self._recording("compare", ["compared"]))
        monkeypatch.setattr(diff_module, "settle_adopted_versions", self._recording("settle_adopted_versions", ["settled"]))
        monkeypatch.setattr(diff_module, "impacts", self._recording("impacts", None))
        monkeypatch.setattr(diff_module, "ultraserver_pools", self._recording("ultraserver_pools", self.ultra))
        monkeypatch.setattr(diff_module, "capacity_block_findings", self._recording("capacity_block_findings", self.capacity))
        monkeypatch.setattr(diff_module, "load_table", lambda: TABLE)

    def _recording(self, name, value):
        def check(*args):
            self.calls[name] = args
            if name == "impacts":
                return [Impact("resized", "pool c", "impact")], [info("stand.impact", (), "impact")]
            return list(value) if isinstance(value, (list, set)) else value

        return check


@pytest.fixture
def previews(monkeypatch):
    """run_preview faked: it hands out the previews a test queues, and records what it was asked for."""
    queued: list[PreviewResult] = []
    asked: list[tuple] = []

    def run_preview(file, stack, project_dir, at=None):
        asked.append((file, stack, project_dir, at))
        return queued.pop(0)

    monkeypatch.setattr(railyard.mocked, "run_preview", run_preview)
    return queued, asked


def test_both_sides_are_previewed_at_the_instant_given(previews, monkeypatch):
    queued, asked = previews
    Checks(monkeypatch)
    queued += [_preview(), _preview()]
    result = diff(Side("o", "old.yaml", None, "a"), Side("n", None, "prod", "b"), at=AT, table=TABLE)
    assert asked == [("old.yaml", None, "a", AT), (None, "prod", "b", AT)]
    assert (result.old, result.new, result.table) == (Side("o", "old.yaml", None, "a"), Side("n", None, "prod", "b"), TABLE)
    queued += [_preview(), _preview()]
    diff(Side("o", None, "dev", "a"), Side("n", "new.yaml", None, "b"), at=AT, table=TABLE)
    assert asked[2:] == [(None, "dev", "a", AT), ("new.yaml", None, "b", AT)]


def test_without_an_instant_both_sides_are_previewed_at_the_same_moment_now(previews, monkeypatch):
    queued, asked = previews
    Checks(monkeypatch)
    queued += [_preview(), _preview()]
    diff(OLD, NEW)
    [(_, _, _, first), (_, _, _, second)] = asked
    assert first is second
    assert first.tzinfo is UTC and abs(datetime.now(UTC) - first) < timedelta(minutes=1)


def test_without_a_table_the_committed_one_is_read(previews, monkeypatch):
    queued, _ = previews
    Checks(monkeypatch)
    queued += [_preview(), _preview()]
    assert diff(OLD, NEW, at=AT).table is TABLE


def test_the_stages_are_announced_in_order(previews, monkeypatch):
    queued, _ = previews
    Checks(monkeypatch)
    queued += [_preview(), _preview()]
    shown = io.StringIO()
    with reporting(shown, True):
        diff(OLD, NEW, at=AT, table=TABLE)
    stages = [part.split("... (")[0] for part in shown.getvalue().split("\r\x1b[Krailyard: ")[1:]]
    assert stages == ["previewing old.yaml", "previewing new.yaml", "comparing"]


@pytest.mark.parametrize("bad", ["old", "new", "both"])
def test_an_invalid_side_stops_the_diff_with_its_own_findings(previews, monkeypatch, bad):
    queued, _ = previews
    checks = Checks(monkeypatch)
    old_error, new_error = error("old.bad", ("a",), "old broken"), error("new.bad", ("b",), "new broken")
    note = warning("any.note", ("c",), "a warning on the valid side")
    old = _preview([old_error, note] if bad in ("old", "both") else [note])
    new = _preview([new_error] if bad in ("new", "both") else [note])
    queued += [old, new]
    result = diff(OLD, NEW, at=AT, table=TABLE)
    expected = {"old": [old_error, note], "new": [new_error], "both": [old_error, note, new_error]}[bad]
    assert (result.compared, result.ok, result.changes, result.impacts) == (False, False, [], [])
    assert (result.old, result.new, result.table) == (OLD, NEW, TABLE)
    assert sorted(result.findings, key=lambda item: item.code) == sorted(expected, key=lambda item: item.code)
    assert result.source_maps == (old.validation.load.source_map, new.validation.load.source_map)
    assert (result.new_side, checks.calls["findings_change"]) == ("new side", (old.findings, new.findings))
    assert "compare" not in checks.calls


def test_a_valid_pair_gathers_every_checks_impacts_and_findings(previews, monkeypatch):
    queued, _ = previews
    checks = Checks(monkeypatch)
    checks.ultra.add("rack")
    old, new = _preview([warning("old.note", (), "kept out")], resources=["old resources"]), _preview(resources=["new resources"])
    queued += [old, new]
    result = diff(OLD, NEW, at=AT, table=TABLE)
    assert result.compared is True
    assert [(impact.kind, impact.subject, impact.summary) for impact in result.impacts] == [
        ("resized", "pool c", "impact"),
        ("upgrade", "cluster", "order"),
        ("protection-lifted", "pool a", "lifted"),
        ("flavor-split", "pool b", "split"),
    ]
    codes = sorted(finding.code for finding in result.findings)
    assert codes == sorted(
        [
            "stand.impact",
            "stand.version",
            "stand.held",
            "stand.ami",
            "stand.down",
            "stand.template",
            "stand.capacity",
            "stand.bought",
            "stand.ultra-roll",
        ]
    )
    assert [finding.message for finding in result.findings if finding.code == "stand.capacity"] == ["on a block"]
    assert (result.changes, result.ceilings, result.new_side, result.cost) == (["settled"], ("ceiling",), "new side", None)
    assert result.source_maps == (old.validation.load.source_map, new.validation.load.source_map)


def test_each_check_reads_the_side_it_must(previews, monkeypatch):
    queued, _ = previews
    checks = Checks(monkeypatch)
    old, new = _preview(resources=["old resources"]), _preview(resources=["new resources"])
    queued += [old, new]
    diff(OLD, NEW, at=AT, table=TABLE)
    was, now = old.validation, new.validation
    assert checks.calls["compare"] == (old.resources, new.resources, TABLE)
    assert checks.calls["settle_adopted_versions"] == (["compared"], old.resources)
    assert checks.calls["impacts"] == (["settled"], was, now, new.resources)
    assert checks.calls["upgrade_order"] == (["settled"], was, now, new.resources)
    assert checks.calls["protection_lifted"] == (old.resources, new.resources)
    assert checks.calls["flavor_splits"] == (old, new)
    assert checks.calls["version_findings"] == (was, now)
    assert checks.calls["held_groups_created"] == (["settled"], now, new.resources)
    assert checks.calls["ami_switches"] == (["settled"], now)
    assert checks.calls["versions_down"] == (["settled"], now)
    assert checks.calls["held_template_findings"] == (["settled"], now)
    assert checks.calls["ultraserver_pools"] == (now,)
    assert checks.calls["capacity_block_findings"] == (["settled"], was, now)
    assert checks.calls["bought_block_findings"] == (was, now)
    assert checks.calls["ultraserver_roll_findings"] == (["settled"], now)
    assert checks.calls["ceilings"] == (old, new)


def test_sides_of_two_stacks_are_told_nothing_matches_by_name(previews, monkeypatch):
    queued, _ = previews
    Checks(monkeypatch)
    queued += [_preview(stack="dev"), _preview(stack="prod")]
    result = diff(OLD, NEW, at=AT, table=TABLE)
    [different] = [finding for finding in result.findings if finding.code == "change.different-stacks"]
    assert (different.severity, different.path) == ("info", ())
    assert different.message == "comparing stack dev with stack prod: resource names carry the environment, so nothing matches by name"
    assert different.hint == "compare one stack's config before and after a change: `railyard diff --git <rev> Pulumi.<stack>.yaml`"


def test_sides_of_one_stack_raise_no_stack_finding(previews, monkeypatch):
    queued, _ = previews
    Checks(monkeypatch)
    queued += [_preview(stack="dev"), _preview(stack="dev")]
    assert "change.different-stacks" not in [finding.code for finding in diff(OLD, NEW, at=AT, table=TABLE).findings]


@pytest.mark.parametrize(("old_priced", "new_priced"), [(True, True), (True, False), (False, True), (False, False)])
def test_the_cost_is_compared_only_when_both_sides_are_priced(previews, monkeypatch, old_priced, new_priced):
    queued, _ = previews
    checks = Checks(monkeypatch)
    was, now = CostReport("us-east-1", 730, ()), CostReport("us-west-2", 730, ())
    queued += [_preview(cost=was if old_priced else None), _preview(cost=now if new_priced else None)]
    result = diff(OLD, NEW, at=AT, table=TABLE)
    if old_priced and new_priced:
        assert (result.cost, checks.calls["cost_change"]) == ("cost change", (was, now))
    else:
        assert result.cost is None and "cost_change" not in checks.calls


def test_the_findings_come_sorted_and_once_each(previews, monkeypatch):
    queued, _ = previews
    checks = Checks(monkeypatch)
    checks.capacity.append(checks.capacity[0])
    queued += [_preview(), _preview()]
    findings = diff(OLD, NEW, at=AT, table=TABLE).findings
    # Gathered, the capacity warning (twice) comes after six infos; sorted, a warning comes before every info.
    infos = ["stand.impact", "stand.version", "stand.held", "stand.ami", "stand.down", "stand.template", "stand.bought", "stand.ultra-roll"]
    assert [finding.code for finding in findings] == ["stand.capacity", "stand.capacity", *sorted(infos)]
    assert [finding.message for finding in findings][:2] == ["on a block", "ultra"]
