#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run shell commands on the other guest of an interop pair.

  interop_peer.py serve ADDR PORT [--idle SEC] [--first SEC]
      answer requests until one says "exit", or for SEC seconds
      (default 60; before the first request, --first, default 240)
      none came and none ran: a driver that died must not keep the
      peer guest up until the host's timeout
  interop_peer.py call ADDR PORT [--wait SEC] [--timeout SEC] CMD
      run CMD with bash on the serving guest; print what it wrote
      (stdout and stderr), exit with its status.  Wait up to --wait
      seconds (default 0) for the server to answer at all; CMD is
      killed after --timeout seconds (default 120, status 124).
      Status 254: the server could not be reached at all.
  interop_peer.py call ADDR PORT exit
      end the server

One request per TCP connection: a JSON line {"cmd", "timeout"} in, a
JSON line {"rc", "out"} back.  A command that leaves a process running
must redirect that process's output, or the answer waits for it.
This is a test helper for a private link between two VMs: it runs
whatever it is sent, as root.
"""

import json
import socket
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
            req = json.loads(self.rfile.readline())
            cmd, tmo = req["cmd"], float(req.get("timeout", 120))
        except (ValueError, KeyError, TypeError):
            self.reply(2, "interop_peer: bad request\n")
            return
        if cmd == "exit":
            self.reply(0, "")
            threading.Thread(target=self.server.shutdown).start()
            return
        try:
            p = subprocess.run(["bash", "-c", cmd], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=tmo)
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            rc, out = 124, (e.stdout or b"") + b"interop_peer: timed out\n"
        self.reply(rc, out.decode(errors="replace"))

    def reply(self, rc, out):
        self.wfile.write(json.dumps({"rc": rc, "out": out}).encode() + b"\n")


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


def call(addr, port, wait, tmo, cmd):
    end = time.monotonic() + wait
    while True:
        try:
            s = socket.create_connection((addr, port), timeout=5)
            break
        except OSError as e:
            if time.monotonic() >= end:
                print("interop_peer: %s:%d: %s" % (addr, port, e),
                      file=sys.stderr)
                return 254
            time.sleep(1)
    s.settimeout(tmo + 30)
    with s, s.makefile("rwb") as f:
        f.write(json.dumps({"cmd": cmd, "timeout": tmo}).encode() + b"\n")
        f.flush()
        try:
            ans = json.loads(f.readline())
        except (ValueError, OSError) as e:
            print("interop_peer: no answer: %s" % e, file=sys.stderr)
            return 255
    sys.stdout.write(ans["out"])
    return ans["rc"]


def opt(args, name, default):
    if name in args:
        i = args.index(name)
        val = float(args[i + 1])
        del args[i:i + 2]
        return val
    return default


def main(argv):
    args = argv[1:]
    if len(args) < 3 or args[0] not in ("serve", "call"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, addr, port = args[0], args[1], int(args[2])
    rest = args[3:]
    if mode == "serve":
        return serve(addr, port, opt(rest, "--idle", 60),
                     opt(rest, "--first", 240))
    wait = opt(rest, "--wait", 0)
    tmo = opt(rest, "--timeout", 120)
    if len(rest) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    return call(addr, port, wait, tmo, rest[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
