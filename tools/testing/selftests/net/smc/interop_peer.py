#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the shell commands the other guest of an interop pair sends.

  interop_peer.py ADDR PORT [--idle SEC] [--first SEC]
      answer requests until one says "exit", or for SEC seconds
      (default 60; before the first request, --first, default 240)
      none came and none ran: a driver that died must not keep the
      peer guest up until the host's timeout

One request per TCP connection, framed so that bash's /dev/tcp can
send it (smcr_interop.sh's peer(): a python started per request costs
seconds on a debug kernel): a line "TIMEOUT LENGTH", then LENGTH bytes
of command, run with bash and killed after TIMEOUT seconds (status
124).  Back: a line with its exit status, then what it wrote (stdout
and stderr), then the connection closes.  A command that leaves a
process running must redirect that process's output, or the answer
waits for it.  This is a test helper for a private link between two
VMs: it runs whatever it is sent, as root.
"""

import socketserver
import subprocess
import sys
import threading
import time


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        with self.server.lock:
            self.server.active += 1
            self.server.served = True
        try:
            self.run()
        finally:
            with self.server.lock:
                self.server.active -= 1
                self.server.last = time.monotonic()

    def run(self):
        try:
            tmo, length = self.rfile.readline().split()
            tmo, length = float(tmo), int(length)
            cmd = self.rfile.read(length).decode()
            if len(cmd.encode()) != length:
                raise ValueError("short request")
        except (ValueError, UnicodeDecodeError):
            self.reply(2, b"interop_peer: bad request\n")
            return
        if cmd == "exit":
            self.reply(0, b"")
            threading.Thread(target=self.server.shutdown).start()
            return
        try:
            p = subprocess.run(["bash", "-c", cmd], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=tmo)
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            rc, out = 124, (e.stdout or b"") + b"interop_peer: timed out\n"
        self.reply(rc, out)

    def reply(self, rc, out):
        self.wfile.write(b"%d\n" % rc + out)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def serve(addr, port, idle, first):
    srv = Server((addr, port), Handler)
    srv.lock = threading.Lock()
    srv.active = 0
    srv.served = False
    srv.last = time.monotonic()

    def watchdog():
        while True:
            time.sleep(5)
            with srv.lock:
                idle_for = 0 if srv.active else time.monotonic() - srv.last
                limit = idle if srv.served else first
            if idle_for > limit:
                print("interop_peer: idle for %ds, ending" % limit,
                      flush=True)
                srv.shutdown()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    print("interop_peer: serving on %s:%d" % (addr, port), flush=True)
    srv.serve_forever()
    return 0


def opt(args, name, default):
    if name in args:
        i = args.index(name)
        val = float(args[i + 1])
        del args[i:i + 2]
        return val
    return default


def main(argv):
    args = argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    addr, port = args[0], int(args[1])
    rest = args[2:]
    idle, first = opt(rest, "--idle", 60), opt(rest, "--first", 240)
    if rest:
        print(__doc__, file=sys.stderr)
        return 2
    return serve(addr, port, idle, first)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
