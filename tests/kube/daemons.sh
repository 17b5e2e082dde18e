# The cluster's daemons (sourced): each in its own session, its log in $state/logs/NAME.log, its
# PID in $state/run/NAME.pid; started once (a running one is left alone), waited for by what it
# serves, stopped in the reverse order.
# Needs: state, pki, kube_bin, node_ip, node_name, service_cidr, pod_cidr.

kctl() { kubectl --kubeconfig "$state/kubeconfig/admin.conf" "$@"; }

pid_of() {
  local f=$state/run/$1.pid pid
  [[ -s "$f" ]] || return 1
  pid=$(<"$f")
  # The PID must still be this daemon's, not a later process's that got the number.
  local cmdline
  cmdline=$(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null) || return 1
  [[ $cmdline == *"$2"* ]] || return 1
  echo "$pid"
}

running() { pid_of "$1" "$2" >/dev/null; }

# start NAME ARGV...: NAME runs ARGV (its own session, so a Ctrl-C of the caller or the end of a
# test runner's process group does not reach it).
start() {
  local name=$1; shift
  running "$name" "$1" && return 0
  say "  starting $name"
  setsid "$@" >>"$state/logs/$name.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$state/run/$name.pid"
  # Until the child has exec'd, its cmdline is this script's, and `running` would call it
  # exited: wait (bounded) for the daemon's own cmdline or the child's end.
  local tries=0
  until running "$name" "$1" || ! kill -0 "$pid" 2>/dev/null || ((++tries > 100)); do sleep 0.05; done
}

# wait_until WHAT SECONDS NAME CMD...: poll CMD; on timeout, the daemon's last log lines.
wait_until() {
  local what=$1 limit=$2 name=$3; shift 3
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ! running "$name" "${daemon_match[$name]}"; then
      tail -n 15 "$state/logs/$name.log" >&2
      die "$name exited before $what (log above; all of it in $state/logs/$name.log)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 15 "$state/logs/$name.log" >&2
      die "no $what after ${limit}s (log above; all of it in $state/logs/$name.log)"
    fi
    sleep 0.5
  done
}

declare -A daemon_match=([etcd]=/usr/bin/etcd [kube-apiserver]=kube-apiserver
  [kube-controller-manager]=kube-controller-manager [kube-scheduler]=kube-scheduler
  [containerd]=/usr/bin/containerd [kubelet]=kubelet [kube-proxy]=kube-proxy [coredns]=coredns)

start_etcd() {
  # Ports of its own: 2379/2380 may be a developer's etcd. Progress notifications every 500 ms:
  # etcd 3.4 lacks the RequestWatchProgress call (3.5) that kube-apiserver 1.35's watch cache
  # uses to catch up with etcd before it serves a watch from "now" (ConsistentListFromCache, GA);
  # without them a watch of a resource that has not changed for a while waits for its next
  # change, or fails after 3 s with "Too large resource version".
  start etcd /usr/bin/etcd --name raylaunch-kube --data-dir "$state/etcd" \
    --experimental-watch-progress-notify-interval 500ms \
    --listen-client-urls http://127.0.0.1:12379 --advertise-client-urls http://127.0.0.1:12379 \
    --listen-peer-urls http://127.0.0.1:12380 --initial-advertise-peer-urls http://127.0.0.1:12380 \
    --initial-cluster raylaunch-kube=http://127.0.0.1:12380 --log-level warn
  wait_until "etcd answering" 60 etcd etcdctl --endpoints http://127.0.0.1:12379 endpoint health
}

start_apiserver() {
  start kube-apiserver "$kube_bin/kube-apiserver" \
    --etcd-servers http://127.0.0.1:12379 \
    --advertise-address "$node_ip" --bind-address "$node_ip" --secure-port 6443 \
    --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$pki/ca.crt" \
    --kubelet-preferred-address-types InternalIP,Hostname \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-cluster-ip-range "$service_cidr" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --allow-privileged=true --profiling=false --v=1
  wait_until "API server ready (/readyz)" 120 kube-apiserver kctl get --raw /readyz
}

start_controllers() {
  local conf=$state/kubeconfig
  start kube-controller-manager "$kube_bin/kube-controller-manager" \
    --kubeconfig "$conf/controller-manager.conf" \
    --authentication-kubeconfig "$conf/controller-manager.conf" \
    --authorization-kubeconfig "$conf/controller-manager.conf" \
    --leader-elect=false --bind-address 127.0.0.1 \
    --service-cluster-ip-range "$service_cidr" \
    --root-ca-file "$pki/ca.crt" --service-account-private-key-file "$pki/sa.key" \
    --use-service-account-credentials=true \
    --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" --v=1
  start kube-scheduler "$kube_bin/kube-scheduler" \
    --kubeconfig "$conf/scheduler.conf" \
    --authentication-kubeconfig "$conf/scheduler.conf" --authorization-kubeconfig "$conf/scheduler.conf" \
    --leader-elect=false --bind-address 127.0.0.1 --v=1
}

ctr_() { ctr --address "$state/containerd/containerd.sock" "$@"; }

start_containerd() {
  start containerd /usr/bin/containerd --config "$state/containerd/config.toml"
  wait_until "containerd answering" 60 containerd ctr_ version
}

start_kubelet() {
  start kubelet "$kube_bin/kubelet" --config "$state/kubelet/config.yaml" \
    --kubeconfig "$state/kubeconfig/kubelet.conf" --root-dir "$state/kubelet" \
    --node-ip "$node_ip" --hostname-override "$node_name" \
    --node-labels "topology.kubernetes.io/zone=$node_zone,topology.kubernetes.io/region=$node_region" --v=1
  wait_until "node $node_name Ready" 180 kubelet \
    kctl wait --for=condition=Ready "node/$node_name" --timeout=1s
}

start_proxy() {
  start kube-proxy "$kube_bin/kube-proxy" --config "$state/kube-proxy.yaml" --v=1
  wait_until "kube-proxy healthy" 60 kube-proxy curl -fsS http://127.0.0.1:10256/healthz
}

start_coredns() {
  start coredns "$kube_bin/coredns" -conf "$state/coredns/Corefile"
  wait_until "CoreDNS ready" 60 coredns curl -fsS http://127.0.0.1:10281/ready
}

# stop NAME SECONDS: SIGTERM, then SIGKILL after SECONDS.
stop() {
  local name=$1 grace=${2:-10} pid
  pid=$(pid_of "$name" "${daemon_match[$name]}") || { rm -f "$state/run/$name.pid"; return 0; }
  say "  stopping $name"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  rm -f "$state/run/$name.pid"
}
