# Signals to this shell's own background processes only (sourced by fail_fast.sh and the suites'
# clean-ups). bash reaps a background job as soon as it exits; its PID is then free, and by a
# test's clean-up another program on the machine may have been given it (a test suite forks tens
# of thousands of processes; pid_max is 32768 on many machines): a kill by number would hit that
# program, such as a cluster pod's PID 1 in a test running beside this one (issue 18 item 13).

# is_child PID: PID is still a child of this shell (running, or a zombie not yet waited for).
# Builtins only: a fork here could itself be given a freed PID.
is_child() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  stat=${stat##*) }  # the fields after the command name, which may hold spaces and parentheses
  set -- $stat
  [[ $2 == "$$" ]]
}

# kill_children SIGNAL PID...: SIGNAL to each PID that is still a child of this shell.
kill_children() {
  local sig=$1 p
  shift
  for p in "$@"; do
    is_child "$p" && { kill "-$sig" "$p" 2>/dev/null || true; }
  done
  return 0
}
