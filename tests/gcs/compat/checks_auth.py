"""The matrix's rows about credentials, each on its own small real cluster (head and one worker):
token authentication (Ray 2.52+), Ray's token sources as Ray reads them, and mutual TLS with Ray's
own RAY_USE_TLS (the current release). Used by test_matrix.py."""
import os
import subprocess
import time

import raycluster as rc
from raycluster import Cluster, Failure, wait_for

TOKEN_SINCE = (2, 52)          # RAY_AUTH_MODE=token (Ray 2.52.0)
K8S_MODE = ((2, 52), (2, 54))  # RAY_AUTH_MODE=k8s: the API server's service-account token (2.52-2.53)
RAY_SA_TOKEN_SINCE = (2, 55)   # RAY_ENABLE_K8S_TOKEN_AUTH: the projected token at the ray.io path
TOKEN = "compat-matrix-token-0123456789abcdef"
PKI = os.path.join(rc.REPO, "tests", "gcs", "pki.sh")


def expect(cond, message, result=None):
    if not cond:
        raise Failure(message + (f"\n{result!r}" if result is not None else ""))


def one_line(r, code):
    """Exit `code` and exactly one line from raylaunch ('raylaunch: error: …' for commands)."""
    errors = [line for line in r.err.splitlines() if line.startswith("raylaunch: ")]
    expect(r.rc == code, f"exit {r.rc}, expected {code}", r)
    expect(len(errors) == 1, "expected exactly one raylaunch: line", r)
    return errors[0]


def small_cluster(c, env=None):
    head = c.add_node("training-0", head=True, env=env).start()
    worker = c.add_node("training-1", env=env).start()
    return head, worker


def rl_calls(c, worker, env):
    """The GCS client's commands with credentials `env`: wait, status, both readiness probes."""
    a = c.gcs_address
    return {
        "wait": c.raylaunch("wait", "--address", a, "--nodes", "2", "--timeout", "60s", env=env),
        "status": c.raylaunch("status", "--address", a, env=env),
        "head readiness": c.raylaunch("probe", "readiness", "--hostname", "training-0", "--nodes", "2",
                                      "--head-address", a, "--ray-port", str(c.gcs_port), env=env),
        "head liveness": c.raylaunch("probe", "liveness", "--hostname", "training-0", "--nodes", "2",
                                     "--head-address", a, "--ray-port", str(c.gcs_port), env=env),
        "worker readiness": c.raylaunch("probe", "readiness", "--hostname", worker.name, "--nodes", "2",
                                        "--head-address", a, env=env),
    }


def token_checks(m, work):
    rows = ["token auth: the right token", "token auth: a wrong token", "token auth: no token",
            "token file rotated during a wait", "RAY_AUTH_TOKEN of only whitespace",
            "Kubernetes token mode"]
    if m.v < TOKEN_SINCE:
        for row in rows:
            m.na(row, "no token authentication before Ray 2.52", short="n/a (< 2.52)")
        return
    node_env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN}
    with Cluster(m.version, os.path.join(work, "token")) as c:
        head, worker = small_cluster(c, env=node_env)
        c.wait_alive(["training-0", "training-1"], env={"RAY_AUTH_TOKEN": TOKEN})

        def right():
            calls = rl_calls(c, worker, {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN})
            for name, r in calls.items():
                expect(r.rc == 0, f"{name} with the right token", r)
            return "0: wait, status, probes as head and worker"
        m.check("token auth: the right token", right)

        def refused(env, what, hint):
            def run():
                calls = rl_calls(c, worker, env)
                for name in ("wait", "status"):
                    line = one_line(calls[name], 69)
                    expect("UNAUTHENTICATED" in line and hint in line, f"{name}: the refusal and what to do", calls[name])
                r = calls["worker readiness"]
                expect(r.rc == 1 and len(r.text.splitlines()) == 1 and "UNAUTHENTICATED" in r.err,
                       "worker readiness: unhealthy in one line", r)
                r = calls["head liveness"]
                expect(r.rc == 0 and "UNAUTHENTICATED" in r.out, "head liveness: the GCS answered, so alive", r)
                return f"69 with one line ({what}): wait, status; worker readiness 1; head liveness 0 (it answered)"
            return run
        m.check("token auth: a wrong token", refused({"RAY_AUTH_TOKEN": "wrong-token"}, "the token was refused",
                                                     "was refused"))
        m.check("token auth: no token", refused({}, "the GCS requires a token",
                                                "set RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH"))
        m.check("token file rotated during a wait", lambda: rotated_token(c))
        if m.version == rc.current_release():
            m.check("RAY_AUTH_TOKEN of only whitespace", lambda: whitespace_token(c))
        else:
            m.na("RAY_AUTH_TOKEN of only whitespace", f"checked on the current release ({rc.current_release()})",
                 short="-")
        if K8S_MODE[0] <= m.v < K8S_MODE[1]:
            m.check("Kubernetes token mode", lambda: k8s_token(c, mode="k8s"))
        elif m.v >= RAY_SA_TOKEN_SINCE:
            m.check("Kubernetes token mode", lambda: k8s_token(c, mode="enable"))
        else:
            m.na("Kubernetes token mode", "neither RAY_AUTH_MODE=k8s (2.52-2.53) nor the ray.io token (2.55+)")


def rotated_token(c):
    """A wait keeps reading RAY_AUTH_TOKEN_PATH: when the file changes (a projected token rotates; here
    to a token this GCS refuses, which only a re-read can notice), the next poll sends the new one."""
    path = os.path.join(c.work, "projected", "token")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    swap_file(path, TOKEN + "\n")
    waiting = c.raylaunch_async("wait", "--address", c.gcs_address, "--nodes", "3", "--timeout", "120s",
                                env={"RAY_AUTH_TOKEN_PATH": path})
    wait_for(lambda: "2/3 nodes alive" in waiting.stderr_so_far(), 60, "the wait's first answer (right token)")
    swap_file(path, "rotated-to-a-token-this-gcs-refuses\n")
    r = waiting.result(timeout=60)
    line = one_line(r, 69)
    expect("UNAUTHENTICATED" in line and f"RAY_AUTH_TOKEN_PATH={path}" in line, "refused after the file changed", r)
    return "the wait re-reads the changed file on its next poll (here a refused token: 69 at once)"


def swap_file(path, text):
    """Replaces `path` the way the kubelet updates a projected volume: a new file renamed over it."""
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def whitespace_token(c):
    """Ray takes RAY_AUTH_TOKEN when it is set and not empty, and trims it only then: a value of
    spaces is an empty token from that source, and Ray does not look further (a ~/.ray/auth_token
    with the right token is not used). A worker's `ray start` then fails; raylaunch does the same."""
    os.makedirs(os.path.join(c.home, ".ray"), exist_ok=True)
    with open(os.path.join(c.home, ".ray", "auth_token"), "w") as f:
        f.write(TOKEN + "\n")
    spaces = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "   "}
    try:
        probe = c.add_node("training-9", env=spaces).start()
        wait_for(lambda: not probe.alive(), 120, "ray start with RAY_AUTH_TOKEN of spaces to give up")
        ray_says = [line for line in open(probe.log, errors="replace") if "token" in line.lower()]
        expect(probe.proc.returncode != 0 and ray_says, "Ray refuses a token of spaces", probe.tail())
        r = c.raylaunch("status", "--address", c.gcs_address, env=spaces)
        line = one_line(r, 64)
        expect("RAY_AUTH_TOKEN" in line and "whitespace" in line, "raylaunch: the same source, refused", r)
        r = c.raylaunch("status", "--address", c.gcs_address, env={"RAY_AUTH_TOKEN": "   "})
        line = one_line(r, 69)
        expect("UNAUTHENTICATED" in line and "RAY_AUTH_TOKEN" in line and "whitespace" in line,
               "mode unset: nothing sent, and the refusal says why", r)
    finally:
        os.remove(os.path.join(c.home, ".ray", "auth_token"))
    return (f"Ray's ray start exits {probe.proc.returncode} (~/.ray/auth_token not used); raylaunch: 64 with "
            "RAY_AUTH_MODE=token, 69 naming RAY_AUTH_TOKEN when the mode is unset")


def k8s_token(c, mode):
    """Kubernetes token mode reads the token where Ray does: RAY_ENABLE_K8S_TOKEN_AUTH (Ray 2.55+)
    the projected token at /var/run/secrets/ray.io/serviceaccount/token (audience ray.io), never the
    API server's token; RAY_AUTH_MODE=k8s (Ray 2.52-2.53) the service-account token. Here the GCS
    checks tokens itself (RAY_AUTH_MODE=token) and the files are in this test's private /run."""
    ray_io = "/var/run/secrets/ray.io/serviceaccount/token"
    kube = "/var/run/secrets/kubernetes.io/serviceaccount/token"
    for path in (ray_io, kube):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        if mode == "enable":
            swap_file(ray_io, TOKEN + "\n")
            swap_file(kube, "the-api-servers-token-not-for-ray\n")
            env = {"RAY_AUTH_MODE": "token", "RAY_ENABLE_K8S_TOKEN_AUTH": "true"}
            source, used = "the Ray service-account token " + ray_io, ray_io
        else:
            swap_file(kube, TOKEN + "\n")
            env = {"RAY_AUTH_MODE": "k8s"}
            source, used = "the service-account token " + kube, kube
        r = c.raylaunch("wait", "--address", c.gcs_address, "--nodes", "2", "--timeout", "60s",
                        "--log-level", "debug", env=env)
        expect(r.rc == 0 and f"sending Ray's auth token from {source}" in r.err, f"the token from {used}", r)
        if mode == "enable":
            os.remove(ray_io)
            r = c.raylaunch("status", "--address", c.gcs_address, env=env)
            line = one_line(r, 64)
            expect("no token was found" in line, "without the ray.io token: refused, the API server's not used", r)
            return f"RAY_ENABLE_K8S_TOKEN_AUTH=true: reads {ray_io} (not {kube})", "ray.io token"
        return f"RAY_AUTH_MODE=k8s: token required, read from {kube}", "RAY_AUTH_MODE=k8s"
    finally:
        for path in (ray_io, kube):
            if os.path.exists(path):
                os.remove(path)


# --- TLS -------------------------------------------------------------------------------------

def tls_checks(m, work):
    # Not under /tmp: each node has its own /tmp. /run is this test's own (raycluster.py).
    certs = os.path.join("/run", "compat-certs")
    with Cluster(m.version, os.path.join(work, "tls")) as c:
        # One certificate for every node, as Ray's TLS guide makes them: the node IPs, 127.0.0.1.
        first = rc.SUBNET + "." + str(10 + c.first_slot)
        second = rc.SUBNET + "." + str(11 + c.first_slot)
        subprocess.run(["bash", "-c", f'source "{PKI}" && make_certs "$0" "IP:{first},IP:{second}"', certs],
                       check=True)
        tls = {"RAY_USE_TLS": "1", "RAY_TLS_SERVER_CERT": f"{certs}/pod.crt", "RAY_TLS_SERVER_KEY": f"{certs}/pod.key",
               "RAY_TLS_CA_CERT": f"{certs}/ca.crt"}
        head, worker = small_cluster(c, env=tls)
        c.wait_alive(["training-0", "training-1"], env=tls)

        def over_tls():
            calls = rl_calls(c, worker, tls)
            for name, r in calls.items():
                expect(r.rc == 0, f"{name} over mutual TLS", r)
            r = c.raylaunch("probe", "liveness", "--hostname", worker.name, "--nodes", "2", "--head-address",
                            c.gcs_address, "--node-manager-port", str(worker.node_manager_port), env=tls)
            expect(r.rc == 0 and "SERVING" in r.out, "worker liveness: its raylet over TLS", r)
            r = c.raylaunch("status", "--address", c.gcs_address, "--count", env=tls)
            expect(r.rc == 0 and r.out.startswith("2 alive"), "status --count over TLS", r)
            return "0: wait, status, --count, probes as head and worker (raylet health over TLS too)"
        m.check("TLS (RAY_USE_TLS): Ray's own mutual TLS", over_tls)

        def plaintext():
            r = c.raylaunch("status", "--address", c.gcs_address)
            line = one_line(r, 69)
            expect("requires TLS" in line, "plaintext against TLS: told apart", r)
            return "69 at once: " + line.split("raylaunch: error: ", 1)[-1]
        m.check("TLS: a plaintext client against Ray's TLS", plaintext)
