"""Run a command whose only way out is a Unix socket: the CLI clients' sandbox.

Usage: ``python netns_bridge.py SOCKET PORT -- COMMAND...``, started by
``tests/clients/cli_harness.py`` under ``unshare --net``, in a network
namespace of its own whose only interface is loopback (down until this script
brings it up). It listens on ``127.0.0.1:PORT`` inside that namespace and
pipes every connection to the Unix socket ``SOCKET``, where the test's
recording proxy answers; then it runs ``COMMAND`` and exits with its status.
So nothing the command does can reach anything but that proxy: there is no
route, no DNS server and no other address to connect to.

Standard library only: it runs with the suite's Python but imports nothing of
the project.
"""

from __future__ import annotations

import contextlib
import fcntl
import socket
import struct
import subprocess
import sys
import threading

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
IFREQ = "16sH22x"  # struct ifreq: the name, then the flags in its 24-byte union


def loopback_up() -> None:
    """Bring up ``lo``, which a new network namespace starts with down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack(IFREQ, b"lo", 0)
        flags = struct.unpack(IFREQ, fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack(IFREQ, b"lo", flags | IFF_UP))


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until ``source`` ends, then end ``sink``'s side."""
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def bridge(client: socket.socket, path: str) -> None:
    """Pipe one loopback connection to the Unix socket at ``path``, both ways."""
    with client, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as upstream:
        try:
            upstream.connect(path)
        except OSError:
            return
        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join()


def serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=bridge, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    path, port, command = argv[0], int(argv[1]), argv[3:]
    loopback_up()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=serve, args=(listener, path), daemon=True).start()
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
