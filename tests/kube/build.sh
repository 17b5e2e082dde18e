# scripts/kube's build step (sourced): the pinned Kubernetes release and CoreDNS from their Go
# modules, built once into the cache; a later `up` finds them there and builds nothing.
# Needs: kube_version, coredns_version, kube_bin, kube_src (set by scripts/kube).

# The binaries `up` runs. kube-proxy too: without it no ClusterIP Service (kubernetes.default, the
# head's client Service) answers inside a pod. kubectl of the same release: the machine's may be
# older than the server's supported skew (one minor version).
kube_binaries=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)

built() {
  local b
  for b in "${kube_binaries[@]}" coredns; do [[ -x "$kube_bin/$b" ]] || return 1; done
  [[ -f "$kube_bin/.built-$kube_version-$coredns_version" ]]
}

# The server reports what -X stamps here, or v0.0.0-master, which kubectl's version skew check and
# every controller's user agent would carry (Kubernetes' hack/lib/version.sh stamps the same two
# packages).
version_ldflags() {
  local minor=${kube_version#v1.}; minor=${minor%%.*}
  local pkg flags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

build_kubernetes() {
  built && return 0
  command -v go >/dev/null || die "Go is not installed (Go 1.25 or later builds Kubernetes $kube_version): install it from go.dev/dl or Debian's backports"
  local tmp="$kube_bin.partial" started=$SECONDS
  rm -rf "$tmp"; mkdir -p "$tmp"
  say "building Kubernetes $kube_version (${kube_binaries[*]}) from its Go module into $kube_bin"
  say "  the first build takes 10-15 minutes on 2 cores and about 3 GB of Go's build cache; later runs reuse it"
  # -p: one package at a time per core; more only swaps on a small machine. CGO off, as
  # upstream's release builds of these commands.
  (cd "$kube_src/kubernetes" &&
    CGO_ENABLED=0 go build -trimpath -p "$(nproc)" -ldflags "$(version_ldflags)" -o "$tmp/" \
      $(printf 'k8s.io/kubernetes/cmd/%s ' "${kube_binaries[@]}")) 2>&1 | progress_lines \
    || die "building Kubernetes failed (output above); a partial build is kept in Go's cache, so run it again"
  say "  Kubernetes built in $((SECONDS - started)) s; building CoreDNS $coredns_version"
  started=$SECONDS
  (cd "$kube_src/coredns" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/coredns" .) 2>&1 \
    | progress_lines || die "building CoreDNS failed (output above)"
  say "  CoreDNS built in $((SECONDS - started)) s"
  touch "$tmp/.built-$kube_version-$coredns_version"
  rm -rf "$kube_bin"; mv "$tmp" "$kube_bin"
}

# Go prints nothing while it compiles; a line a minute says it is still going.
progress_lines() {
  local pid
  ( while sleep 60; do say "  ... still building ($(date +%T))"; done ) &
  pid=$!
  cat
  # The ticker dies of the SIGTERM sent here: its status (143) is no failure, and under the
  # caller's errexit an unguarded `wait` would end the whole script with it.
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  return 0
}
