#!/usr/bin/env bash
# Stop the one-node SLURM that tests/workflow/slurm/start-cluster.sh started: cancel the jobs, then end
# slurmd, slurmctld and munged by the process ids in their pid files. Does nothing when the
# cluster was not started by that script (its slurm.conf is not there).
set -uo pipefail

CONF=/etc/slurm/slurm.conf
MARK="# written by ltrfs tests/workflow/slurm/start-cluster.sh"
if [ ! -f "$CONF" ] || ! grep -qF "$MARK" "$CONF"; then
    echo "stop-cluster: $CONF was not written by start-cluster.sh; nothing to stop"
    exit 0
fi

stop() {  # stop the process named by pid file $1, waiting up to 10 s, and remove the file
    local pid
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 20); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    # slurmctld runs as SlurmUser and cannot remove its own pid file from /run; a stale one
    # would also make Debian's package removal call scancel against a stopped controller
    rm -f "$1"
}

timeout 10 scancel --user "$(id -un)" 2>/dev/null || true
stop /run/slurmd.pid
stop /run/slurmctld.pid
stop /run/munge/munged.pid
echo "stop-cluster: stopped"
