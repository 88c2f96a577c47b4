"""Fabric logs for the baseline tests, derived from the published fixtures: faster or slower, with nccl-tests' header, as Ring.

The p5 log (fixtures/nccl/p5-two-nodes-efa.log) is a published excerpt without nccl-tests' header; `with_header`
adds the header today's nccl-tests prints (src/util.cu @0fdb00a3: the version, the collective, one `#  Rank` line per
rank with its host), so the same table can be read as a run of any node count.

    node 0: ranks 0-7 --EFA-- node 1: ranks 8-15      (with_header(log, nodes=2))
"""

from __future__ import annotations

from tests.acceptance.evidence import FIXTURES

P5_LOG = (FIXTURES / "nccl" / "p5-two-nodes-efa.log").read_text(encoding="utf-8")
TCP_LOG = (FIXTURES / "nccl" / "tcp-fallback.log").read_text(encoding="utf-8")
NCCOM_TABLE = (FIXTURES / "nccom" / "trn1-two-instances.txt").read_text(encoding="utf-8")
RING = "[1,0]<stdout>:node-0:22:22 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
# The p5 table's out-of-place busbw at 1 and 2 GiB, as the excerpt prints them.
P5_BUSBW = {1073741824: 313.29, 2147483648: 437.79}


def scaled_busbw(log: str, factor: float, sizes: tuple[int, ...] = tuple(P5_BUSBW)) -> str:
    """The nccl-tests log with the out-of-place busbw of `sizes` multiplied by `factor`: the same run on a slower fabric."""
    for size in sizes:
        before = f"{P5_BUSBW[size]:.2f}"
        row = next(line for line in log.splitlines() if line.split(":", 1)[-1].split()[:1] == [str(size)])
        tokens = row.split(":", 1)[-1].split()
        assert tokens[7] == before, row
        log = log.replace(row, row.replace(f"  {before}  ", f"  {P5_BUSBW[size] * factor:.2f}  ", 1))
    return log


def with_header(log: str, nodes: int, test: str = "all_reduce_perf", gpus: int = 8) -> str:
    """The log with nccl-tests' header for `nodes` nodes of `gpus` ranks each, running `test`."""
    header = [
        "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807",
        f"# Collective test starting: {test}",
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 100 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for rank in range(nodes * gpus):
        host = f"nccl-p5-worker-{rank // gpus}"
        header.append(f"#  Rank {rank:2d} Group  0 Pid     22 on {host} device {rank % gpus:2d} [0000:53:00] NVIDIA H100 80GB HBM3")
    return "".join(f"[1,0]<stdout>:{line}\n" for line in header) + log


def without_size(log: str, size: int) -> str:
    """The log with the row of `size` removed: a sweep that stopped before it."""
    return "\n".join(line for line in log.splitlines() if line.split(":", 1)[-1].split()[:1] != [str(size)]) + "\n"
