#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Raw generic netlink requests to SMC_GEN_NETLINK, malformed on purpose:
#
#   smc_nl_raw.py CMD FLAGS [ATTR_TYPE:HEXPAYLOAD ...] [+ CMD FLAGS ...]
#
# FLAGS: "dump" or "do".  For each request ("+" between them), in turn,
# prints the errno name the kernel answered with ("OK" for 0) and the
# number of data messages before it.  Several in one run: a python
# start costs seconds on a debug kernel.

import errno
import os
import socket
import struct
import sys

USAGE = "usage: smc_nl_raw.py CMD dump|do [TYPE:HEX ...] [+ CMD ...]"
NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3


def attr(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    pad = b"\0" * ((4 - len(payload) % 4) % 4)
    return hdr + payload + pad


def request(sock, seq, ntype, flags, cmd, attrs=b""):
    body = struct.pack("=BBH", cmd, 1, 0) + attrs
    msg = struct.pack("=IHHII", 16 + len(body), ntype, flags, seq, 0) + body
    sock.send(msg)
    msgs = 0
    while True:
        data = sock.recv(65536)
        off = 0
        while off + 16 <= len(data):
            length, mtype, _, _, _ = struct.unpack_from("=IHHII", data, off)
            if mtype == NLMSG_ERROR:
                err = struct.unpack_from("=i", data, off + 16)[0]
                return err, msgs, data[off:off + length]
            if mtype == NLMSG_DONE:
                # a dump that failed on the way says so here
                err = 0
                if length >= 20:
                    err = struct.unpack_from("=i", data, off + 16)[0]
                return err, msgs, b""
            msgs += 1
            off += (length + 3) & ~3


def family_id(sock):
    body = attr(CTRL_ATTR_FAMILY_NAME, b"SMC_GEN_NETLINK\0")
    msg = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) + body
    sock.send(struct.pack("=IHHII", 16 + len(msg), GENL_ID_CTRL,
                          NLM_F_REQUEST, 1, 0) + msg)
    data = sock.recv(65536)
    off = 20
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if atype == CTRL_ATTR_FAMILY_ID:
            return struct.unpack_from("=H", data, off + 4)[0]
        off += (alen + 3) & ~3
    sys.exit("no SMC_GEN_NETLINK family")


def requests(args):
    """CMD FLAGS [ATTR...] groups of args, split at "+" (empty ones
    skipped: a "+" may end the list)."""
    req = []
    for a in args + ["+"]:
        if a != "+":
            req.append(a)
            continue
        if not req:
            continue
        if len(req) < 2 or req[1] not in ("dump", "do"):
            sys.exit(USAGE)
        yield req
        req = []


def main():
    reqs = list(requests(sys.argv[1:]))
    if not reqs:
        sys.exit(USAGE)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    fam = family_id(sock)
    for seq, req in enumerate(reqs, 2):
        attrs = b""
        for a in req[2:]:
            atype, payload = a.split(":", 1)
            attrs += attr(int(atype, 0), bytes.fromhex(payload))
        flags = NLM_F_REQUEST | NLM_F_ACK
        if req[1] == "dump":
            flags |= NLM_F_DUMP
        err, msgs, _ = request(sock, seq, fam, flags, int(req[0], 0), attrs)
        # errno.errorcode names 95 ENOTSUP; netlink's word is EOPNOTSUPP
        name = "EOPNOTSUPP" if -err == errno.EOPNOTSUPP else \
            errno.errorcode.get(-err, str(err))
        print("OK" if err == 0 else name, msgs)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
