#!/usr/bin/python3
"""Benchmarks of `raylaunch run` under abuse (issue 18, items 5 and 7), one raylaunch beside
another in one run (e.g. main's build and this branch's), against the FAKE ray CLI and FAKE GCS.
Not tests: nothing fails on a figure. Writes its section of benchmarks/results/run.md (below
the section of supervisor_bench.py).

  supervisor_abuse.py FAKE_GCS OUT.md LABEL=RAYLAUNCH [LABEL=RAYLAUNCH ...]

1. The health endpoint and 15,000 slow clients, each holding an unfinished 8 KB request: PID 1's
   RSS before, with them connected, and 5 s after they closed; /livez answered meanwhile.
2. At the descriptor limit (hard limit 64, the endpoint's clients holding every free one): the
   CPU raylaunch burns in 5 s.
3. A stderr nobody reads, while 5,000 orphans are reaped and logged at debug: /livez latency
   right after, and the zombies left.
"""
import os, resource, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor_bench as sb  # noqa: E402

SLOW_CLIENTS = int(os.environ.get("SLOW_CLIENTS", "15000"))


def livez(port, timeout=2.0):
    """Seconds one GET /livez took on a new connection, or None when it was not answered 200."""
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\n")
        data = s.recv(4096)
        s.close()
        return time.monotonic() - t0 if data.startswith(b"HTTP/1.1 200") else None
    except OSError:
        return None


def probes(port, n=20):
    times = [livez(port) for _ in range(n)]
    ok = [t * 1000 for t in times if t is not None]
    return len(ok), (statistics.median(ok) if ok else None)


def head(work, name, command=("print_signals",), extra=None, stderr=None, preexec=None):
    """A head with the health endpoint on, running `command`; its stderr to a log unless given."""
    env = sb.base_env(work, name)
    env["RAYLAUNCH_HEALTH_PORT"] = str(sb.free_port())
    env["PRINT_SIGNALS_TO"] = os.path.join(work, name + ".signals")
    env.update(extra or {})
    log = stderr if stderr is not None else open(os.path.join(work, name + ".log"), "w")
    p = subprocess.Popen([sb.RL, "run", "--", *command], env=env, stdout=subprocess.DEVNULL, stderr=log,
                         preexec_fn=preexec)
    return p, int(env["RAYLAUNCH_HEALTH_PORT"]), env


def slow_clients(work):
    p, port, env = head(work, "slow")
    sb.wait_for(lambda: os.path.exists(env["PRINT_SIGNALS_TO"]) and "ready" in open(env["PRINT_SIGNALS_TO"]).read())
    time.sleep(1)
    rss0 = sb.proc_rss_kb(p.pid)
    held = []
    for _ in range(SLOW_CLIENTS):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setblocking(False)
            try:
                s.send(b"GET /livez HTTP/1.1\r\nX-Slow: " + b"a" * 8000)
            except OSError:
                pass
            held.append(s)
        except OSError:
            pass
    time.sleep(1)
    rss1 = sb.proc_rss_kb(p.pid)
    answered, med = probes(port)
    for s in held:
        s.close()
    time.sleep(5)
    rss2 = sb.proc_rss_kb(p.pid)
    sb.stop(p)
    return rss0, rss1, rss2, answered, med, len(held)


def descriptor_limit(work):
    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    p, port, env = head(work, "emfile", preexec=low_limit)
    sb.wait_for(lambda: os.path.exists(env["PRINT_SIGNALS_TO"]) and "ready" in open(env["PRINT_SIGNALS_TO"]).read())
    held = []
    for _ in range(200):
        try:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=1))
        except OSError:
            pass
    time.sleep(1)
    cpu0 = sb.proc_cpu_ms(p.pid)
    time.sleep(5)
    cpu1 = sb.proc_cpu_ms(p.pid)
    for s in held:
        s.close()
    sb.stop(p)
    return cpu1 - cpu0


def stalled_stderr(work):
    r, w = os.pipe()  # nobody reads r until the end
    report = os.path.join(work, "zombies")
    p, port, _ = head(work, "stall", ("sh", "-c", 'make_orphans 5000 "$PPID"; exec print_signals'),
                      {"RAYLAUNCH_LOG_LEVEL": "debug", "ORPHANS_REPORT": report, "ORPHANS_SETTLE": "3"}, stderr=w)
    os.close(w)
    try:
        sb.wait_for(lambda: os.path.exists(report) and open(report).read().strip() != "", timeout=180)
        zombies = int(open(report).read())
    except TimeoutError:
        zombies = None
    answered, med = probes(port)
    p.send_signal(15)
    drained = 0
    os.set_blocking(r, False)
    end = time.monotonic() + 30
    while p.poll() is None and time.monotonic() < end:
        try:
            drained += len(os.read(r, 1 << 20))
        except BlockingIOError:
            time.sleep(0.05)
    if p.poll() is None:
        p.kill()
        p.wait()
    os.close(r)
    return zombies, answered, med


def main():
    sb.FAKE_GCS, out = sys.argv[1], sys.argv[2]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 1 << 20), hard))
    rows = []
    for spec in sys.argv[3:]:
        label, sb.RL = spec.split("=", 1)
        with tempfile.TemporaryDirectory(prefix="raylaunch-abuse-") as work:
            rss0, rss1, rss2, answered, med, n = slow_clients(work)
            cpu = descriptor_limit(work)
            zombies, s_answered, s_med = stalled_stderr(work)
        rows.append((label, rss0, rss1, rss2, answered, med, n, cpu, zombies, s_answered, s_med))
        print(rows[-1], flush=True)

    def ms(x):
        return "not answered" if x is None else f"{x:.2f} ms"

    lines = ["## Under abuse (benchmarks/supervisor_abuse.py)", "",
             f"One run on {os.cpu_count()} cores; each column is one build of raylaunch, measured in the same run.", "",
             "| measure | " + " | ".join(r[0] for r in rows) + " |", "|---|" + "---|" * len(rows)]

    def row(name, f):
        lines.append(f"| {name} | " + " | ".join(f(r) for r in rows) + " |")

    row("RSS at rest (health endpoint on)", lambda r: f"{r[1] / 1024:.1f} MB")
    row(f"RSS with {SLOW_CLIENTS:,} slow clients connected", lambda r: f"{r[2] / 1024:.1f} MB ({r[6]:,} connected)")
    row("RSS 5 s after they closed", lambda r: f"{r[3] / 1024:.1f} MB")
    row("/livez meanwhile (20 probes, 2 s timeout)", lambda r: f"{r[4]}/20 answered, median {ms(r[5])}")
    row("CPU in 5 s at the descriptor limit (hard limit 64)", lambda r: f"{r[7]:.0f} ms")
    row("zombies left of 5,000 orphans, stderr unread", lambda r: "never counted (stalled)" if r[8] is None else str(r[8]))
    row("/livez right after, stderr unread (20 probes)", lambda r: f"{r[9]}/20 answered, median {ms(r[10])}")
    lines += ["",
              "- Slow clients: each connects and sends 8,000 bytes of an unfinished request, then holds the "
              "connection; RSS is VmRSS of raylaunch.",
              "- Descriptor limit: raylaunch starts with RLIMIT_NOFILE 64/64 and 200 connections are opened to its "
              "endpoint; CPU is utime+stime over 5 s (a spinning accept loop burns a core).",
              "- Stalled stderr: raylaunch's stderr is a pipe nobody reads; the command makes 5,000 orphans, each "
              "reaped with a debug line (about 450 KB of log); make_orphans counts the zombies left after 3 s."]
    text = open(out).read() if os.path.exists(out) else ""
    text = text.split(sb.ABUSE_MARKER, 1)[0].rstrip("\n") + "\n" + sb.ABUSE_MARKER + "\n" + "\n".join(lines) + "\n"
    open(out, "w").write(text)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
