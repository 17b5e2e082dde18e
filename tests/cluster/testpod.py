#!/usr/bin/python3
"""The container command of the harness's self-tests: a small PID 1 that says what it sees
and does what the test asks.

On start it prints one `info {json}` line (pid, hostname, argv, environment). It serves
HTTP/1.1 on $TESTPOD_PORT (default 8081):
  /livez, /readyz     the status set for them (200 unless changed); each request is logged
                      as `probe <path> <user agent>`
  /set?livez=503&readyz=200&hang=livez
                      changes a status; `hang` makes that path never answer
  /exit?code=N        exits with N (a crash)
Signals: every one received is logged as `signal <NAME>`. $TESTPOD_ON_TERM says what
SIGTERM does: `exit:<code>[:<delay s>]` (default exit:143), `ignore` (a handler that only
logs), or `default` (no handler: as PID 1 the kernel drops SIGTERM).
$TESTPOD_EXIT_AFTER=<s> exits with $TESTPOD_EXIT_CODE (0) after that many seconds;
$TESTPOD_LISTEN_AFTER=<s> delays the HTTP server. $TESTPOD_MESSAGE is written to
/dev/termination-log before any exit of its own.
"""
import http.server
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse

status = {"/livez": 200, "/readyz": 200}
hanging = set()


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def leave(code):
    message = os.environ.get("TESTPOD_MESSAGE")
    if message:
        with open("/dev/termination-log", "w") as f:
            f.write(message)
    say(f"exiting {code}")
    os._exit(code)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path in status:
            say(f"probe {url.path} {self.headers.get('User-Agent')} "
                f"connection={self.headers.get('Connection')}")
            if url.path in hanging:
                time.sleep(3600)
            self.reply(status[url.path], f"{url.path[1:]} {status[url.path]}")
        elif url.path == "/set":
            for key in ("livez", "readyz"):
                if key in query:
                    status["/" + key] = int(query[key])
            hanging.clear()
            if query.get("hang"):
                hanging.add("/" + query["hang"])
            say(f"set {query}")
            self.reply(200, json.dumps(status))
        elif url.path == "/exit":
            self.reply(200, "bye")
            leave(int(query.get("code", "0")))
        else:
            self.reply(404, "not found")


def on_signal(sig, _frame):
    name = signal.Signals(sig).name
    say(f"signal {name}")
    if sig != signal.SIGTERM:
        return
    how = os.environ.get("TESTPOD_ON_TERM", "exit:143").split(":")
    if how[0] == "exit":
        delay = float(how[2]) if len(how) > 2 else 0
        threading.Timer(delay, leave, [int(how[1])]).start()


def main():
    say("info " + json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "hostname": socket.gethostname(),
                              "argv": sys.argv, "env": dict(os.environ)}, sort_keys=True))
    on_term = os.environ.get("TESTPOD_ON_TERM", "exit:143")
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGQUIT):
        signal.signal(sig, on_signal)
    if on_term != "default":
        signal.signal(signal.SIGTERM, on_signal)
    if os.environ.get("TESTPOD_EXIT_AFTER"):
        code = int(os.environ.get("TESTPOD_EXIT_CODE", "0"))
        threading.Timer(float(os.environ["TESTPOD_EXIT_AFTER"]), leave, [code]).start()
    time.sleep(float(os.environ.get("TESTPOD_LISTEN_AFTER", "0")))
    server = http.server.ThreadingHTTPServer(("0.0.0.0", int(os.environ.get("TESTPOD_PORT", "8081"))), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    say("listening")
    # Not signal.pause(): the kernel may deliver a signal to a server thread, and Python then
    # runs the handler only once the main thread wakes up.
    while True:
        time.sleep(0.05)


if __name__ == "__main__":
    main()
