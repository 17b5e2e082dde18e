# scripts/kube's certificates and kubeconfigs (sourced), made with openssl only: one CA, a serving
# certificate for the API server and the kubelet, a client certificate per component, the
# service-account key pair. Made once per cluster directory; `down` removes them with it.
# Needs: state, node_ip, node_name, service_ip (set by scripts/kube).

pki=$state/pki

# cert NAME CN ORG SANS: NAME.crt and NAME.key signed by the CA. ECDSA P-256: quick to make,
# and every component here accepts it. SANS empty for a client-only certificate.
cert() {
  local name=$1 cn=$2 org=$3 sans=$4 ext
  [[ -s "$pki/$name.crt" ]] && return 0
  ext="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth${sans:+,serverAuth}"
  [[ -n "$sans" ]] && ext+=$'\n'"subjectAltName=$sans"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$pki/$name.key" -subj "/CN=$cn${org:+/O=$org}" -out "$pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
      -days 3650 -extfile <(printf '%s\n' "$ext") -out "$pki/$name.crt" 2>/dev/null
  rm -f "$pki/$name.csr"
}

# kubeconfig NAME: the client certificate NAME as a kubeconfig at $state/kubeconfig/NAME.conf.
kubeconfig() {
  local name=$1
  install_conf "$state/kubeconfig/$name.conf" <<CONF
apiVersion: v1
kind: Config
clusters:
  - name: raylaunch-kube
    cluster:
      server: https://$node_ip:6443
      certificate-authority: $pki/ca.crt
users:
  - name: $name
    user:
      client-certificate: $pki/$name.crt
      client-key: $pki/$name.key
contexts:
  - name: raylaunch-kube
    context: {cluster: raylaunch-kube, user: $name}
current-context: raylaunch-kube
CONF
}

make_pki() {
  mkdir -p "$pki" "$state/kubeconfig"
  chmod 700 "$pki"
  if [[ ! -s "$pki/ca.crt" ]]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -keyout "$pki/ca.key" -subj "/CN=raylaunch-kube-ca" -out "$pki/ca.crt" 2>/dev/null
  fi
  # The API server answers by every name a client in a pod or on the node uses for it.
  cert apiserver kube-apiserver "" \
      "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:$service_ip,IP:$node_ip"
  cert kubelet "system:node:$node_name" system:nodes "DNS:$node_name,IP:$node_ip,IP:127.0.0.1"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
  cert admin kubernetes-admin system:masters ""
  cert controller-manager system:kube-controller-manager "" ""
  cert scheduler system:kube-scheduler "" ""
  cert kube-proxy system:kube-proxy "" ""
  cert coredns system:coredns "" ""
  if [[ ! -s "$pki/sa.key" ]]; then
    openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  fi
  # The kubelet's kubeconfig must name the node's own certificate; the others their component's.
  local c
  for c in admin controller-manager scheduler kube-proxy coredns kubelet; do kubeconfig "$c"; done
}
