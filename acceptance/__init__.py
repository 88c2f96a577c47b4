"""railyard's node acceptance checker: what runs on a new node before it takes work.

A node is compared with what its pool was designed to be (an *expectation*, JSON data
that `railyard acceptance expect` compiles from the blueprint and the catalog) using the
outputs of a few read-only commands, one file per command, in one folder:

| file | command |
| --- | --- |
| `nvidia-smi-q.xml` | `nvidia-smi -q -x` |
| `nvidia-smi-q.txt` | `nvidia-smi -q` (read where the XML is absent: the text operators keep) |
| `nvidia-smi-nvlink-s.txt` | `nvidia-smi nvlink -s` |
| `dcgmi-diag.json` | `dcgmi diag -r N -j` (N from the level) |
| `rdma-devices.txt` | `python -m acceptance rdma-devices` (the RDMA devices in sysfs and their drivers) |
| `fi_info.txt` | `fi_info -p efa -t FI_EP_RDM` (only where libfabric is installed) |
| `neuron-ls.json` | `neuron-ls --json-output` |
| `dmesg.txt` | `dmesg` (for NVIDIA Xid events, and GPUs the driver lost or could not start) |

One code path, two inputs: `python -m acceptance record` runs the commands on the node and
writes the folder; `python -m acceptance check` judges a folder, on the node or anywhere
later (`railyard acceptance check --from DIR` calls the same code). Every check says what it
expected, what it saw and from which command; a file the level needs that is missing is a
failed check, never a pass. With `--publish NODE` the verdict goes on the node as the
`railyard.dev/Accepted` condition and a JSON annotation, and `--lift-taint` removes the
acceptance taint from a node that passed (`acceptance/kube.py`); `--replace-on-failure` marks a
failed node's instance Unhealthy so its Auto Scaling group replaces it (`acceptance/replace.py`,
signed with `acceptance/sigv4.py`, credentials from EKS Pod Identity in `acceptance/aws.py`).

Why a package of its own, at the top of the repository and not under `railyard/` or
`components/`: it runs on the node, in a privileged pod whose script someone must approve,
so it imports nothing of railyard and nothing beyond Python's standard library (it can ship
in a ConfigMap beside a stock `python:3.11-slim` image), and it takes its expectation as
data, never by importing the catalog. It stands beside the compiler the way `policies/`
does; `components/` is the Pulumi stage and importing anything there would pull the
compiler in. tests/house/test_layers.py holds it to that.

The parsers use `xml.etree.ElementTree`, `re` and `json` from the standard library (the text of
`nvidia-smi -q` is read by indentation, acceptance/smi_text.py); no NVML or
DCGM binding (`pynvml`, DCGM's Python bindings) is used, because the checker must read
recorded evidence with no GPU and no driver present, and the command outputs are what an
operator can read and keep.
"""

from acceptance.expectation import LEVELS, Expectation, ExpectationError
from acceptance.report import Check, Report
from acceptance.run import check_folder

__all__ = ["LEVELS", "Check", "Expectation", "ExpectationError", "Report", "check_folder"]
