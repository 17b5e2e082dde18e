# A workload controller's image (LWS, JobSet, Kueue), built by scripts/kube controllers: the
# static manager binary built from the release's Go module, alone, as in the releases' distroless
# images (their manifests run /manager as a non-root user).
FROM scratch
COPY manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
