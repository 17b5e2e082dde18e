#!/usr/bin/env bash
# fail_fast.sh's clean-up kills what a test started and left running. A background process that
# already exited was reaped by bash at once, and its PID is free: by the clean-up, another program
# on the machine may have it (pid_max is 32768 on many machines, and a test suite forks tens of
# thousands of processes), e.g. a cluster pod's PID 1 started by a test running beside this one
# (issue 18 item 13: a pod's raylaunch SIGKILLed with no kubelet Killing event). The clean-up must
# signal only processes that are still this shell's own children.
#
# Reproduced deterministically in a private PID namespace: after the test's process is reaped,
# /proc/sys/kernel/ns_last_pid makes the kernel give its PID to the next process, the "victim".
# 125 (skipped) where PID namespaces cannot be made (not root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
unshare --pid --fork --mount-proc true 2>/dev/null || { echo "SKIP: cannot create a PID namespace here"; exit 125; }
work=$(mktemp -d /tmp/fail-fast-pid-reuse.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkfifo "$work/freed" "$work/go"

# The "test": starts a process that exits at once, waits for it (the PID is free now), says
# which PID it was, waits (no fork: a builtin read on a FIFO) until told to go, then exits:
# fail_fast.sh's clean-up runs.
cat >"$work/a_test.sh" <<TEST
source "$here/fail_fast.sh"
new_work fail-fast-pid-reuse-inner
true & PIDS+=(\$!)
wait "\${PIDS[0]}"
echo "\${PIDS[0]}" >"$work/freed"
read -r _ <"$work/go"
TEST

# Inside a PID namespace of its own: the test, then a victim given the freed PID.
cat >"$work/inside.sh" <<INSIDE
bash "$work/a_test.sh" &
test_pid=\$!
read -r freed <"$work/freed"
echo \$((freed - 1)) >/proc/sys/kernel/ns_last_pid
sleep 60 &
victim=\$!
[[ \$victim == "\$freed" ]] || { echo "SKIP: the kernel did not reuse PID \$freed (got \$victim)"; exit 125; }
echo go >"$work/go"
wait "\$test_pid"
# Alive: neither gone (reaped) nor a zombie (killed, not yet waited for).
state=gone
{ read -r _ _ state _ </proc/\$victim/stat; } 2>/dev/null
if [[ \$state != Z && \$state != gone ]]; then
  kill "\$victim"; echo "ok: the victim with the test's old PID \$freed survived its clean-up"; exit 0
fi
echo "FAIL: fail_fast.sh's clean-up killed PID \$freed, which its test's process had left and another program had been given"
exit 1
INSIDE
unshare --pid --fork --mount-proc bash "$work/inside.sh" 2>&1 | grep -v " Killed "
