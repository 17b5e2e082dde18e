"""Volumes as the kubelet provides them, as host directories the shim bind-mounts: emptyDir
per pod (medium Memory: a tmpfs of its sizeLimit, mounted on the host so that it outlives
container restarts), one directory per PersistentVolumeClaim shared by the pods, hostPath,
and configMap/secret volumes written from the build's ConfigMaps and the test's Secrets.
Other kinds return None: the kubelet skips them with an event."""
import os

from . import netns
from .containerspec import parse_quantity


def host_dir(cluster, pod, volume):
    name = volume["name"]
    if "emptyDir" in volume:
        path = os.path.join(pod.dir, "volumes", name)
        os.makedirs(path, exist_ok=True)
        if (volume["emptyDir"] or {}).get("medium") == "Memory":
            # A tmpfs, as the kubelet mounts it: on the host, so it outlives container
            # restarts; sized by sizeLimit (what raylaunch's /dev/shm check reads).
            size = volume["emptyDir"].get("sizeLimit")
            opts = "mode=1777" + (f",size={int(parse_quantity(size))}" if size else "")
            netns.run_checked(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", path])
        os.chmod(path, 0o777)  # as the kubelet creates it: any container user may write
    elif "persistentVolumeClaim" in volume:
        path = os.path.join(cluster.dir, "pvc", volume["persistentVolumeClaim"]["claimName"])
    elif "hostPath" in volume:
        return volume["hostPath"]["path"]
    elif "configMap" in volume or "secret" in volume:
        path = os.path.join(pod.dir, "volumes", name)
        store, ref = ((cluster.config_maps, volume["configMap"]["name"]) if "configMap" in volume
                      else (cluster.secrets, volume["secret"]["secretName"]))
        os.makedirs(path, exist_ok=True)
        for key, value in (store.get(ref) or {}).items():
            with open(os.path.join(path, key), "w") as f:
                f.write(value)
        return path
    else:
        return None
    os.makedirs(path, exist_ok=True)
    return path
