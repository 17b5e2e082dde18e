#!/usr/bin/env bash
# What `run` refuses before anything starts, each with one line, its exit code and a
# termination message, and no `ray start` ever run: no command on the head (64), a command that
# is not found (127) or not executable (126), `ray` not on PATH (69, naming the path searched),
# a strict node check that fails (78), a bad setting (64), --exec with what cannot outlive it (64).
source "$(dirname "$0")/../support/run_lib.sh"
ports
no_ray_started() { [[ -z "$(ls "$FAKE_RAY_RECORD_DIR")" ]] || fail "$1: ray was run"; }

pod a $(loopback_env) -- run
finish a
expect_rc 64 "no command on the head"
expect_in a.err "raylaunch: error: no launch command: the head runs it once every node has joined"
expect_in termination-log "no launch command"
no_ray_started "no command"

pod b $(loopback_env) -- run -- no-such-program --flag
finish b
expect_rc 127 "command not found"
expect_in b.err "raylaunch: error: the launch command: no-such-program: not found on PATH ("
no_ray_started "command not found"

touch "$WORK/not-executable"
pod c $(loopback_env) -- run -- "$WORK/not-executable"
finish c
expect_rc 126 "command not executable"
expect_in c.err "not an executable file"
no_ray_started "command not executable"

pod d $(loopback_env) RAYLAUNCH_RAY=ray-that-is-missing -- run -- true
finish d
expect_rc 69 "ray missing"
expect_in d.err "raylaunch: error: the ray CLI (RAYLAUNCH_RAY): ray-that-is-missing: not found on PATH ("
no_ray_started "ray missing"

# A strict check that fails: this machine has no 64Ti of /dev/shm.
pod e $(loopback_env) RAYLAUNCH_CHECKS=strict RAYLAUNCH_SHM_MIN=64Ti -- run -- true
finish e
expect_rc 78 "strict check"
expect_in e.err "raylaunch: error: node check shm failed:"
expect_in termination-log "node check shm failed"
no_ray_started "strict check"

# Two strict checks failing: the log has each; the termination message the first, and names the
# second, so that fixing one does not meet the other at the next start.
pod e2 $(loopback_env) RAYLAUNCH_CHECKS=strict RAYLAUNCH_SHM_MIN=64Ti RAYLAUNCH_GPUS=8 -- run -- true
finish e2
expect_rc 78 "two strict checks"
expect_in e2.err "raylaunch: error: node check shm failed:"
expect_in e2.err "raylaunch: error: node check gpus failed: 0 GPUs found, 8 expected"
expect_in termination-log "node check shm failed: "
expect_in termination-log "; also: node check gpus failed (each in the log)"
no_ray_started "two strict checks"

pod f $(loopback_env) RAYLAUNCH_TERM_GRACE=forever -- run -- true
finish f
expect_rc 64 "bad setting"
expect_in f.err 'raylaunch: error: RAYLAUNCH_TERM_GRACE: "forever" is not valid'
no_ray_started "bad setting"

# --exec with what cannot outlive it: staying up after success, the health endpoint (64).
pod g $(loopback_env) RAYLAUNCH_EXEC=true RAYLAUNCH_ON_SUCCESS=stay RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT -- run -- true
finish g
expect_rc 64 "--exec with stay and a health port"
expect_in g.err "raylaunch: error: RAYLAUNCH_EXEC and RAYLAUNCH_ON_SUCCESS stay cannot go together"
expect_in g.err "raylaunch: error: RAYLAUNCH_EXEC and RAYLAUNCH_HEALTH_PORT $HEALTH_PORT cannot go together"
no_ray_started "--exec refused"
# `--exec` is a flag: alone it means true, whatever follows it.
for after in "-- true" "--nodes=1 -- true"; do
  pod h $(loopback_env) RAYLAUNCH_HEALTH_PORT=$HEALTH_PORT -- run --exec $after
  finish h
  expect_rc 64 "--exec $after"
  expect_in h.err "raylaunch: error: --exec and RAYLAUNCH_HEALTH_PORT $HEALTH_PORT cannot go together"
done

# Long settings are not bad settings: a realistic RAYLAUNCH_RAY_ARGS (JSON resources and labels,
# over 256 bytes, backslashes in it) is planned as given.
long='--resources={"accel_type:H100":8,"spot":1,"rack-a1":1,"tenant-research":1,"dataset-cache":1} ''--labels={"team":"vision-language-models","project":"openvla-finetune","cost-center":"ml-research-42",''"path":"C:\models\v7"} --num-cpus=96'
pod i $(loopback_env) RAYLAUNCH_RAY_ARGS="$long" -- plan -- true
finish i
expect_rc 0 "a long RAYLAUNCH_RAY_ARGS"
expect_in i.out '"path":"C:\models\v7"}'
no_ray_started "plan"

# A worker needs no command, and a command given to it is not run (it is the head's job).
expect_clean
echo PASS
