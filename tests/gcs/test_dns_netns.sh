#!/usr/bin/env bash
# DNS that does not resolve yet, with a real DNS server: a network namespace whose
# /etc/resolv.conf (bind-mounted by `ip netns exec` from /etc/netns/NAME/) points at dnsmasq on
# 127.0.0.1:53 inside it, authoritative for test.local. The head's name is added later (dnsmasq
# re-reads --addn-hosts on SIGHUP), as a headless Service record appears after the pod.
# Covers our own c-ares lookup (`wait head`) and gRPC's c-ares resolver (`wait`) in the static
# binary. Skips (125) without root, iproute2 netns support or dnsmasq.
source "$(dirname "$0")/lib.sh"
DNSMASQ=$(command -v dnsmasq || echo /usr/sbin/dnsmasq)
[[ $(id -u) == 0 && -x "$DNSMASQ" ]] || { echo "SKIP: needs root and dnsmasq"; exit 125; }
ns="raylaunch-dns-$$"
ip netns add "$ns" 2>/dev/null || { echo "SKIP: cannot create a network namespace"; exit 125; }
cleanup_ns() {
  [[ -f "$WORK/dnsmasq.pid" ]] && kill "$(cat "$WORK/dnsmasq.pid")" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "/etc/netns/$ns"
  cleanup
}
trap cleanup_ns EXIT
mkdir -p "/etc/netns/$ns"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:2\n' >"/etc/netns/$ns/resolv.conf"
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
: >"$WORK/dns_hosts"
ip netns exec "$ns" "$DNSMASQ" --keep-in-foreground --port=53 --listen-address=127.0.0.1 --bind-interfaces --no-resolv \
  --no-hosts --local=/test.local/ --addn-hosts="$WORK/dns_hosts" --pid-file="$WORK/dnsmasq.pid" \
  --log-queries --log-facility="$WORK/dnsmasq.log" --user=root --group=root &
PIDS+=($!)
wait_file "$WORK/dnsmasq.pid"
[[ "$(in_ns cat /etc/resolv.conf)" == "nameserver 127.0.0.1"* ]] || { echo "SKIP: no per-namespace resolv.conf"; exit 125; }

# The fake GCS inside the namespace (its control socket is a path, reachable from outside).
# Background processes are started with `ip netns exec` itself, which execs them: $! is theirs.
port=$(in_ns "$FAKE_GCS" freeport)
ip netns exec "$ns" "$FAKE_GCS" serve --port "$port" --port-file "$WORK/gcs.port" --control "unix:$WORK/ctl.sock" 2>"$WORK/gcs.log" &
PIDS+=($!)
wait_file "$WORK/gcs.port"
CTL="unix:$WORK/ctl.sock"
ctl add training-0 --head >/dev/null
name="training-0.training.ml.svc.test.local"

bg head ip netns exec "$ns" "$RAYLAUNCH_BIN" wait head --address "$name:$port" --timeout 30s
bg nodes env HOSTNAME=training-0 ip netns exec "$ns" "$RAYLAUNCH_BIN" wait --address "$name:$port" --nodes 1 --timeout 30s
sleep 2
echo "127.0.0.1 $name" >"$WORK/dns_hosts"
kill -HUP "$(cat "$WORK/dnsmasq.pid")"
join head
expect_rc 0 "wait head once the name resolves"
expect_in head.err "DNS stage failing: $name: name not found"
expect_in head.err "head GCS at $name:$port answered (Ray 2.9.0)"
join nodes
expect_rc 0 "wait (gRPC's resolver) once the name resolves"
expect_in nodes.err "GCS at $name:$port: not answering: UNAVAILABLE"
expect_in nodes.err "1/1 nodes alive after"
grep -q "query\[A\] $name" "$WORK/dnsmasq.log" || fail "dnsmasq saw no query for $name"
echo "PASS"
