#!/usr/bin/env python3
"""FAKE NCCL RAS server (not NCCL): a test fixture that speaks NCCL's RAS client protocol as
NCCL's own server does (src/ras/client_support.cc, NVIDIA/nccl v2.30.4; the text layout is the
same since 2.24), for raylaunch's RAS watch. No GPU or NCCL here: it renders the status dump
from a job description instead of gathering one over a RAS network.

  fake_ras.py --port-file F --job JOB.json [--nccl 2.30.4] [--fault MODE] [--advance] [--log F]

The job (re-read at every STATUS, so a test changes it between polls):
  {"comms": [{"hash": "7f3a2b1c9d8e0f11", "size": 4,
              "ranks": [{"rank": 0, "host": "10.0.0.1", "pid": 101, "gpu": 0,
                         "counts": {"AllReduce": 100}}, ...],
              "missing": [{"rank": 3, "host": "10.0.0.4", "pid": 104, "gpu": 3, "dead": true}]}]}
--nccl below 2.29 refuses SET FORMAT (as NCCL before it did) and speaks text only.
--advance: every STATUS adds 1 to every rank's counts (a job that makes progress).
Faults, as a misbehaving or dying server shows them to a client:
  stall    accepts and reads, never answers
  vanish   closes each connection as soon as it is accepted
  garbage  answers the handshake with an HTTP error line (not a RAS server)
  junk     a proper handshake, then a dump that is neither text nor JSON RAS
  huge     a proper handshake, then a status dump that never ends (64 MiB)
  midway   a proper handshake, then half a dump: the server's process died in the middle
"""
import argparse, json, os, socket, threading, time

FUNCS = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"]  # ncclFuncStr (src/init.cc)
DETAIL_THRESHOLD, OUTLIER_FRACTION = 10, 0.25  # RAS_CLIENT_DETAIL_THRESHOLD, _OUTLIER_FRACTION


def outlier(count, total=-1):  # rasCountIsOutlier, not verbose
    return count == 1 or (count <= DETAIL_THRESHOLD and (total == -1 or count <= total * OUTLIER_FRACTION))


def where(r):
    return f"GPU {r['gpu']} managed by process {r['pid']} on node {r['host']}"


def counts_of(r):
    return [r.get("counts", {}).get(f, 0) for f in FUNCS]


def render_text(job, version):
    out = [f"NCCL version {version}+cuda12.8\nCUDA runtime version 12080, driver version 12080\n\n"]
    out.append("Job summary\n===========\n\n  Nodes  Processes         GPUs\n(fake)\n\n")
    comms = job.get("comms", [])
    out.append("Communicators... (0.012s)\n=============\n\n")
    if comms:
        out.append("Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
                   "    #  in group  per comm  per node  per comm  in group\n")
    else:
        out.append("No communicator data collected!\n")
    for i, c in enumerate(comms):
        ranks = c.get("ranks", [])
        nodes = len({r["host"] for r in ranks}) or 1
        differ = len({tuple(counts_of(r)) for r in ranks}) > 1
        errors = ("INCOMPLETE" if c.get("missing") else "") + ("," if c.get("missing") and differ else "") + \
                 ("MISMATCH" if differ else "")
        out.append("%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s\n" % (i, 1, nodes, str(len(ranks) // nodes or 1),
                                                                c["size"], len(ranks), "RUNNING", errors or "OK"))
    out.append("\nErrors\n======\n\n")
    dead = [m for c in comms for m in c.get("missing", []) if m.get("dead")]
    if dead:
        out.append("DEAD\n  %d job process%s considered dead (unreachable via the RAS network)\n" %
                   (len(dead), "es are" if len(dead) > 1 else " is"))
        if outlier(len(dead)):
            for m in dead:
                out.append(f"  Process {m['pid']} on node {m['host']} managing GPU {m['gpu']}\n")
        out.append("\n")
    for i, c in enumerate(comms):
        missing = c.get("missing", [])
        if missing:
            n = len(missing)
            out.append("#%d-0 (%016x) INCOMPLETE\n  Missing communicator data from %d rank%s\n" %
                       (i, int(c["hash"], 16), n, "s" if n > 1 else ""))
            if outlier(n):
                for m in missing:
                    out.append(f"  Rank {m['rank']} -- {where(m)}\n")
            out.append("\n")
    out.append("Warnings\n========\n\n")
    for i, c in enumerate(comms):
        ranks = c.get("ranks", [])
        if len({tuple(counts_of(r)) for r in ranks}) <= 1:
            continue  # the ranks agree: no MISMATCH block
        out.append("#%d-0 (%016x) MISMATCH\n" % (i, int(c["hash"], 16)))
        for k, func in enumerate(FUNCS):
            values = [counts_of(r)[k] for r in ranks]
            if len(set(values)) <= 1:
                continue
            out.append(f"  Communicator ranks have different {func} operation counts\n")
            groups = {}
            for r in sorted(ranks, key=lambda r: r["rank"]):
                groups.setdefault(counts_of(r)[k], []).append(r)
            for value, members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                if len(members) > 1:
                    out.append(f"  {len(members)} ranks have launched up to operation {value}\n" if value > 0 else
                               f"  {len(members)} ranks have not launched any operations\n")
                if outlier(len(members), c["size"]):
                    for r in members:
                        if len(members) > 1:
                            out.append(f"  Rank {r['rank']} -- {where(r)}\n")
                        elif value > 0:
                            out.append(f"  Rank {r['rank']} has launched up to operation {value} -- {where(r)}\n")
                        else:
                            out.append(f"  Rank {r['rank']} has not launched any operations -- {where(r)}\n")
            out.append("\n")
    return "".join(out)


def render_json(job, version):  # rasDumpCommsToJSON's layout
    comms = []
    for c in job.get("comms", []):
        comms.append({
            "hash": "0x%x" % int(c["hash"], 16), "secondary_hash": "0x1:0x2", "size": c["size"],
            "ranks_count": len(c.get("ranks", [])), "missing_ranks_count": len(c.get("missing", [])),
            "ranks": [{"rank": r["rank"], "host": r["host"], "pid": r["pid"], "cuda_dev": r["gpu"], "nvml_dev": r["gpu"],
                       "status": {"init_state": r.get("init_state", 0), "async_error": r.get("async_error", 0),
                                  "finalize_called": False, "destroy_flag": False, "abort_flag": False},
                       "collective_counts": dict(zip(FUNCS, counts_of(r)))} for r in c.get("ranks", [])],
            "missing_ranks": [{"rank": m["rank"], "host": m["host"], "pid": m["pid"], "cuda_dev": m["gpu"],
                               "nvml_dev": m["gpu"], "status": {"unresponsive": True, "considered_dead": m.get("dead", False)}}
                              for m in c.get("missing", [])]})
    doc = {"nccl_version": version, "cuda_runtime_version": 12080, "cuda_driver_version": 12080,
           "timestamp": time.strftime("%F %T"), "communicators_count": len(comms), "communicators": comms,
           "ras": {"collection_time_sec": 0.012, "timeouts_count": 0}}
    return json.dumps(doc, indent=2) + "\n"


class Server:
    def __init__(self, args):
        self.args = args
        self.version = tuple(int(x) for x in args.nccl.split("."))
        self.lock = threading.Lock()
        self.statuses = 0

    def log(self, line):
        if self.args.log:
            with open(self.args.log, "a") as f:
                f.write(line + "\n")

    def job(self):
        with open(self.args.job) as f:
            job = json.load(f)
        with self.lock:
            self.statuses += 1
            n = self.statuses
        if self.args.advance:
            for c in job.get("comms", []):
                for r in c.get("ranks", []):
                    r["counts"] = {k: v + n for k, v in r.get("counts", {}).items()}
        return job

    def serve(self, conn):
        fault = self.args.fault
        if fault == "vanish":
            conn.close()
            return
        fmt, buf = "text", b""
        with conn:
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                if fault == "stall":
                    continue
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    cmd = line.decode(errors="replace").rstrip("\r")
                    self.log("got " + cmd)
                    low = cmd.lower()
                    if fault == "garbage":
                        conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")
                        return
                    if low.startswith("client protocol "):
                        conn.sendall(b"SERVER PROTOCOL 2\n")
                    elif low.startswith("timeout "):
                        conn.sendall(b"OK\n")
                    elif low.startswith("set format ") and self.version >= (2, 29):
                        fmt = low[len("set format "):]
                        conn.sendall(b"OK\n" if fmt in ("text", "json") else b"ERROR: Invalid format %s\n" % fmt.encode())
                    elif low in ("status", "verbose status"):
                        self.status(conn, fmt)
                        return
                    else:
                        conn.sendall(b"ERROR: Unknown command %s\n" % cmd.encode())

    def status(self, conn, fmt):
        fault = self.args.fault
        if fault == "junk":
            conn.sendall(b"\x00\x01 this is not a status dump\n")
            return
        if fault == "huge":
            chunk = b"x" * (1 << 20)
            try:
                for _ in range(64):
                    conn.sendall(chunk)
            except OSError:
                pass
            return
        version = self.args.nccl
        body = (render_json if fmt == "json" else render_text)(self.job(), version).encode()
        if fault == "midway":
            conn.sendall(body[: len(body) // 2])
            return
        conn.sendall(body)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--job", required=True)
    p.add_argument("--nccl", default="2.30.4")
    p.add_argument("--fault", choices=["stall", "vanish", "garbage", "junk", "huge", "midway"])
    p.add_argument("--advance", action="store_true")
    p.add_argument("--log")
    args = p.parse_args()
    server = Server(args)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(sock.getsockname()[1]))
    os.rename(tmp, args.port_file)
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=server.serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
