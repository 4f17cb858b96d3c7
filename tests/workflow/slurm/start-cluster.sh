#!/usr/bin/env bash
# Install and start a one-node SLURM on this Debian machine, for tests/workflow/test_slurm.py and for
# trying profiles/slurm by hand:
#
#   sudo bash tests/workflow/slurm/start-cluster.sh      # then: sinfo; snakemake --profile profiles/slurm
#   sudo bash tests/workflow/slurm/stop-cluster.sh       # stops the daemons again
#
# What it sets up: munge (authentication), slurmctld (controller) and slurmd (compute daemon)
# on this host, one partition `compute` holding this node with nproc CPUs and 90% of its
# memory, and no accounting (no slurmdbd: `sacct` does not work, job status comes from
# `squeue`). The daemons are started directly, not through systemd, so that it also works in a
# container where systemd is not running.
#
# Idempotent: when the cluster already answers (controller up, node usable) it does nothing.
# It never overwrites a slurm.conf it did not write. Needs root, apt-get (Debian's
# slurmctld, slurmd, slurm-client and munge packages) and the SLURM ports 6817/6818.
# On failure it prints one line starting with "start-cluster:" (the reason, with the end of
# the daemon's log) on stderr and exits non-zero.
set -euo pipefail

PARTITION=compute
CONF=/etc/slurm/slurm.conf
MARK="# written by ltrfs tests/workflow/slurm/start-cluster.sh"
LOGDIR=/var/log/slurm
STATEDIR=/var/lib/slurm

die() {  # one line on stderr, then exit 1
    echo "start-cluster: $*" >&2
    exit 1
}

tail_of() {  # the last lines of a log file, on one line
    [ -f "$1" ] && tail -n "${2:-3}" "$1" | tr '\n' ' ' | sed 's/  */ /g' || echo "(no $1)"
}

node_state() {  # the partition's node state (idle, mixed, down*, ...) or nothing
    timeout 10 sinfo --noheader --partition "$PARTITION" --format %T 2>/dev/null | head -n 1 || true
}

usable() {  # the controller answers and the partition's node takes jobs
    command -v scontrol >/dev/null 2>&1 && command -v sinfo >/dev/null 2>&1 || return 1
    timeout 10 scontrol ping 2>/dev/null | grep -q "is UP" || return 1
    case "$(node_state)" in
        idle | mixed | allocated | completing) return 0 ;;
        *) return 1 ;;
    esac
}

if usable; then
    echo "start-cluster: SLURM is already running (partition $PARTITION: $(node_state)); nothing to do"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "needs root (it installs Debian packages and starts daemons)"
command -v apt-get >/dev/null 2>&1 && [ -f /etc/debian_version ] \
    || die "needs a Debian-like system with apt-get"

# ------------------------------------------------------------------------------ packages
missing=()
for pkg in munge slurmctld slurmd slurm-client; do
    dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "start-cluster: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # policy-rc.d style refusals to start services are expected here: the daemons are started below
    apt-get update -qq >/tmp/ltrfs-slurm-apt.log 2>&1 \
        && apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/ltrfs-slurm-apt.log 2>&1 \
        || die "apt-get install ${missing[*]} failed: $(tail_of /tmp/ltrfs-slurm-apt.log 2)"
fi

# ------------------------------------------------------------------------------ munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    if [ ! -s /etc/munge/munge.key ]; then
        mungekey --create --keyfile /etc/munge/munge.key >/dev/null 2>&1 \
            || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown munge:munge /etc/munge /etc/munge/munge.key
    chmod 700 /etc/munge
    chmod 400 /etc/munge/munge.key
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    chmod 755 /run/munge
    # a stale pid or socket file from a killed munged makes the new one refuse to start
    if [ -f /run/munge/munged.pid ] && ! kill -0 "$(cat /run/munge/munged.pid)" 2>/dev/null; then
        rm -f /run/munge/munged.pid /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
    fi
    runuser -u munge -- /usr/sbin/munged </dev/null >/dev/null 2>&1 \
        || die "munged did not start: $(tail_of /var/log/munge/munged.log)"
    for _ in $(seq 20); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
        sleep 0.5
    done
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 \
        || die "munge does not answer: $(tail_of /var/log/munge/munged.log)"
fi

# ------------------------------------------------------------------------------ slurm.conf
NODE=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
    die "$CONF exists and was not written by this script; not touching it (start that cluster yourself)"
fi
mkdir -p "$(dirname "$CONF")" "$LOGDIR" "$STATEDIR/slurmctld" "$STATEDIR/slurmd"
chown slurm:slurm "$LOGDIR" "$STATEDIR/slurmctld"
cat >"$CONF.tmp" <<EOF
$MARK
# A one-node test cluster: partition $PARTITION, no accounting (sacct does not work; use squeue).
ClusterName=ltrfs
SlurmctldHost=$NODE(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
StateSaveLocation=$STATEDIR/slurmctld
SlurmdSpoolDir=$STATEDIR/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
# no cgroups (containers without systemd): track processes through /proc, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# no accounting database
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# finished jobs stay visible to squeue for 5 minutes (the executor's status check needs that)
MinJobAge=300
ReturnToService=2
# a job's processes get the nice value of the sbatch that submitted it
PropagatePrioProcess=1
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
mv "$CONF.tmp" "$CONF"
chmod 644 "$CONF"

# ------------------------------------------------------------------------------ daemons
running() {  # pid file $1 names a live process called $2
    [ -f "$1" ] && [ "$(cat "/proc/$(cat "$1")/comm" 2>/dev/null)" = "$2" ]
}
if ! running /run/slurmctld.pid slurmctld; then
    slurmctld </dev/null >/dev/null 2>&1 \
        || die "slurmctld did not start: $(tail_of $LOGDIR/slurmctld.log)"
fi
for _ in $(seq 30); do
    timeout 10 scontrol ping 2>/dev/null | grep -q "is UP" && break
    sleep 0.5
done
timeout 10 scontrol ping 2>/dev/null | grep -q "is UP" \
    || die "slurmctld does not answer: $(tail_of $LOGDIR/slurmctld.log)"
if ! running /run/slurmd.pid slurmd; then
    slurmd -N "$NODE" </dev/null >/dev/null 2>&1 \
        || die "slurmd did not start: $(tail_of $LOGDIR/slurmd.log)"
fi
for _ in $(seq 60); do
    usable && break
    case "$(node_state)" in
        down* | drain* | fail*) scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true ;;
    esac
    sleep 0.5
done
usable || die "node $NODE is not usable (state '$(node_state)'): slurmd.log: $(tail_of $LOGDIR/slurmd.log) slurmctld.log: $(tail_of $LOGDIR/slurmctld.log)"
echo "start-cluster: SLURM is up: partition $PARTITION, node $NODE with $CPUS CPUs and $MEM_MB MB"
