"""Kubernetes resource quantities ("180", "500m", "1800Gi", "5120Mi", "1e3") as exact numbers.

The suffixes of k8s.io/apimachinery/pkg/api/resource (quantity.go): binary Ki Mi Gi Ti Pi Ei,
decimal m k M G T P E, or an exponent (e3, E3). Anything else is None, which the schema check
or the API server reports; the rules then skip the value.
"""
import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"m": Fraction(1, 1000), "": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
            "P": 10**15, "E": 10**18}
_QUANTITY = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E))?")
MI = 2**20
GI = 2**30


def parse(value):
    """The quantity as a Fraction (bytes, cores, devices), or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Fraction(value)
    match = _QUANTITY.fullmatch(str(value).strip())
    if not match:
        return None
    number, exponent, suffix = match.groups()
    amount = Fraction(number)
    if exponent:
        return amount * Fraction(10) ** int(exponent[1:])
    return amount * (_BINARY.get(suffix) or _DECIMAL[suffix or ""])


def show(amount, unit):
    """An amount for a message: bytes as Gi or Mi, anything else as a plain number."""
    if unit == "bytes":
        if amount >= GI:
            return f"{float(amount / GI):.4g}Gi"
        return f"{float(amount / MI):.6g}Mi"
    return f"{float(amount):.6g}"
