# The test training image (scripts/kube image): a training image built the way docs/deploy.md
# tells users to build theirs — their base (here Debian 12 with the pinned Ray in a virtualenv,
# as RLinf's images carry one), then raylaunch copied in from the image docker/Dockerfile builds.
# Plus the test's Ray programs, and a non-root user (the local overlay runs under the
# "restricted" Pod Security Standard).
FROM debian:12
ARG RAY_VERSION
# Another pinned release in a second venv: a worker whose Ray is not its head's (the scenario
# of a rolling update, tests/kube/scenarios/test_version_mismatch.py).
ARG OTHER_RAY_VERSION
# Behind a TLS-inspecting proxy pip needs its CA: scripts/kube image mounts this machine's bundle
# for the build only (it is not in the image) and names it here.
ARG PIP_CERT=
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv procps \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv/ray \
 && /opt/venv/ray/bin/pip install --no-cache-dir --disable-pip-version-check ${PIP_CERT:+--cert "$PIP_CERT"} \
      "ray==${RAY_VERSION}" \
 && /opt/venv/ray/bin/python -m compileall -q /opt/venv/ray/lib >/dev/null
RUN python3 -m venv /opt/venv/ray-other \
 && /opt/venv/ray-other/bin/pip install --no-cache-dir --disable-pip-version-check ${PIP_CERT:+--cert "$PIP_CERT"} \
      "ray==${OTHER_RAY_VERSION}"
RUN useradd --uid 1000 --user-group --create-home ray
COPY tests/cluster/ray_program.py tests/cluster/ray_nodes.py tests/cluster/survive_program.py /opt/raylaunch-test/
# docs/deploy.md, step 2:
COPY --from=raylaunch:0.1.0 /raylaunch /usr/local/bin/raylaunch
USER 1000:1000
WORKDIR /home/ray
