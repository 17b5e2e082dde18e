# What the cluster changes on this machine, and how `down` undoes it (sourced): sysctls, the
# bridge, iptables chains, mounts, network namespaces, cgroups, directories outside $state.
# `down` runs every step even when an earlier one fails, and works after a half-done `up`.
# Needs: state, bridge, pod_gateway.

saved=$state/host-before-up

# The kubelet writes these (its kernel tunables, protectKernelDefaults false), the bridge and
# kube-proxy the rest.
touched_sysctls=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
                 kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward
                 net.ipv4.conf.all.route_localnet net.bridge.bridge-nf-call-iptables)
# Directories the components create outside $state whatever they are told.
outside_dirs=(/var/lib/kubelet /var/log/pods /var/log/containers /var/lib/cni /run/containerd
              /etc/cni /opt/cni /etc/kubernetes)

# Once per cluster directory: what this machine was like before the first `up`.
save_host() {
  [[ -s "$saved" ]] && return 0
  local key dir
  {
    for key in "${touched_sysctls[@]}"; do
      [[ -e /proc/sys/${key//.//} ]] && echo "sysctl $key $(cat "/proc/sys/${key//.//}")"
    done
    for dir in "${outside_dirs[@]}"; do [[ -e "$dir" ]] && echo "existed $dir"; done
  } >"$saved.tmp"
  mv "$saved.tmp" "$saved"
}

host_network_up() {
  # The bridge before anything binds to its address (CoreDNS, the API server): the CNI plugin
  # would create it only with the first pod. Its address is the node's: pods reach the node
  # directly, and nothing depends on this machine's own interfaces.
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
  fi
  local addrs
  addrs=$(ip -4 -o addr show dev "$bridge")  # not piped into grep -q: pipefail and SIGPIPE
  [[ $addrs == *"inet $pod_gateway/"* ]] || ip addr add "$pod_gateway/24" dev "$bridge"
  ip link set "$bridge" up
  # /run/netns a shared bind mount of itself, as `ip netns add` makes it the first time: else an
  # `ip netns add` after the pods' network namespaces were mounted there (containerd mounts them
  # without it) binds over them, and `down` can neither unmount nor remove them.
  if ! mountpoint -q /run/netns; then
    mkdir -p /run/netns
    mount --bind /run/netns /run/netns && mount --make-shared /run/netns
  fi
  sysctl -qw net.ipv4.ip_forward=1
  # Service traffic between two pods on this bridge must pass iptables (kube-proxy's DNAT).
  [[ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]] && sysctl -qw net.bridge.bridge-nf-call-iptables=1
  return 0
}

restore_host() {
  [[ -s "$saved" ]] || return 0
  local kind key value
  while read -r kind key value; do
    case $kind in
      sysctl) sysctl -qw "$key=$value" 2>/dev/null || warn "could not restore $key=$value" ;;
    esac
  done <"$saved"
  local dir
  for dir in "${outside_dirs[@]}"; do
    grep -qx "existed $dir" "$saved" && continue
    [[ -e "$dir" ]] || continue
    unmount_under "$dir"
    rm -rf "$dir"
  done
}

# Every mount at or below DIR, deepest first (/proc/self/mountinfo's 5th field, octal escapes).
unmount_under() {
  local dir=$1 m
  awk '{print $5}' /proc/self/mountinfo | while read -r m; do printf '%b\n' "$m"; done |
    awk -v d="$dir" '$0 == d || index($0, d "/") == 1' | sort -r | while read -r m; do
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || warn "could not unmount $m"
    done
}

remove_netns() {
  local ns
  for ns in /run/netns/cni-*; do
    [[ -e "$ns" ]] || continue
    while mountpoint -q "$ns"; do umount "$ns" 2>/dev/null || umount -l "$ns" 2>/dev/null || break; done
    rm -f "$ns" 2>/dev/null || warn "could not remove $ns (still mounted elsewhere?)"
  done
  return 0
}

remove_bridge() {
  local port
  for port in $(ip -o link show master "$bridge" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link del "$port" 2>/dev/null
  done
  ip link del "$bridge" 2>/dev/null
  return 0
}

# The CNI bridge plugin's masquerade chains (CNI-<hash>, jumped to from POSTROUTING) and its
# firewall chains; kube-proxy removes its own KUBE-* (kube-proxy --cleanup, in daemons.sh).
remove_iptables() {
  local table chain rule
  for table in nat filter; do
    iptables -t "$table" -S 2>/dev/null | grep -E '^-A [A-Z-]+ .*-j (CNI-|KUBE-)' | while read -r rule; do
      # shellcheck disable=SC2086 # a rule is its words
      iptables -t "$table" ${rule/-A/-D} 2>/dev/null
    done
    for chain in $(iptables -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^(CNI-|KUBE-)/ {print $2}'); do
      iptables -t "$table" -F "$chain" 2>/dev/null
    done
    for chain in $(iptables -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^(CNI-|KUBE-)/ {print $2}'); do
      iptables -t "$table" -X "$chain" 2>/dev/null
    done
  done
  return 0
}

# The kubelet's pod cgroups (kubepods) and containerd's (k8s.io), in every v1 hierarchy and in
# the unified one, children first.
remove_cgroups() {
  local root dir
  for root in /sys/fs/cgroup/* /sys/fs/cgroup; do
    for dir in "$root/kubepods" "$root/kubepods.slice" "$root/k8s.io"; do
      [[ -d "$dir" ]] || continue
      find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
      [[ -d "$dir" ]] && warn "cgroup $dir is still there (a process left in it?)"
    done
  done
  return 0
}
