#!/usr/bin/env bash
# A throw-away single-node SLURM on 127.0.0.1, for tests/cluster/test_slurm.py.
#
#   slurm_single_node.sh start STATE_DIR accounting|no-accounting
#   slurm_single_node.sh stop  STATE_DIR
#
# Needs root on a Debian-like machine: `start` installs the Debian packages it lacks
# (munge, slurmctld, slurmd, slurm-client, and for accounting slurmdbd and mariadb-server),
# then starts every daemon from STATE_DIR: its own munge key (on munge's default socket), its own
# MariaDB data directory with networking off (slurmdbd reaches it through a Unix socket),
# slurmdbd, slurmctld and slurmd on 127.0.0.1 and ports 16817-16819. The configuration lives
# in STATE_DIR/etc; /etc/slurm/slurm.conf is a symbolic link to it while the cluster runs,
# because the executor's job steps drop SLURM_CONF and so only find the default path
# (`start` refuses to replace a slurm.conf that is not such a link; `stop` removes the link).
# `stop` cancels the jobs left in the queue, then ends every daemon it started, by the PID it
# recorded, newest first, and any job step of this cluster that outlived slurmd.
# The cluster has one node "mixnode" with this machine's CPUs, one partition "debug" and,
# with accounting, one account "mixstudy" holding root.
set -euo pipefail

usage() { echo "usage: $0 start STATE_DIR accounting|no-accounting | stop STATE_DIR" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
command=$1
state=$(mkdir -p "$2" && cd "$2" && pwd)
mode=${3:-accounting}
pids="$state/pids"
# Unix socket paths may not exceed 108 bytes, and slurmd's step sockets
# (<spool>/mixnode_<job>.<step>, up to about 30 bytes of name) and MariaDB's socket live in
# directories of their own: a short one under /tmp, made at start and removed at stop, so that
# any STATE_DIR works (a pytest tmp_path is already 80 bytes long).
sockets_record="$state/sockets-dir"
SYSTEM_CONF=/etc/slurm/slurm.conf
MUNGE_SOCKET=/run/munge/munge.socket.2

# The jobs still queued or running when the cluster stops (a run that failed or was
# interrupted) are cancelled while slurmctld can still do it; a job step that outlives slurmd
# anyway (slurmstepd re-parents to init) is found by the SLURM_CONF it inherited from this
# cluster's slurmd, and ended with its processes.
cancel_jobs() {
    local conf=$state/etc/slurm.conf
    [[ -f $conf ]] || return 0
    SLURM_CONF=$conf timeout 10 squeue -h -o %i > /dev/null 2>&1 || return 0
    SLURM_CONF=$conf timeout 10 scancel --partition=debug 2>/dev/null || true
    for _ in $(seq 1 60); do
        [[ -z $(SLURM_CONF=$conf timeout 10 squeue -h -o %i 2>/dev/null) ]] && return 0
        sleep 0.5
    done
    echo "jobs still in the queue after scancel; ending their steps below" >&2
}

descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        descendants "$child"
        echo "$child"
    done
}

end_stray_steps() {
    local step pid
    for step in $(pgrep -x slurmstepd); do
        tr '\0' '\n' < "/proc/$step/environ" 2>/dev/null \
            | grep -qx "SLURM_CONF=$state/etc/slurm.conf" || continue
        for pid in $(descendants "$step") "$step"; do
            kill -KILL "$pid" 2>/dev/null && echo "ended stray job process $pid" || true
        done
    done
}

stop_all() {
    [[ -f $pids ]] || return 0
    cancel_jobs
    # newest first: slurmd, slurmctld, slurmdbd, mariadbd, munged
    tac "$pids" | while read -r name pid; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            if kill -0 "$pid" 2>/dev/null; then
                echo "$name ($pid) ignored SIGTERM for 10 s; sending SIGKILL" >&2
                kill -KILL "$pid" 2>/dev/null || true
            fi
        fi
        echo "stopped $name ($pid)"
    done
    end_stray_steps
    rm -f "$pids"
    unlink_conf
    if [[ -f $sockets_record ]]; then
        rm -rf -- "$(cat "$sockets_record")"
        rm -f "$sockets_record"
    fi
    if [[ -f $state/created-munge-run-dir ]]; then
        rmdir "$(dirname "$MUNGE_SOCKET")" 2>/dev/null || true
        rm -f "$state/created-munge-run-dir"
    fi
}

unlink_conf() {
    if [[ -L $SYSTEM_CONF && $(readlink "$SYSTEM_CONF") == "$state/etc/slurm.conf" ]]; then
        rm -f "$SYSTEM_CONF"
    fi
}

link_conf() {
    if [[ -e $SYSTEM_CONF && ! -L $SYSTEM_CONF ]]; then
        echo "$SYSTEM_CONF exists and is not a link made by this script; not replacing it" >&2
        return 1
    fi
    mkdir -p "$(dirname "$SYSTEM_CONF")"
    ln -sfn "$state/etc/slurm.conf" "$SYSTEM_CONF"
}

# Wait for a daemon's pid file (daemons fork), record the PID, fail with its log if it died.
record_pid() {
    local name=$1 pidfile=$2 log=$3
    for _ in $(seq 1 100); do
        if [[ -s $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
            echo "$name $(cat "$pidfile")" >> "$pids"
            return 0
        fi
        sleep 0.2
    done
    echo "$name did not start; the end of $log:" >&2
    tail -n 30 "$log" >&2 || true
    return 1
}

install_packages() {
    local wanted=(munge slurmctld slurmd slurm-client)
    [[ $mode == accounting ]] && wanted+=(slurmdbd mariadb-server)
    local missing=()
    for package in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$package")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        echo "installing ${missing[*]}"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
}

sockets_dir() {
    [[ -f $sockets_record ]] || mktemp -d /tmp/mixslurm.XXXXXX > "$sockets_record"
    cat "$sockets_record"
}

start_munge() {
    mkdir -p "$state/munge" "$state/run" "$state/log"
    chmod 700 "$state/munge"
    [[ -f $state/munge/munge.key ]] || mungekey --create --keyfile="$state/munge/munge.key"
    chmod 400 "$state/munge/munge.key"
    # Slurm's clients reach munge only at its default socket (AuthInfo does not reach the
    # slurmdbd connection in 22.05), so this munged takes it, unless another one holds it.
    if [[ -S $MUNGE_SOCKET ]] && munge -n -S "$MUNGE_SOCKET" > /dev/null 2>&1; then
        echo "a munged already answers on $MUNGE_SOCKET; stop it first" >&2
        return 1
    fi
    if [[ ! -d $(dirname "$MUNGE_SOCKET") ]]; then
        mkdir -p "$(dirname "$MUNGE_SOCKET")"
        touch "$state/created-munge-run-dir"   # so that `stop` removes it again
    fi
    munged --force --key-file="$state/munge/munge.key" --socket="$MUNGE_SOCKET" \
        --pid-file="$state/run/munged.pid" --log-file="$state/log/munged.log" \
        --seed-file="$state/munge/munged.seed"
    record_pid munged "$state/run/munged.pid" "$state/log/munged.log"
}

start_mariadb() {
    if [[ ! -d $state/mysql/mysql ]]; then
        mariadb-install-db --no-defaults --user=root --datadir="$state/mysql" \
            --auth-root-authentication-method=socket > "$state/log/mariadb-install.log" 2>&1
    fi
    # --skip-networking: no TCP at all; slurmdbd connects through the socket (MYSQL_UNIX_PORT)
    mariadbd --no-defaults --user=root --datadir="$state/mysql" --skip-networking \
        --socket="$(sockets_dir)/mysqld.sock" --pid-file="$state/run/mysqld.pid" \
        --log-error="$state/log/mysqld.log" --innodb-buffer-pool-size=64M \
        > /dev/null 2>&1 &
    record_pid mariadbd "$state/run/mysqld.pid" "$state/log/mysqld.log"
    for _ in $(seq 1 100); do
        [[ -S $(sockets_dir)/mysqld.sock ]] && return 0
        sleep 0.2
    done
    echo "MariaDB opened no socket" >&2; tail -n 30 "$state/log/mysqld.log" >&2; return 1
}

write_configs() {
    local etc=$state/etc cpus memory accounting
    mkdir -p "$etc" "$state/spool/ctld" "$(sockets_dir)/d"
    cpus=$(nproc)
    # what the node offers jobs: half of the machine's memory, at most 8 GB
    memory=$(awk '/MemTotal/ {m = int($2 / 1024 / 2); print (m > 8000 ? 8000 : m)}' /proc/meminfo)
    if [[ $mode == accounting ]]; then
        accounting="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=16819"
    else
        accounting="AccountingStorageType=accounting_storage/none"
    fi
    cat > "$etc/slurm.conf" <<EOF
ClusterName=mixstudy
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$state/spool/ctld
SlurmdSpoolDir=$(sockets_dir)/d
SlurmctldPidFile=$state/run/slurmctld.pid
SlurmdPidFile=$state/run/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
$accounting
NodeName=mixnode NodeAddr=127.0.0.1 NodeHostname=$(hostname -s) CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=mixnode Default=YES MaxTime=INFINITE State=UP
EOF
    if [[ $mode == accounting ]]; then
        cat > "$etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=16819
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
PidFile=$state/run/slurmdbd.pid
LogFile=$state/log/slurmdbd.log
EOF
        chmod 600 "$etc/slurmdbd.conf"
    fi
}

start_slurm() {
    export SLURM_CONF=$state/etc/slurm.conf
    if [[ $mode == accounting ]]; then
        MYSQL_UNIX_PORT=$(sockets_dir)/mysqld.sock slurmdbd
        record_pid slurmdbd "$state/run/slurmdbd.pid" "$state/log/slurmdbd.log"
        for _ in $(seq 1 50); do sacctmgr -n list cluster > /dev/null 2>&1 && break; sleep 0.2; done
        # "|| true": on a second start the cluster, account and user exist already
        timeout 30 sacctmgr -i add cluster mixstudy > /dev/null || true
        timeout 30 sacctmgr -i add account mixstudy cluster=mixstudy > /dev/null || true
        timeout 30 sacctmgr -i add user root account=mixstudy cluster=mixstudy > /dev/null || true
    fi
    slurmctld
    record_pid slurmctld "$state/run/slurmctld.pid" "$state/log/slurmctld.log"
    slurmd -N mixnode
    record_pid slurmd "$state/run/slurmd.pid" "$state/log/slurmd.log"
    for _ in $(seq 1 100); do
        if sinfo -h -N -o "%T" 2>/dev/null | grep -Eq "^idle"; then
            echo "SLURM ($mode) is up: SLURM_CONF=$SLURM_CONF"
            sinfo
            return 0
        fi
        sleep 0.3
    done
    echo "the node never became idle" >&2; sinfo -N -l >&2 || true
    tail -n 20 "$state/log/slurmctld.log" "$state/log/slurmd.log" >&2 || true
    return 1
}

case $command in
    start)
        [[ $mode == accounting || $mode == no-accounting ]] || usage
        [[ $(id -u) -eq 0 ]] || { echo "$0 start needs root" >&2; exit 1; }
        [[ -f $pids ]] && { echo "a cluster is already recorded in $pids; stop it first" >&2; exit 1; }
        install_packages
        # whatever fails from here on, what was started is stopped again
        trap 'echo "start failed; stopping what was started" >&2; stop_all' ERR
        touch "$pids"
        mkdir -p "$state/log" "$state/run"
        start_munge
        [[ $mode == accounting ]] && start_mariadb
        write_configs
        link_conf
        start_slurm
        trap - ERR
        ;;
    stop)
        stop_all
        ;;
    *)
        usage
        ;;
esac
