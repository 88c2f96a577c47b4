"""`railyard acceptance judge ... --record-baseline FILE | --baseline FILE` as a user runs it: what is written and when not,
what is refused (exit 2, with the path, no traceback), and a later run held to the baseline size by size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from railyard.cli import main
from tests.acceptance.baselines import NCCOM_TABLE, P5_LOG, RING, TCP_LOG, scaled_busbw, with_header
from tests.kubernetes.fixtures import EXAMPLES

P5_BLUEPRINT = str(EXAMPLES / "adt-eks-capacity-block.yaml")  # pool p5: p5.48xlarge, line 320 GB/s
P5EN_BLUEPRINT = str(EXAMPLES / "existing-infrastructure.yaml")  # pool train: p5en.48xlarge, line 320 GB/s
TRN2_BLUEPRINT = str(EXAMPLES / "heterogeneous.yaml")  # pool trainium: trn2.48xlarge, line 160 GB/s


@pytest.fixture
def judge(tmp_path, capsys):
    """Run `railyard acceptance judge LOG BLUEPRINT ...` on log text; give back the exit status, stdout and stderr."""

    def run(log: str, *args: str, blueprint: str = P5_BLUEPRINT, pool: str = "p5") -> tuple[int, str, str]:
        path = tmp_path / f"run-{len(list(tmp_path.glob('run-*.log')))}.log"
        path.write_text(log, encoding="utf-8")
        status = main(["acceptance", "judge", str(path), blueprint, "--pool", pool, *args])
        printed = capsys.readouterr()
        assert "Traceback" not in printed.out + printed.err
        return status, printed.out, printed.err

    return run


@pytest.fixture
def recorded(tmp_path, judge) -> Path:
    """The published two-node p5 run recorded as the p5 pool's baseline, beside a blueprint as the docs suggest."""
    path = tmp_path / "blueprints" / "adt-eks.baselines" / "p5.json"
    assert judge(P5_LOG, "--record-baseline", str(path), "--nodes", "2", "--at", "2026-12-01")[0] == 0
    return path


def test_a_passing_run_is_recorded_and_judged_against_itself_passes(recorded, judge):
    document = json.loads(recorded.read_text(encoding="utf-8"))
    assert document["shape"]["nodes"] == 2 and document["runs"]["default"]["measured_on"] == "2026-12-01"
    status, out, _ = judge(P5_LOG, "--baseline", str(recorded), "--nodes", "2")
    assert status == 0
    assert "     2 GiB          437.79          437.79   1.00  pass" in out
    assert out.splitlines()[-1] == "ACCEPTED"


def test_a_run_20_percent_slower_still_clears_the_design_line_but_fails_the_baseline_naming_the_size(recorded, judge):
    status, out, _ = judge(scaled_busbw(P5_LOG, 0.8, (2**31,)), "--baseline", str(recorded), "--nodes", "2")
    assert status == 1
    assert "PASS  fabric.busbw" in out  # 350.23 GB/s is above the design's 320
    assert "     2 GiB          437.79          350.23   0.80  FAIL" in out
    assert out.splitlines()[-1] == "REJECTED (1 failed: fabric.baseline)"


def test_json_carries_the_comparison_row_by_row(recorded, judge):
    status, out, _ = judge(scaled_busbw(P5_LOG, 0.8, (2**31,)), "--baseline", str(recorded), "--nodes", "2", "--tolerance", "0.25", "--json")
    document = json.loads(out)
    assert (status, document["passed"], document["baseline"]["tolerance"]) == (0, True, 0.25)
    assert document["baseline"]["sizes"][1] == {"size_bytes": 2**31, "baseline": 437.79, "measured": 350.23, "ratio": 0.8, "verdict": "pass"}
    assert document["baseline"]["recorded"]["measured_on"] == "2026-12-01"


def test_recording_gives_the_same_bytes_for_the_same_run(tmp_path, judge, recorded):
    again = tmp_path / "again.json"
    assert judge(P5_LOG, "--record-baseline", str(again), "--nodes", "2", "--at", "2026-12-01T18:00:00Z")[0] == 0
    assert again.read_bytes() == recorded.read_bytes()


def test_a_run_that_fails_the_design_line_is_not_recorded(tmp_path, judge):
    path = tmp_path / "p5.json"
    status, _, err = judge(TCP_LOG, "--record-baseline", str(path))  # the real log: one node
    assert (status, path.exists()) == (1, False)
    assert err == "not recorded: the run failed the design line (fabric.transport); a baseline must pass it\n"


def test_an_existing_run_is_not_overwritten_without_force(recorded, judge):
    before = recorded.read_bytes()
    status, _, err = judge(P5_LOG, "--record-baseline", str(recorded), "--nodes", "2", "--at", "2027-01-15")
    assert (status, recorded.read_bytes()) == (2, before)
    assert err == f"{recorded}: already holds a default run (2026-12-01, log sha256 ecda8a12f850); --force replaces it\n"
    assert judge(P5_LOG, "--record-baseline", str(recorded), "--nodes", "2", "--at", "2027-01-15", "--force")[0] == 0
    assert json.loads(recorded.read_text(encoding="utf-8"))["runs"]["default"]["measured_on"] == "2027-01-15"


def test_the_ring_run_is_added_beside_the_default_run_and_judged_against_its_own(recorded, judge):
    status, _, err = judge(RING + P5_LOG, "--record-baseline", str(recorded), "--nodes", "2")
    assert (status, err) == (0, f"added the ring run into {recorded} (it also holds: default)\n")
    assert sorted(json.loads(recorded.read_text(encoding="utf-8"))["runs"]) == ["default", "ring"]
    assert judge(RING + scaled_busbw(P5_LOG, 0.85), "--baseline", str(recorded), "--nodes", "2")[0] == 1


@pytest.mark.parametrize(
    ("log", "args", "blueprint", "pool", "field"),
    [
        (with_header(P5_LOG, nodes=4), (), P5_BLUEPRINT, "p5", "nodes: baseline 2, this run 4"),
        (P5_LOG, ("--nodes", "2"), P5EN_BLUEPRINT, "train", "instance_type: baseline p5.48xlarge, this run p5en.48xlarge"),
        (P5_LOG, ("--nodes", "2", "--scope", "layer3"), P5_BLUEPRINT, "p5", "scope: baseline not known, this run layer3"),
        (P5_LOG, (), P5_BLUEPRINT, "p5", "nodes: baseline 2, this run not known); record this shape's own baseline; if this run's log does not"),
    ],
)
def test_a_run_of_another_shape_is_refused_naming_the_field(recorded, judge, log, args, blueprint, pool, field):
    status, out, err = judge(log, "--baseline", str(recorded), *args, blueprint=blueprint, pool=pool)
    assert (status, out) == (2, "")
    assert err.startswith(f"{recorded}: can't judge this run against it: the baseline was measured on another shape (")
    assert field in err


def test_another_test_binary_is_refused(tmp_path, judge):
    path = tmp_path / "p5.json"
    assert judge(with_header(P5_LOG, nodes=2), "--record-baseline", str(path))[0] == 0
    status, _, err = judge(with_header(P5_LOG, nodes=2, test="all_gather_perf"), "--baseline", str(path))
    assert status == 2 and "test: baseline all_reduce_perf, this run all_gather_perf" in err


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "can't read the baseline: No such file or directory"),
        ('{"kind": "railyard.dev/fabric-baseline", "version": 1, "shape": [', "not a usable baseline: not JSON: Expecting value at line 1"),
        ('{"kind": "railyard.dev/fabric-baseline", "version": 1, "shape": {}}', "not a usable baseline: shape.pool: missing"),
        ("\udcff", "can't read the baseline: not UTF-8 text"),
    ],
)
def test_an_unreadable_or_malformed_baseline_is_exit_2_with_its_path(tmp_path, judge, text, said):
    path = tmp_path / "p5.json"
    if text is not None:
        path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    status, out, err = judge(P5_LOG, "--baseline", str(path), "--nodes", "2")
    assert (status, out) == (2, "")
    assert err.startswith(f"{path}: {said}")


def test_a_malformed_file_in_the_way_of_a_record_is_replaced_only_with_force(tmp_path, judge):
    path = tmp_path / "p5.json"
    path.write_text("not json", encoding="utf-8")
    status, _, err = judge(P5_LOG, "--record-baseline", str(path), "--nodes", "2")
    assert (status, path.read_text(encoding="utf-8")) == (2, "not json")
    assert err.endswith("; --force replaces it\n")
    assert judge(P5_LOG, "--record-baseline", str(path), "--nodes", "2", "--force")[0] == 0


def test_a_baseline_needs_the_node_count_and_nodes_may_not_contradict_the_log(tmp_path, judge):
    path = tmp_path / "p5.json"
    status, _, err = judge(P5_LOG, "--record-baseline", str(path))
    assert (status, path.exists()) == (2, False)
    assert "the log does not say how many nodes ran; give --nodes N" in err
    status, _, err = judge(with_header(P5_LOG, nodes=2), "--record-baseline", str(path), "--nodes", "4")
    assert (status, err) == (2, "railyard acceptance judge: --nodes 4, but the log shows 2 node(s)\n")


def test_flags_for_the_other_side_are_refused(judge):
    assert judge(P5_LOG, "--force")[0] == 2
    assert judge(P5_LOG, "--tolerance", "0.2")[0] == 2
    with pytest.raises(SystemExit) as caught:
        judge(P5_LOG, "--baseline", "p5.json", "--tolerance", "1.5")
    assert caught.value.code == 2


def test_a_neuron_pool_records_and_judges_nccom_test_in_its_own_units(tmp_path, judge):
    # The only published multi-instance table is trn1's; at 0.1 of a trn2's EFA (40 GB/s) it passes the line, so it can be recorded.
    path, trn2 = tmp_path / "trainium.json", {"blueprint": TRN2_BLUEPRINT, "pool": "trainium"}
    status, _, err = judge(NCCOM_TABLE, "--fraction", "0.1", "--record-baseline", str(path), **trn2)
    assert (status, err) == (0, f"wrote the default run into {path}\n")
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["shape"] | {"pool": None} == {
        "pool": None,
        "instance_type": "trn2.48xlarge",
        "benchmark": "nccom-test",
        "test": "all_reduce",
        "nodes": 2,
        "ranks": 64,
        "scope": None,
    }
    assert (document["runs"]["default"]["busbw"], document["runs"]["default"]["unit"]) == ([{"size_bytes": 2**30, "busbw": 47.09}], "GiB/s")
    slower = NCCOM_TABLE.replace("23.92          47.09", "20.33          40.03")  # 0.85 of it, still 42.98 GB/s
    status, out, _ = judge(slower, "--fraction", "0.1", "--baseline", str(path), **trn2)
    assert status == 1
    assert "     1 GiB           47.09           40.03   0.85  FAIL" in out
    assert out.splitlines()[-1] == "REJECTED (1 failed: fabric.baseline)"


def test_a_neuron_run_at_the_pools_own_line_is_not_recorded(tmp_path, judge):
    path = tmp_path / "trainium.json"
    status, _, err = judge(NCCOM_TABLE, "--record-baseline", str(path), blueprint=TRN2_BLUEPRINT, pool="trainium")
    assert (status, path.exists()) == (1, False)
    assert err == "not recorded: the run failed the design line (fabric.busbw); a baseline must pass it\n"
