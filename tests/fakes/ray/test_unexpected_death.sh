#!/usr/bin/env bash
# `ray start --block` checks its processes every second: one that exits with a code other than
# 0/SIGTERM/143 makes it print "Some Ray subprocesses exited unexpectedly", kill the rest and exit 1
# (FAKE_RAY_DIE_AFTER: the raylet crashes; or the GCS is killed). A child stopped with SIGTERM
# (what `ray stop` sends) is expected: ray start keeps blocking.
source "$(dirname "$0")/testlib.sh"

# The raylet crashes after 1 s.
FAKE_RAY_DIE_AFTER=1 blocking_head h1
exits_within 10 h1
expect_rc 1 "raylet crashed"
expect_in h1.out "Some Ray subprocesses exited unexpectedly:"
expect_in h1.out "  raylet [exit code=1]"
expect_in h1.out "Remaining processes will be killed."
expect_no_procs "after a raylet crash"

# The GCS is killed.
blocking_head h2
kill -KILL "$(info h2 pids.gcs_server)"
exits_within 10 h2
expect_rc 1 "GCS killed"
expect_in h2.out "  gcs_server [exit code=-9]"
expect_no_procs "after the GCS was killed"

# The raylet stopped with SIGTERM: expected, ray start keeps blocking.
blocking_head h3
kill -TERM "$(info h3 pids.raylet)"
poll 5 gone "$(info h3 pids.raylet)"
sleep 2
! gone "${POD_PID[h3]}" || fail "ray start --block exited after its raylet got SIGTERM"
grep -qF "exited unexpectedly" "$WORK/h3.out" && fail "a SIGTERM'd raylet was reported as unexpected"
kill -TERM "${POD_PID[h3]}"
exits_within 10 h3
expect_rc 1 "SIGTERM"
expect_no_procs "end"
echo "PASS"
