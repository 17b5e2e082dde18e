#!/usr/bin/python3
"""The Python side of benchmark 1: the same RPC as `raylaunch probe liveness` on a head (an empty
CheckAlive to the GCS), with Debian's python3-grpcio, the way a Python exec probe would do it.
No generated stubs: the empty request is b"" and the reply's GcsStatus.code (field 1, field 1)
is read by hand. Exit 0 healthy, 1 not."""
import sys

import grpc


def status_code(reply: bytes) -> int:
    # CheckAliveReply: field 1 (GcsStatus, length-delimited, tag 0x0a) holds field 1 (code, varint,
    # tag 0x08). An absent status means code 0.
    if not reply.startswith(b"\x0a"):
        return 0
    inner = reply[2 : 2 + reply[1]]
    if not inner.startswith(b"\x08"):
        return 0
    value, shift = 0, 0
    for b in inner[1:]:
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            break
    return value


def main() -> int:
    target = sys.argv[1]
    options = [("grpc.enable_http_proxy", 0), ("grpc.max_receive_message_length", 512 * 1024 * 1024)]
    with grpc.insecure_channel(target, options=options) as channel:
        check_alive = channel.unary_unary("/ray.rpc.NodeInfoGcsService/CheckAlive")
        try:
            reply = check_alive(b"", timeout=1.0)
        except grpc.RpcError as e:
            print(f"unhealthy: {e.code().name}", file=sys.stderr)
            return 1
    return 0 if status_code(reply) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
