# scripts/kube's workload controllers (sourced): LeaderWorkerSet, JobSet and Kueue at pinned
# releases, each built from its own Go module (its own go.mod and go.sum, as its release is built)
# into the cache, packed into an image here (no registry) and installed from the release's own
# kustomize manifests (config/default in the module), with only what this cluster needs changed.
# Needs: kube_cache, state, repo, kctl, bah, build_image, import_image, progress_lines.

# name module version package-in-module: the releases issue 29 pins. LWS v0.9.0 and not v0.10.0:
# the Go module proxy serves no source of v0.10.0 here (its .info only).
controller_specs=(
  "lws sigs.k8s.io/lws v0.9.0 ./cmd"
  "jobset sigs.k8s.io/jobset v0.12.0 ."
  "kueue sigs.k8s.io/kueue v0.17.0 ./cmd/kueue"
)
controllers_bin=$kube_cache/controllers

controller_field() {  # controller_field NAME INDEX
  local spec f
  for spec in "${controller_specs[@]}"; do
    read -r -a f <<<"$spec"
    [[ ${f[0]} == "$1" ]] && { echo "${f[$2]}"; return 0; }
  done
  die "unknown controller $1 (one of: lws jobset kueue)"
}

# The module's source in Go's module cache (downloaded once; read-only there).
controller_source() {
  local module version dir
  module=$(controller_field "$1" 1); version=$(controller_field "$1" 2)
  dir=$(GOFLAGS=-mod=mod go mod download -json "$module@$version" 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin).get("Dir", ""))') || true
  [[ -n "$dir" && -f "$dir/go.mod" ]] ||
    die "the Go module proxy did not give $module@$version (go mod download -json $module@$version says why)"
  echo "$dir"
}

# build_controller NAME: the manager binary, once per release, static (CGO off as the releases).
build_controller() {
  local name=$1 version dir out started=$SECONDS
  version=$(controller_field "$name" 2)
  out=$controllers_bin/$name-$version
  [[ -x "$out/manager" ]] && return 0
  dir=$(controller_source "$name")
  say "building $name $version from its Go module (once; a few minutes on 2 cores)"
  mkdir -p "$out.partial"
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out.partial/manager" \
     "$(controller_field "$name" 3)") 2>&1 | progress_lines && [[ -x "$out.partial/manager" ]] ||
    die "building $name $version failed (output above); run it again: Go's cache keeps what was built"
  rm -rf "$out"; mv "$out.partial" "$out"
  say "  $name built in $((SECONDS - started)) s"
}

controller_image() { echo "localhost/$1:$(controller_field "$1" 2)"; }

# The image: the static binary alone, as the releases' distroless images hold it.
image_controller() {
  local name=$1 version ctx
  version=$(controller_field "$name" 2)
  ctx=$controllers_bin/$name-$version
  local tag have
  tag=$(controller_image "$name")
  have=$(ctr_ -n k8s.io images ls -q)  # not piped into grep -q: pipefail and SIGPIPE
  grep -qx "$tag" <<<"$have" && return 0
  bah inspect --type image "$tag" >/dev/null 2>&1 ||
    build_image "$tag" "$repo/tests/kube/images/controller.Dockerfile" "$ctx"
  import_image "$tag"
}

# What the release's manifests get here, and why (nothing else):
# - the image built above, pulled never (there is no registry);
# - requests cut to 10m CPU and 64Mi: LWS asks for a whole CPU and 1Gi, and this node has 2 CPUs
#   for the Ray pods of the tests;
# - Kueue: no visibility APIService (this API server has no aggregation layer configured; an
#   APIService that never answers breaks discovery, and the namespace controller then cannot
#   delete namespaces), and waitForPodsReady on, as the kit's Kueue component asks of users
#   (docs/deploy.md): a workload whose pods are not Ready (raylaunch: joined) in time is evicted.
controller_kustomization() {
  local name=$1 dir=$2 image
  image=$(controller_image "$name")
  cat <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $dir/config/default
images:
  - name: controller
    newName: ${image%:*}
    newTag: ${image##*:}
  - name: us-central1-docker.pkg.dev/k8s-staging-images/$name/$name
    newName: ${image%:*}
    newTag: ${image##*:}
patches:
  - target: {kind: Deployment}
    patch: |-
      - op: replace
        path: /spec/template/spec/containers/0/imagePullPolicy
        value: Never
      - op: replace
        path: /spec/template/spec/containers/0/resources/requests
        value: {cpu: 10m, memory: 64Mi}
EOF
  [[ $name == kueue ]] || return 0
  cat <<'EOF'
  - target: {kind: APIService}
    patch: |-
      $patch: delete
      apiVersion: apiregistration.k8s.io/v1
      kind: APIService
      metadata: {name: any}
  - target: {kind: ConfigMap, name: kueue-manager-config}
    patch: |-
      - op: replace
        path: /data/controller_manager_config.yaml
        value: |
          apiVersion: config.kueue.x-k8s.io/v1beta2
          kind: Configuration
          health:
            healthProbeBindAddress: :8081
          metrics:
            bindAddress: :8443
          webhook:
            port: 9443
          leaderElection:
            leaderElect: true
            resourceName: c1f6bfd2.kueue.x-k8s.io
          waitForPodsReady:
            timeout: 10m
            blockAdmission: true
            requeuingStrategy:
              timestamp: Eviction
          integrations:
            frameworks:
              - batch/job
              - pod
              - statefulset
              - jobset.x-k8s.io/jobset
              - leaderworkerset.x-k8s.io/leaderworkerset
EOF
}

controller_namespace() { echo "$1-system"; }

# install_controller NAME: applied server-side (the CRDs are larger than client-side apply's
# annotation allows), then waited for: the Deployment available means its webhook has a
# certificate (the releases' readiness probes wait for their internal certificate rotation).
install_controller() {
  local name=$1 dir work
  dir=$(controller_source "$name")
  work=$state/controllers/$name
  mkdir -p "$work"
  # kustomize takes a base by a relative path only.
  controller_kustomization "$name" "$(realpath --relative-to "$work" "$dir")" >"$work/kustomization.yaml"
  kctl kustomize "$work" >"$work/rendered.yaml" 2>"$work/kustomize.log" ||
    { cat "$work/kustomize.log" >&2; die "rendering $name's release manifests failed (kustomize above)"; }
  kctl apply --server-side --force-conflicts -f "$work/rendered.yaml" >"$work/apply.log" 2>&1 ||
    { tail -n 20 "$work/apply.log" >&2; die "applying $name's release manifests failed"; }
  kctl -n "$(controller_namespace "$name")" rollout status deployment --timeout 300s >/dev/null 2>&1 ||
    die "$name's controller did not become available in 300 s: kubectl -n $(controller_namespace "$name") describe pods"
  wait_webhooks "$name" "$work/rendered.yaml"
}

# The webhooks' Services, one "configuration-kind configuration-name namespace service port" a
# line (the first webhook naming each Service), from the rendered manifests.
webhook_services() {
  /usr/bin/python3 -c '
import sys, yaml
seen = {}
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc.get("kind") in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"):
        for hook in doc.get("webhooks") or []:
            svc = (hook.get("clientConfig") or {}).get("service")
            if svc:
                key = (svc["namespace"], svc["name"], svc.get("port", 443))
                seen.setdefault(key, (doc["kind"].lower(), doc["metadata"]["name"]))
for (ns, name, port), (kind, config) in sorted(seen.items()):
    print(kind, config, ns, name, port)
' "$1"
}

# wait_webhooks NAME RENDERED: a Deployment available is not yet a webhook reachable through its
# Service: until its endpoints are ready and kube-proxy has them, the Service's address refuses
# connections (kube-proxy's reject rule), and the API server fails every object the webhook sees
# ("failed calling webhook ...: connection refused"). Wait until each one answers from the node as
# the API server calls it: through the Service's address, its certificate verified against the
# configuration's caBundle (which the controller writes when its certificate is made) for the
# Service's DNS name. Any HTTP status will do.
wait_webhooks() {
  local name=$1 kind config ns svc port ip host ca deadline
  ca=$(mktemp)
  while read -r kind config ns svc port; do
    ip=$(kctl -n "$ns" get service "$svc" -o jsonpath='{.spec.clusterIP}')
    host=$svc.$ns.svc
    deadline=$((SECONDS + 120))
    until kctl get "$kind" "$config" -o jsonpath='{.webhooks[0].clientConfig.caBundle}' 2>/dev/null |
            base64 -d >"$ca" 2>/dev/null && [[ -s "$ca" ]] &&
          curl -sS -o /dev/null --max-time 3 --cacert "$ca" --resolve "$host:$port:$ip" \
            "https://$host:$port/" 2>/dev/null; do
      ((SECONDS < deadline)) || {
        rm -f "$ca"
        die "$name's webhook $ns/$svc ($ip:$port) does not answer with its certificate after 120 s: kubectl -n $ns get endpointslices,pods"
      }
      sleep 0.5
    done
  done < <(webhook_services "$2")
  rm -f "$ca"
}

# remove_controller NAME: everything its manifests made (its webhooks first go with them).
remove_controller() {
  local work=$state/controllers/$1
  [[ -f "$work/rendered.yaml" ]] || return 0
  kctl delete --ignore-not-found --wait=true --timeout 120s -f "$work/rendered.yaml" >/dev/null 2>&1 ||
    warn "removing $1 left something behind: kubectl get all -n $(controller_namespace "$1")"
  rm -rf "$work"
}
