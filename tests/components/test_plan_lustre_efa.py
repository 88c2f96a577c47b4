"""FSx for Lustre over EFA: the nodes that mount an EFA tier get LNet over EFA at boot, and the rest are told.

An EFA-enabled file system is only as fast as its clients' LNet. The FSx
guide's client steps (driver check, Lustre client, LNet on 8, 2 or 1 EFA
devices, discovery, EFA preferred) run as a boot service on every node of an
EFA pool that mounts the tier; pools that can't run them are reported.
"""

from __future__ import annotations

import base64
import email
import subprocess

import pytest

from blueprints.catalog import load_catalog
from blueprints.rules.lustre_efa import lnet_interfaces, supports_lustre_efa
from components.plan.lustre_efa import MINIMUM_EFA_DRIVER, boot_part, setup_script
from components.plan.user_data import encoded_user_data
from tests.blueprints.base import load, mutate
from tests.preview.conftest import preview_of

CATALOG = load_catalog()


def _parts(encoded: str) -> dict[str, str]:
    message = email.message_from_string(base64.b64decode(encoded).decode())
    return {part.get_content_type(): part.get_payload() for part in message.get_payload()}


@pytest.mark.parametrize(
    ("instance", "interfaces", "supported"),
    [
        ("p5.48xlarge", 8, True),
        ("p5en.48xlarge", 8, True),
        ("p6-b200.48xlarge", 8, True),
        ("p4d.24xlarge", 2, True),
        ("g6e.8xlarge", 1, True),
        ("trn2.48xlarge", 2, False),
        ("inf2.48xlarge", 1, False),
    ],
)
def test_lnet_uses_the_fsx_guides_device_count(instance, interfaces, supported):
    spec = CATALOG.get(instance)
    assert lnet_interfaces(spec) == interfaces and supports_lustre_efa(spec) is supported


def test_the_setup_is_valid_bash_and_checks_the_driver_first():
    for text in (setup_script(8), boot_part(8)):
        subprocess.run(["bash", "-n"], input=text, text=True, check=True)
    script = setup_script(8)
    assert script.index(f"minimum={MINIMUM_EFA_DRIVER}") < script.index("dnf install -y lustre-client") < script.index("lnetctl lnet configure")
    assert "wanted=8" in script and "--peer-credits 32" in script and "lnetctl udsp add --src efa --priority 0" in script
    assert "systemctl start --no-block railyard-lustre-efa.service" in boot_part(8)


def test_user_data_keeps_the_nodeadm_part_and_adds_the_shell_part():
    parts = _parts(encoded_user_data(True, lustre_efa_interfaces=8))
    assert list(parts) == ["application/node.eks.aws", "text/x-shellscript"]
    assert "strategy: RAID0" in parts["application/node.eks.aws"] and "wanted=8" in parts["text/x-shellscript"]
    assert list(_parts(encoded_user_data(False, lustre_efa_interfaces=2))) == ["text/x-shellscript"]


def _user_data(result, template: str) -> dict[str, str]:
    return _parts(result.named(template).inputs["userData"])


def test_pools_mounting_an_efa_tier_configure_lnet_and_others_do_not():
    assert "wanted=8" in _user_data(preview_of("p5-capacity-block"), "p5-train-prod-train-use1a-template")["text/x-shellscript"]
    assert "wanted=8" in _user_data(preview_of("rail-131k"), "rail131k-prod-frontier-b01-template")["text/x-shellscript"]
    # heterogeneous's Lustre tier is not EFA-enabled: RAID0 only
    assert list(_user_data(preview_of("heterogeneous"), "hetero-prod-h200-use2a-gpu-template")) == ["application/node.eks.aws"]


def _codes(text: str) -> dict[str, str]:
    return {finding.code: finding.severity for finding in load(text).findings if finding.code.startswith("fsx.efa-")}


def test_an_efa_tier_mounted_only_over_tcp_is_refused():
    # The base blueprint's Lustre tier, made EFA-enabled, mounted only by the inf2 pool (no EFA).
    text = mutate("    metadata: {mode: automatic}\n", "    metadata: {mode: automatic}\n    efa: true\n")
    text = text.replace("    storage:\n      - tier: lustre\n        read_mbps_per_accelerator: 5\n", "")
    text = text.replace("      spread: zones\n", "      spread: zones\n    storage:\n      - tier: lustre\n")
    assert _codes(text) == {"fsx.efa-client-over-tcp": "warning", "fsx.efa-without-efa-clients": "error"}


def test_an_efa_tier_with_one_efa_client_warns_about_the_tcp_one():
    text = mutate("    metadata: {mode: automatic}\n", "    metadata: {mode: automatic}\n    efa: true\n")
    text = text.replace("      spread: zones\n", "      spread: zones\n    storage:\n      - tier: lustre\n")
    assert _codes(text) == {"fsx.efa-client-over-tcp": "warning"}


STUBS = {
    # The node as the script sees it: an EFA driver, the Lustre client, eight EFA devices; each stub logs its call.
    "modinfo": 'case "$*" in "-F version efa") echo 2.13.0;; kefalnd) [ -z "${NO_KEFALND:-}" ];; esac',
    "rpm": '[ -z "${NO_CLIENT:-}" ] && echo lustre-client-2.15.6-1.amzn2023',
    "dnf": "exit 1",
    "ip": "echo 'ens32            UP             10.0.0.5/24'",
    "hostname": "echo 10.0.0.5",
    "modprobe": "true",
    "uname": "echo 6.12.40-63.114.amzn2023.x86_64",
    "ls": "printf 'rdmap%sf0\\n' 16 32 48 64 80 96 112 128",
    "lnetctl": 'if [ "$*" = "net show --net efa" ]; then for _ in $(seq "${UP:-8}"); do echo "      status: up"; done; fi\n'
    '[ "$*" != "lnet configure" ] || [ -z "${LNET_FAILS:-}" ]',
    "logger": "true",
    "sleep": "true",
}


def _run_setup(tmp_path, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir, log = tmp_path / "bin", tmp_path / "calls"
    bin_dir.mkdir(exist_ok=True)
    for name, body in STUBS.items():
        (bin_dir / name).write_text(f'#!/bin/bash\necho "{name} $*" >> {log}\n{body}\n')
        (bin_dir / name).chmod(0o755)
    environment = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RAILYARD_GATE_FILE": str(tmp_path / "gates" / "lnet"), **env}
    done = subprocess.run(["bash", "-c", setup_script(8)], capture_output=True, text=True, env=environment, check=False)
    return done, log.read_text().splitlines() if log.exists() else []


def test_the_setup_brings_lnet_up_on_the_planned_efa_devices_and_says_so(tmp_path):
    done, calls = _run_setup(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "LNet up on 8 EFA interfaces" in done.stdout
    added = [call for call in calls if call.startswith("lnetctl net add --net efa")]
    assert len(added) == 8 and all(call.endswith("--peer-credits 32") for call in added)


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"NO_KEFALND": "1"}, "lustre-client-2.15.6-1.amzn2023 has no kefalnd (the EFA LNet driver) for kernel 6.12.40"),
        ({"UP": "6"}, "LNet has 6 of 8 EFA interfaces up"),
        ({"NO_CLIENT": "1"}, "dnf could not install lustre-client"),
        ({"LNET_FAILS": "1"}, "step failed at line"),
    ],
)
def test_a_node_whose_lnet_over_efa_fails_writes_why_to_its_gate_and_keeps_its_taint(tmp_path, env, says):
    done, calls = _run_setup(tmp_path, **env)
    assert done.returncode == 1 and says in done.stderr and "keeps its railyard.dev/lnet taint" in done.stderr
    verdict = (tmp_path / "gates" / "lnet").read_text()
    assert verdict.startswith("failed: ") and says in verdict
    assert not any(call.startswith("lnetctl udsp") for call in calls)  # nothing after the failed step


def test_a_node_whose_lnet_comes_up_writes_ready_to_its_gate(tmp_path):
    done, _ = _run_setup(tmp_path)
    assert done.returncode == 0 and (tmp_path / "gates" / "lnet").read_text() == "ready\n"


def test_the_boot_part_neither_orders_nor_modifies_the_kubelet():
    """EKS: "Don't specify any commands in your user data that starts or modifies kubelet"; the gate's taint holds work off instead."""
    part = boot_part(8)
    assert "kubelet" not in part.replace("the kubelet", "")  # no drop-in, no ordering, no unit named kubelet
    assert part.index("systemctl enable railyard-lustre-efa.service") < part.index("systemctl start --no-block railyard-lustre-efa.service")
