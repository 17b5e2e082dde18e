# scripts/kube's images (sourced), built without a registry: a Debian 12 base made by
# debootstrap, then with buildah from Dockerfiles in the tree (docker/Dockerfile as users build
# it, the test training image as docs/deploy.md tells users to build theirs, the pause image),
# then imported into the cluster's containerd. buildah keeps its layers under the cache, so a
# second build of unchanged inputs is a cache hit.
# Needs: kube_cache, state, repo, ray_version, other_ray_version.

images=$kube_cache/images
pause_image=localhost/pause:3.10
raylaunch_image=localhost/raylaunch:0.1.0   # the tag docs/deploy.md uses
training_image=localhost/raylaunch-training:test
base_image=docker.io/library/debian:12      # what `FROM debian:12` resolves to

bah() {
  buildah --root "$images/storage" --runroot "$images/run" --storage-driver overlay "$@"
}

# Debian 12 "minbase" with the same archive suites as this machine's, as one image layer. Made
# once (about a minute); `scripts/kube image --rebase` makes it again.
debian_base() {
  if [[ "${1:-}" != --rebase ]] && bah inspect --type image "$base_image" >/dev/null 2>&1; then return 0; fi
  local root=$images/debootstrap ctr mnt
  say "making the Debian 12 base image with debootstrap (once, about a minute)"
  rm -rf "$root"; mkdir -p "$root"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$images/debootstrap.log" 2>&1 ||
    die "debootstrap failed: see $images/debootstrap.log"
  cat >"$root/etc/apt/sources.list" <<'LIST'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
LIST
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  ctr=$(bah from scratch)
  mnt=$(bah mount "$ctr")
  tar -C "$root" -cf - . | tar -C "$mnt" -xf -
  bah umount "$ctr" >/dev/null
  bah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash "$ctr"
  bah commit --quiet --rm "$ctr" "$base_image" >/dev/null
  rm -rf "$root"
}

# build TAG DOCKERFILE CONTEXT [ARGS...]: one image. --pull=never: every FROM is local (there is
# no registry to ask); --layers: unchanged steps come from the cache. Chroot isolation: a RUN step
# needs no runtime of its own, and sees this machine's network (apt, PyPI).
build_image() {
  local tag=$1 file=$2 context=$3; shift 3
  local log=$images/build-${tag##*/}.log
  log=${log/:/-}
  local started=$SECONDS
  say "building $tag from ${file#"$repo"/} (log: $log)"
  bah build --pull=never --layers --isolation chroot --format docker -f "$file" -t "$tag" "$@" "$context" \
      >"$log" 2>&1 || { tail -n 20 "$log" >&2; die "building $tag failed (log above)"; }
  say "  $tag built in $((SECONDS - started)) s"
}

build_pause() {
  local ctx=$images/pause-context
  mkdir -p "$ctx"
  gcc -static -O2 -Wall -Wextra -Werror -o "$ctx/pause" "$repo/tests/kube/images/pause.c" ||
    die "compiling the pause program failed"
  build_image "$pause_image" "$repo/tests/kube/images/pause.Dockerfile" "$ctx"
}

build_raylaunch_image() {
  # docker/Dockerfile as users run it, from this checkout. This machine's ccache comes in as a
  # volume (docker/Dockerfile's RUN scripts/build finds it): the builder compiles what the host
  # build compiled already in seconds. apt's downloads are kept between builds the same way.
  local ccache_dir=${CCACHE_DIR:-${HOME:-/root}/.cache/ccache}
  mkdir -p "$ccache_dir" "$images/apt-archives/partial"
  build_image "$raylaunch_image" "$repo/docker/Dockerfile" "$repo" \
    --volume "$ccache_dir:/root/.cache/ccache" \
    --volume "$images/apt-archives:/var/cache/apt/archives"
}

build_training_image() {
  # pip inside the build trusts what pip here trusts: behind a TLS-inspecting proxy this machine's
  # bundle (PIP_CERT, SSL_CERT_FILE), mounted for the build only.
  local ca=${PIP_CERT:-${SSL_CERT_FILE:-}} trust=()
  [[ -n "$ca" && -r "$ca" ]] &&
    trust=(--volume "$ca:/run/host-ca-certificates.crt:ro" --build-arg PIP_CERT=/run/host-ca-certificates.crt)
  build_image "$training_image" "$repo/tests/kube/images/training.Dockerfile" "$repo" \
    --build-arg "RAY_VERSION=$ray_version" --build-arg "OTHER_RAY_VERSION=$other_ray_version" "${trust[@]}"
}

# import TAG: TAG into the cluster's containerd (its CRI namespace, k8s.io), replacing an older
# image of that name.
import_image() {
  local tag=$1 archive
  archive=$(mktemp -p "$images" import.XXXXXX.tar)
  bah push --quiet "$tag" "docker-archive:$archive:$tag" >/dev/null ||
    { rm -f "$archive"; die "exporting $tag failed"; }
  ctr_ -n k8s.io images import --no-unpack=false "$archive" >/dev/null ||
    { rm -f "$archive"; die "importing $tag into containerd failed"; }
  rm -f "$archive"
}
