"""The node side of FSx for Lustre over EFA: LNet on the node's EFA devices, set up at every boot.

An EFA-enabled file system reaches EFA speed only from clients whose Lustre
network (LNet) runs over EFA. The FSx for Lustre user guide ("Configuring
EFA clients") and the EKS user guide ("Optimize Amazon FSx for Lustre
performance on nodes (EFA)") give the client's steps, which this module
renders for the EKS AL2023 accelerated AMIs, as a boot service so a reboot
keeps them:

1. refuse to continue on an EFA driver older than 2.12.1 (EKS guide);
2. install the Lustre client (`dnf install -y lustre-client`);
3. load LNet with the EFA (`kefalnd`) and TCP (`ksocklnd`) drivers, keep TCP
   on the primary interface, and add EFA devices with `--peer-credits 32`:
   8 on p5, p5e, p5en, p6-b200 and p6e-gb200, 2 on other instances with
   several network cards, 1 with one card (FSx guide; counted by
   `blueprints.rules.lustre_efa.lnet_interfaces`), never more than the node's
   layout gives (4 on p6e-gb200), spread evenly over the devices
   `/sys/class/infiniband` lists;
4. turn discovery on and prefer EFA (`lnetctl udsp add --src efa --priority 0`).

The node keeps itself out of work until LNet is up without touching the
kubelet (EKS's launch-template guidance: "Don't specify any commands in your
user data that starts or modifies `kubelet`"): it registers with the LNet
gate's taint (`railyard.dev/lnet=pending:NoSchedule`, `topology.cluster.labels.LNET_GATE`,
set on the node group), and this unit writes its verdict to the gate's file,
`/run/railyard/gates/lnet`: `ready`, or `failed: <why>` when any step fails
(a driver too old, `lustre-client` uninstallable after three tries or
without `kefalnd` for the running kernel, fewer EFA interfaces up in
`lnetctl net show --net efa` than planned). The railyard-node-gates
DaemonSet (`components.kubernetes.node_gates`) lifts the taint on `ready`
only, so a node that failed stays registered, Ready and visible with the
taint and the reason, instead of mounting over TCP at a fraction of the
speed with nothing said, or never registering (which a kubelet held down by
a `Requires=` drop-in did, where node auto repair's documented triggers,
conditions on a Node object, can't see it). The reason also goes to the
console (`aws ec2 get-console-output`), the journal and stderr. /run is
emptied at boot, so after a reboot the node is held again until the unit
has run.

Not verified here (no instance): the script on a real node, and whether the
AL2023 `lustre-client` package carries `kefalnd` for the EKS AMI's kernel
(no AWS document says; the EKS AMI installs no Lustre client, so the package
comes from the AL2023 repositories at boot). The script checks it
(`modinfo kefalnd`) rather than assuming it. The FSx guide also offers a
script of its own (`setup.sh`) that AWS may change, which is why the steps
are written out rather than downloaded.
"""

from __future__ import annotations

from topology.cluster.labels import LNET_GATE

MINIMUM_EFA_DRIVER = "2.12.1"
SERVICE = "railyard-lustre-efa"
GATE_FILE = LNET_GATE.path


def setup_script(interfaces: int) -> str:
    """The shell the boot service runs: driver check, Lustre client with kefalnd, LNet over `interfaces` EFA devices, checked up."""
    return f"""#!/bin/bash
# FSx for Lustre over EFA (railyard): FSx for Lustre user guide "Configuring EFA clients";
# EKS user guide "Optimize Amazon FSx for Lustre performance on nodes (EFA)".
set -euo pipefail
gate="${{RAILYARD_GATE_FILE:-{GATE_FILE}}}"  # the LNet gate's verdict, read by railyard-node-gates
verdict() {{
  mkdir -p "$(dirname "$gate")"
  printf '%s\n' "$1" > "$gate.tmp" && mv -f "$gate.tmp" "$gate"
}}
fail() {{
  verdict "failed: $*"
  echo "{SERVICE}: $*; the node keeps its {LNET_GATE.taint_key} taint, so no job mounts Lustre over TCP here" >&2
  echo "{SERVICE}: $*" 2>/dev/null > /dev/console || true
  logger -t {SERVICE} -p daemon.err "$*" 2>/dev/null || true
  exit 1
}}
trap 'fail "step failed at line $LINENO"' ERR
minimum={MINIMUM_EFA_DRIVER}
driver=$(modinfo -F version efa 2>/dev/null | sed 's/[^0-9.]//g' || true)
if [ -z "$driver" ] || [ "$(printf '%s\\n' "$minimum" "$driver" | sort -V | head -n1)" != "$minimum" ]; then
  fail "EFA driver '${{driver:-none}}' is older than $minimum, which FSx for Lustre over EFA needs"
fi
for attempt in 1 2 3; do
  rpm -q lustre-client >/dev/null 2>&1 && break
  dnf install -y lustre-client && break
  [ "$attempt" -lt 3 ] || fail "dnf could not install lustre-client (no route to the AL2023 repositories?)"
  sleep $((attempt * 10))
done
modinfo kefalnd >/dev/null 2>&1 || fail "$(rpm -q lustre-client) has no kefalnd (the EFA LNet driver) for kernel $(uname -r)"
primary=$(ip -br -4 addr show | awk -v address="$(hostname -i | awk '{{print $1}}')" 'index($3, address "/") == 1 {{print $1}}')
modprobe lnet
modprobe kefalnd ipif_name="$primary"
modprobe ksocklnd
lnetctl lnet configure
lnetctl net del --net tcp 2>/dev/null || true
lnetctl net add --net tcp --if "$primary"
mapfile -t devices < <(ls -1 /sys/class/infiniband)
wanted={interfaces}
step=$(( ${{#devices[@]}} / wanted )); [ "$step" -ge 1 ] || step=1
added=0
for ((index = 0; index < ${{#devices[@]}} && added < wanted; index += step)); do
  lnetctl net add --net efa --if "${{devices[$index]}}" --peer-credits 32
  added=$((added + 1))
done
up=$(lnetctl net show --net efa | grep -c "status: up" || true)
[ "$up" -ge "$wanted" ] || fail "LNet has $up of $wanted EFA interfaces up (lnetctl net show --net efa)"
lnetctl set discovery 1
lnetctl udsp add --src efa --priority 0
modprobe lustre
verdict ready
echo "{SERVICE}: LNet up on $up EFA interfaces"
"""


def boot_part(interfaces: int) -> str:
    """A `text/x-shellscript` user-data body that installs the setup as a boot service and starts it without waiting.

    Nothing orders it against the kubelet: the node registers while the unit
    runs, held by the LNet gate's taint until the unit writes `ready`.
    """
    script = setup_script(interfaces)
    return f"""#!/bin/bash
set -euo pipefail
cat > /usr/local/sbin/{SERVICE}.sh <<'RAILYARD_SCRIPT'
{script}RAILYARD_SCRIPT
chmod 0755 /usr/local/sbin/{SERVICE}.sh
cat > /etc/systemd/system/{SERVICE}.service <<'RAILYARD_UNIT'
[Unit]
Description=LNet over EFA for FSx for Lustre (railyard)
After=network-online.target
Wants=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/{SERVICE}.sh

[Install]
WantedBy=multi-user.target
RAILYARD_UNIT
systemctl daemon-reload
systemctl enable {SERVICE}.service
systemctl start --no-block {SERVICE}.service
"""
