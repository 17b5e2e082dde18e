"""The cluster's API server, asked directly over HTTPS with the admin client certificate of
scripts/kube's kubeconfig: GET/PATCH/DELETE and watches, without a kubectl process per look (a
test that follows its pods for minutes would otherwise spawn thousands).

    api = Api.from_kubeconfig(path)
    api.get("/api/v1/namespaces/rl/pods")["items"]
    for kind, obj in api.watch("/api/v1/namespaces/rl/pods", stop): ...
"""
import http.client
import json
import ssl
import urllib.parse

import yaml


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body


class Api:
    def __init__(self, host, port, ca, cert, key):
        self.host, self.port = host, port
        self.ctx = ssl.create_default_context(cafile=ca)
        self.ctx.load_cert_chain(cert, key)

    @classmethod
    def from_kubeconfig(cls, path):
        with open(path) as f:
            conf = yaml.safe_load(f)
        cluster = conf["clusters"][0]["cluster"]
        user = conf["users"][0]["user"]
        url = urllib.parse.urlparse(cluster["server"])
        return cls(url.hostname, url.port or 443, cluster["certificate-authority"],
                   user["client-certificate"], user["client-key"])

    def _conn(self, timeout):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def request(self, method, path, body=None, content_type="application/json", timeout=30):
        conn = self._conn(timeout)
        try:
            data = None if body is None else (body if isinstance(body, (bytes, str)) else json.dumps(body))
            conn.request(method, path, body=data, headers={"Content-Type": content_type, "Accept": "application/json"})
            resp = conn.getresponse()
            text = resp.read().decode("utf-8", "replace")
            if resp.status >= 400:
                raise ApiError(resp.status, text)
            return json.loads(text) if text else None
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def delete(self, path, body=None, missing_ok=True):
        try:
            return self.request("DELETE", path, body=body)
        except ApiError as e:
            if e.status == 404 and missing_ok:
                return None
            raise

    def patch(self, path, patch, kind="json"):
        types = {"json": "application/json-patch+json", "merge": "application/merge-patch+json",
                 "strategic": "application/strategic-merge-patch+json"}
        return self.request("PATCH", path, body=patch, content_type=types[kind])

    def watch(self, path, stop, resource_version=None):
        """(event type, object) for every change under `path` until `stop` is set; a watch the
        server ends (its timeout) is taken up again from the last version seen."""
        version = resource_version
        while not stop.is_set():
            # No allowWatchBookmarks: kube-apiserver 1.35 then wants etcd's RequestWatchProgress,
            # which etcd 3.4 (Debian 12's) lacks, and refuses the watch.
            query = {"watch": "1", "timeoutSeconds": "30"}
            if version:
                query["resourceVersion"] = version
            conn = self._conn(40)
            try:
                conn.request("GET", f"{path}?{urllib.parse.urlencode(query)}")
                resp = conn.getresponse()
                if resp.status == 410:  # too old: list again from now
                    version = None
                    continue
                if resp.status >= 400:
                    raise ApiError(resp.status, resp.read().decode("utf-8", "replace"))
                while not stop.is_set():
                    line = resp.readline()
                    if not line:
                        break
                    event = json.loads(line)
                    obj = event.get("object", {})
                    version = obj.get("metadata", {}).get("resourceVersion", version)
                    if event.get("type") == "ERROR":
                        version = None
                        break
                    yield event["type"], obj
            except (OSError, http.client.HTTPException, json.JSONDecodeError):
                if stop.is_set():
                    return
            finally:
                conn.close()
