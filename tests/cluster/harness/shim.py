#!/usr/bin/python3
"""The container runtime's part of a pod, one process per container start (like a
containerd shim). Standalone: it imports nothing from the harness.

  shim.py init SPEC.json STATUS_FD   start the container: PID 1 of a new PID namespace
  shim.py exec SPEC.json|-           run a command inside a running container (exec probes)

`init` joins the pod's network namespace, unshares mount, UTS, IPC and PID namespaces and
forks; the child is PID 1 and builds the container's root (host directories bind-mounted,
read-only for the OS ones; its own /dev, /proc, /sys, /tmp; the kubelet's /etc/hosts,
/etc/resolv.conf, /etc/hostname and termination-log files; the volumes), drops to the
runtime's default capabilities and execs the container command itself: no wrapper stays
as PID 1. The shim writes `pid <host pid>`, `started` or `error <why>`, and finally
`exit <code> <signal>` on STATUS_FD. It reads `signal <N>` lines on stdin and sends them to
PID 1; EOF on stdin (the harness is gone) SIGKILLs it.
"""
import ctypes
import json
import os
import select
import signal
import sys

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
# Host directories the root is built from; these are bind-mounted read-only.
READ_ONLY = {"usr", "etc", "boot", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32"}
NOT_FROM_HOST = {"proc", "sys", "dev", "tmp", "lost+found"}
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")

libc = ctypes.CDLL(None, use_errno=True)


def check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(src, dst, fstype, flags, data=None):
    enc = lambda s: s.encode() if s is not None else None
    check(libc.mount(enc(src), enc(dst), enc(fstype), ctypes.c_ulong(flags), enc(data)),
          f"mount {src or fstype} on {dst}")


def setns_path(path, nstype):
    fd = os.open(path, os.O_RDONLY)
    try:
        check(libc.setns(fd, nstype), f"setns {path}")
    finally:
        os.close(fd)


def drop_privileges(spec):
    """The container's securityContext: capabilities (a root process gets the bounding set
    at execve), user and group, no_new_privs."""
    keep = set(spec.get("caps", []))
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for cap in range(last + 1):
        if cap not in keep:
            check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    if spec.get("uid") is not None:
        os.setgroups([])
        os.setgid(int(spec["gid"]))
        os.setuid(int(spec["uid"]))
    if spec.get("no_new_privs"):
        check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def make_node(path, is_dir):
    if is_dir:
        os.makedirs(path, exist_ok=True)
    elif not os.path.exists(path):
        open(path, "a").close()


class Rootfs:
    """The container's root, built on a tmpfs in this (private) mount namespace."""

    def __init__(self, root, warn):
        self.root = root
        self.warn = warn
        self.own_devs = set()

    def tmpfs(self, path, data):
        os.makedirs(path, exist_ok=True)
        mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, data)
        self.own_devs.add(os.stat(path).st_dev)

    def build(self, spec):
        r = self.root
        ro_root = spec.get("readonly_root")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        self.tmpfs(r, "mode=755")
        for name in sorted(os.listdir("/")):
            src = "/" + name
            if name in NOT_FROM_HOST:
                continue
            if os.path.islink(src):
                os.symlink(os.readlink(src), f"{r}/{name}")
            elif os.path.isdir(src):
                os.mkdir(f"{r}/{name}")
                mount(src, f"{r}/{name}", None, MS_BIND | MS_REC)
                if name in READ_ONLY or ro_root:
                    mount(None, f"{r}/{name}", None, MS_BIND | MS_REMOUNT | MS_RDONLY)
        os.mkdir(f"{r}/proc")
        mount("proc", f"{r}/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        os.mkdir(f"{r}/sys")
        mount("sysfs", f"{r}/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        if ro_root:
            os.mkdir(f"{r}/tmp", 0o1777)  # part of the read-only root, as in a container
        else:
            self.tmpfs(f"{r}/tmp", "mode=1777")
        self.build_dev(spec.get("shm_size"))
        for b in spec.get("binds", []):
            self.bind(b["src"], b["dst"], b.get("ro", False))
        if ro_root:
            mount(None, r, None, MS_BIND | MS_REMOUNT | MS_RDONLY)

    def build_dev(self, shm_size):
        d = f"{self.root}/dev"
        self.tmpfs(d, "mode=755")
        for name in DEVICES:
            make_node(f"{d}/{name}", False)
            mount(f"/dev/{name}", f"{d}/{name}", None, MS_BIND)
        os.mkdir(f"{d}/pts")
        mount("devpts", f"{d}/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
        os.symlink("pts/ptmx", f"{d}/ptmx")
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
            os.symlink(target, f"{d}/{name}")
        if shm_size:
            self.tmpfs(f"{d}/shm", f"mode=1777,size={shm_size}")
        else:
            os.mkdir(f"{d}/shm")
        os.mkdir(f"{d}/mqueue")
        try:
            mount("mqueue", f"{d}/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            pass  # a kernel without POSIX message queues: nothing here needs them

    def bind(self, src, dst, ro):
        path = self.root + dst
        if not os.path.lexists(path):
            # Creating a mount point is only allowed on this container's own tmpfs: under a
            # host directory it would change the host.
            parent = os.path.dirname(path)
            while not os.path.exists(parent):
                parent = os.path.dirname(parent)
            if os.stat(parent).st_dev not in self.own_devs:
                self.warn(f"mount {dst} skipped: it does not exist on the host and the harness "
                          f"does not create paths inside host directories")
                return
            os.makedirs(os.path.dirname(path), exist_ok=True)
            make_node(path, os.path.isdir(src))
        mount(src, path, None, MS_BIND | MS_REC)
        if ro:
            mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY)

    def enter(self, cwd):
        os.chdir(self.root)
        mount(self.root, "/", None, MS_MOVE)
        os.chroot(".")
        os.chdir(cwd or "/")


def exec_command(spec, errfd):
    """In the child, as the last step: the container's process image replaces this one."""
    try:
        drop_privileges(spec)
        # After the user change, which clears it.
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        for sig in range(1, signal.NSIG):
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.execvpe(spec["argv"][0], spec["argv"], dict(spec["env"]))
    except BaseException as e:  # noqa: BLE001 - anything here is a failed container start
        os.write(errfd, f"{spec['argv'][0]}: {e}".encode()[:1000])
        os._exit(127)


def report_exit(status, out):
    if os.WIFSIGNALED(status):
        out(f"exit {128 + os.WTERMSIG(status)} {os.WTERMSIG(status)}")
    else:
        out(f"exit {os.WEXITSTATUS(status)} 0")


def init(spec_path, status_fd):
    spec = json.load(open(spec_path))
    out = lambda line: os.write(status_fd, (line + "\n").encode())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the harness, not the pods
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the harness died: so does the pod
    setns_path(spec["netns"], CLONE_NEWNET)
    check(libc.unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID), "unshare")
    name = spec["hostname"].encode()
    check(libc.sethostname(name, len(name)), "sethostname")
    errr, errw = os.pipe()  # close-on-exec: EOF means the exec succeeded
    pid = os.fork()
    if pid == 0:
        os.close(errr)
        os.set_inheritable(status_fd, False)  # the container must not hold the status pipe
        try:
            os.setsid()
            rootfs = Rootfs("/tmp", lambda msg: out("warn " + msg))
            rootfs.build(spec)
            rootfs.enter(spec.get("cwd"))
        except BaseException as e:  # noqa: BLE001
            os.write(errw, f"container setup: {e}".encode()[:1000])
            os._exit(127)
        exec_command(spec, errw)
    os.close(errw)
    out(f"pid {pid}")
    err = b""
    while chunk := os.read(errr, 4096):
        err += chunk
    os.close(errr)
    out(f"error {err.decode(errors='replace')}" if err else "started")
    pidfd = os.pidfd_open(pid)
    ctl = sys.stdin.buffer.raw
    watched = [ctl, pidfd]
    while True:
        ready, _, _ = select.select(watched, [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            report_exit(status, out)
            return
        line = ctl.readline()
        if not line:
            # Once: stdin stays readable at EOF, and a PID namespace of many processes takes a
            # while to die (a Ray pod: tens of thousands of SIGKILLs in a busy loop otherwise).
            os.kill(pid, signal.SIGKILL)
            watched = [pidfd]
            continue
        words = line.split()
        if len(words) == 2 and words[0] == b"signal":
            os.kill(pid, int(words[1]))


def exec_in(spec_path):
    spec = json.load(sys.stdin if spec_path == "-" else open(spec_path))
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    pid = spec["pid"]
    root = os.open(f"/proc/{pid}/root", os.O_RDONLY | os.O_DIRECTORY)
    fds = [(os.open(f"/proc/{pid}/ns/{ns}", os.O_RDONLY), flag)
           for ns, flag in (("net", CLONE_NEWNET), ("uts", CLONE_NEWUTS), ("ipc", CLONE_NEWIPC),
                            ("pid", CLONE_NEWPID), ("mnt", CLONE_NEWNS))]
    for fd, flag in fds:
        check(libc.setns(fd, flag), f"setns into pid {pid}")
        os.close(fd)
    os.fchdir(root)
    os.chroot(".")
    os.chdir(spec.get("cwd") or "/")
    errr, errw = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(errr)
        exec_command(spec, errw)
    os.close(errw)
    # A timed-out exec: the harness sends SIGTERM here, and like containerd this kills the
    # exec'd process alone and reaps it; its own children are orphans of the pod's PID 1.
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    err = os.read(errr, 4096)
    if err:
        sys.stderr.write(err.decode(errors="replace") + "\n")
    _, status = os.waitpid(child, 0)
    sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))


if __name__ == "__main__":
    if sys.argv[1] == "init":
        init(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "exec":
        exec_in(sys.argv[2])
