"""What one node of each GPU training instance type can give a pod, for the rule `capacity`.

Per type: vCPUs, memory (GiB), GPUs and EFA interfaces as AWS lists them (EC2 accelerated
computing instance specifications; EFA counts as in ../shared/reference/fabric-and-node-checks.md
section 4.3: p4d/p4de 4, p5/p5e 32, p5en 16, p6-b200 8).

What a pod can request is less than that. The bounds below are the most any node of the type
can offer, so a request above them fits no node and the pod stays Pending (Karpenter launches
nothing for it); a request just below may still not fit once DaemonSets take their share.
- CPU: the vCPUs minus the kubelet's reserved CPU, 6 % of the first core, 1 % of the second,
  0.5 % of the next two and 0.25 % of the rest (the formula of the EKS AMIs and of Karpenter,
  karpenter-provider-aws pkg/providers/instancetype/types.go kubeReservedResources).
- Memory: Karpenter's model of the instance, memory x (1 - VM_MEMORY_OVERHEAD_PERCENT 0.075)
  (karpenter-provider-aws pkg/operator/options/options.go), minus the kubelet's smallest
  reservation, 255Mi + 11Mi per pod (here: none), and the hard eviction threshold, 100Mi.
- hugepages-2Mi: EKS AMIs with the EFA driver preallocate 5128 pages of 2 MiB at boot
  (EKS user guide, node-efa.adoc: "pre-allocate 5128 2MiB Huge Pages"), 10256Mi; a NodeOverlay
  may declare them to Karpenter, never more.
"""
from fractions import Fraction

from .quantity import GI, MI

GPU = "nvidia.com/gpu"
EFA = "vpc.amazonaws.com/efa"
HUGEPAGES_2MI = "hugepages-2Mi"
EFA_AMI_HUGEPAGES = 5128 * 2 * MI  # bytes
VM_MEMORY_OVERHEAD = Fraction(75, 1000)
MEMORY_RESERVED = (255 + 100) * MI  # kube-reserved base + eviction threshold

# instance type: (vCPUs, memory GiB, GPUs, EFA interfaces)
INSTANCE_TYPES = {
    "p4d.24xlarge": (96, 1152, 8, 4),
    "p4de.24xlarge": (96, 1152, 8, 4),
    "p5.48xlarge": (192, 2048, 8, 32),
    "p5e.48xlarge": (192, 2048, 8, 32),
    "p5en.48xlarge": (192, 2048, 8, 16),
    "p6-b200.48xlarge": (192, 2048, 8, 8),
}
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")


def reserved_cpu(vcpus):
    """The kubelet's reserved CPU in cores for a node with `vcpus` (Karpenter's and EKS's formula)."""
    milli = vcpus * 1000
    reserved = Fraction(0)
    for start, end, share in ((0, 1000, Fraction(6, 100)), (1000, 2000, Fraction(1, 100)),
                              (2000, 4000, Fraction(5, 1000)), (4000, 1 << 31, Fraction(25, 10000))):
        if milli > start:
            reserved += (min(milli, end) - start) * share
    return reserved / 1000


def allocatable(instance_type):
    """The most a pod on one node of the type can request: resource name -> (amount, unit)."""
    vcpus, memory_gib, gpus, efa = INSTANCE_TYPES[instance_type]
    return {
        "cpu": (vcpus - reserved_cpu(vcpus), "cores"),
        "memory": (memory_gib * GI * (1 - VM_MEMORY_OVERHEAD) - MEMORY_RESERVED, "bytes"),
        GPU: (Fraction(gpus), "devices"),
        EFA: (Fraction(efa), "devices"),
        HUGEPAGES_2MI: (Fraction(EFA_AMI_HUGEPAGES), "bytes"),
    }
