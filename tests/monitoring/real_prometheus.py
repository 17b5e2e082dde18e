"""A real Prometheus (Debian's /usr/bin/prometheus) scraping running raylaunch pods the way the
kit's PodMonitor makes the Prometheus Operator scrape them, with raylaunch's alerting rules
loaded: the queries of the dashboard and the rules run on what it stored."""
import json
import os
import subprocess
import time
import urllib.parse
import urllib.request

import yaml


class Prometheus:
    def __init__(self, work, port, targets, endpoint, rule_file):
        """targets: (address, {label: value}) of each pod, labelled as the Operator labels them;
        endpoint: the PodMonitor's podMetricsEndpoint for raylaunch (path, interval, honorLabels)."""
        self.work, self.port = work, port
        self.url = f"http://127.0.0.1:{port}"
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [rule_file],
            "scrape_configs": [{
                "job_name": "raylaunch",
                "metrics_path": endpoint.get("path", "/metrics"),
                "honor_labels": bool(endpoint.get("honorLabels", False)),
                "static_configs": [{"targets": [address], "labels": labels} for address, labels in targets],
            }],
        }
        self.config = os.path.join(work, "prometheus.yml")
        with open(self.config, "w", encoding="utf-8") as f:
            yaml.safe_dump(config, f)
        self.log = open(os.path.join(work, "prometheus.log"), "w", encoding="utf-8")
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen(
            ["prometheus", f"--config.file={self.config}", f"--storage.tsdb.path={os.path.join(self.work, 'tsdb')}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_for(lambda: self.get("/-/ready", raw=True) is not None, 60, "Prometheus ready")
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def get(self, path, raw=False, **params):
        url = self.url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body = response.read().decode()
        except OSError:
            if self.process.poll() is not None:
                raise RuntimeError(f"prometheus exited {self.process.returncode}; see {self.log.name}") from None
            return None
        return body if raw else json.loads(body)

    def wait_for(self, condition, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.25)
        raise RuntimeError(f"{what}: not within {seconds}s (see {self.log.name})")

    def query(self, expr):
        """(status, result) of an instant query now."""
        answer = self.get("/api/v1/query", query=expr) or {}
        return answer.get("status"), (answer.get("data") or {}).get("result") or answer.get("error")

    def rules(self):
        answer = self.get("/api/v1/rules") or {}
        return [rule for group in (answer.get("data") or {}).get("groups", []) for rule in group["rules"]]
