# scripts/kube's configuration files (sourced): containerd, the CNI network, the kubelet,
# kube-proxy, CoreDNS and the RBAC the host-run components need. Rewritten on every `up` (cheap,
# and a changed script takes effect); everything lives under $state.
# Needs: state, pki, node_ip, node_name, pod_cidr, pod_gateway, service_cidr, cluster_dns.

# install PATH: standard input becomes PATH only when it differs (kube-proxy exits when its
# configuration file changes under it, and an idempotent `up` must not stop what runs).
install_conf() {
  local tmp
  tmp=$(mktemp "$1.XXXXXX")
  cat >"$tmp"
  if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv "$tmp" "$1"; fi
}

write_configs() {
  mkdir -p "$state"/{containerd,cni/net.d,cni/ipam,kubelet,pod-logs,coredns,logs,run}
  write_containerd_config
  write_cni_config
  write_kubelet_config
  write_proxy_config
  write_corefile
}

write_containerd_config() {
  # restrict_oom_score_adj: this machine lacks CAP_SYS_RESOURCE, runc cannot write the negative
  # oom_score_adj the kubelet asks for, and every sandbox fails with "can't get final child's PID
  # from pipe: EOF" (../shared/reference/real-kubernetes.md). Guaranteed pods then get score 0.
  install_conf "$state/containerd/config.toml" <<CONF
version = 2
root = "$state/containerd/root"
state = "$state/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
                    "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper",
                    "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$state/containerd/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$state/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  restrict_oom_score_adj = true
  disable_apparmor = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni/net.d"
CONF
}

write_cni_config() {
  # One bridge, host-local addresses, masquerade for traffic that leaves the pod network, hairpin
  # so a pod reaches itself through a Service; portmap for hostPort.
  install_conf "$state/cni/net.d/10-raylaunch.conflist" <<CONF
{
  "cniVersion": "1.0.0",
  "name": "raylaunch-kube",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$state/cni/ipam",
        "ranges": [[{"subnet": "$pod_cidr", "gateway": "$pod_gateway"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
CONF
}

write_kubelet_config() {
  # failCgroupV1: kubelet 1.35 refuses cgroup v1 hosts without it; this machine is v1 (EKS's
  # AL2023 nodes are v2). Eviction thresholds small: a test machine's disk is mostly someone
  # else's. podLogsDir and the root dir keep the kubelet's files under $state.
  install_conf "$state/kubelet/config.yaml" <<CONF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$state/containerd/containerd.sock
address: $node_ip
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization:
  mode: Webhook
tlsCertFile: $pki/kubelet.crt
tlsPrivateKeyFile: $pki/kubelet.key
clusterDomain: cluster.local
clusterDNS: [$cluster_dns]
resolvConf: /etc/resolv.conf
failSwapOn: false
podLogsDir: $state/pod-logs
serializeImagePulls: false
protectKernelDefaults: false
evictionHard:
  memory.available: 200Mi
  nodefs.available: 2%
  nodefs.inodesFree: 2%
  imagefs.available: 2%
CONF
}

write_proxy_config() {
  # conntrack.maxPerCore 0: leave the host's conntrack table size alone.
  install_conf "$state/kube-proxy.yaml" <<CONF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $state/kubeconfig/kube-proxy.conf
mode: iptables
clusterCIDR: $pod_cidr
hostnameOverride: $node_name
bindAddress: $node_ip
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack:
  maxPerCore: 0
CONF
}

write_corefile() {
  # CoreDNS on the node, on the bridge's gateway address (the kubelet's clusterDNS): the records
  # of a real cluster, with CoreDNS's own caching (NXDOMAIN kept 30 s, as kubeadm's Corefile).
  install_conf "$state/coredns/Corefile" <<CONF
.:53 {
    bind $cluster_dns
    errors
    ready 127.0.0.1:10281
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $state/kubeconfig/coredns.conf raylaunch-kube
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    forward . /etc/resolv.conf
    cache 30
    loadbalance
}
CONF
}

# What the components on the node need beyond the bootstrap roles: CoreDNS reads Services,
# EndpointSlices, pods and namespaces.
rbac_manifest() {
  cat <<'CONF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: raylaunch-kube:coredns
rules:
  - apiGroups: [""]
    resources: [endpoints, services, pods, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: raylaunch-kube:coredns
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: raylaunch-kube:coredns}
subjects:
  - {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}
CONF
}
