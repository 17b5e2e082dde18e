#!/usr/bin/env bash
# In-place restarts (RAYLAUNCH_RESTARTS) with the FAKE ray: nothing of one run of the command
# changes how the next one is stopped (issue 26 item 1). The first run fails and leaves a process
# in its group that ignores SIGTERM, SIGKILLed at the end of the grace; the rerun is a trainer
# wrapped in bash (no exec) that saves a checkpoint for 1.5 s on SIGTERM, through the head's Ray.
# On SIGTERM bash dies at once; the trainer keeps the rest of the grace, and Ray is stopped only
# after it saved. The Lifecycle's unit matrix has every step (test_supervisor_survive.cpp).
source "$(dirname "$0")/../support/run_lib.sh"
ports

cat >"$WORK/trainer.py" <<'PY'
import json, os, signal, sys, time
out = open(sys.argv[1], "a", buffering=1)
facts = os.path.join(os.environ["RAY_TMPDIR"], "ray", "session_latest", "fake_ray.json")

def ray_up():
    pids = json.load(open(facts))["pids"].values()
    def alive(pid):
        try:
            return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    return all(alive(p) for p in pids)

def save(signo, frame):
    time.sleep(1.5)  # the checkpoint, written through the head's Ray
    out.write("saved with Ray up\n" if ray_up() else "saved after Ray was stopped\n")
    os._exit(128 + signo)

signal.signal(signal.SIGTERM, save)
out.write("ready\n")
while True:
    time.sleep(0.05)
PY
cat >"$WORK/train.sh" <<'SH'
if [[ $RAYLAUNCH_RESTART_COUNT == 0 ]]; then
  (trap '' TERM; while :; do sleep 0.1; done) &
  exit 1
fi
/usr/bin/python3 "$1" "$2"
echo "trainer exited $?"
SH

pod h $(loopback_env) RAYLAUNCH_RESTARTS=2 RAYLAUNCH_TERM_GRACE=3s -- run -- bash "$WORK/train.sh" "$WORK/trainer.py" "$WORK/trainer"
poll 40 grep -q ready "$WORK/trainer"
expect_in h.err "the command's process group did not exit within the term grace (3s): SIGKILL to what is left"
kill -TERM "${POD[h]}"
finish h 30
expect_rc 143 "SIGTERM to the rerun"
expect_in trainer "saved with Ray up"
expect_in h.err "of its group still run, with the rest of the term grace"
expect_in termination-log "stopped by SIGTERM while the command ran; the command ran again in place 1 time"
expect_clean
echo PASS
