# The pod sandbox image (containerd's sandbox_image), built by scripts/kube image: pause.c,
# compiled static on the host (the build context holds only the binary).
FROM scratch
COPY pause /pause
USER 65535:65535
ENTRYPOINT ["/pause"]
