"""Where an idle listen stream's memory goes: the server under valgrind
massif while N `subscriptions/listen` streams are open, each on its own
HTTP/1.1 connection.

usage: python3 bench/idle_massif.py BIN [N] [OUT]   (N: 500; OUT: massif.out)

BIN is `mcp-everything` (a release build with line tables reads best:
CARGO_PROFILE_RELEASE_DEBUG=line-tables-only). Once the streams are
acknowledged the server gets SIGINT, so massif writes OUT; its peak is
the streams. Read it with `ms_print OUT`, dividing by N. Figures, not a
test.
"""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import idle  # noqa: E402  (the request helpers)


def main(binary, n, out):
    port = idle.free_port()
    limit = str(n + 100)
    server = subprocess.Popen(
        ["valgrind", "--tool=massif", f"--massif-out-file={out}", "--threshold=0.3",
         binary, "http", "--listen", f"127.0.0.1:{port}", "--max-connections", limit,
         "--max-streams", limit, "--max-streams-per-principal", limit],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)

    async def hold():
        writers = await idle.in_batches(lambda i: idle.open_listen(port, i), n)
        await asyncio.sleep(3)
        server.send_signal(signal.SIGINT)
        await asyncio.sleep(0.5)
        for writer in writers:
            writer.close()

    try:
        asyncio.run(hold())
        server.wait(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
    print(f"{out}: {n} streams; ms_print {out}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 500,
         sys.argv[3] if len(sys.argv) > 3 else "massif.out")
