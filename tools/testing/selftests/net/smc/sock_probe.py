#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# What smc_run made of a program's sockets: "DOMAIN/PROTOCOL" of a TCP
# socket of each family and way of asking, of a UDP and a Unix socket
# (which no way converts), then the first one's SO_RCVBUF and SO_SNDBUF,
# on one line.
import socket

SO_DOMAIN, SO_PROTOCOL = 39, 38


def show(s):
    return "%d/%d" % (s.getsockopt(socket.SOL_SOCKET, SO_DOMAIN),
                      s.getsockopt(socket.SOL_SOCKET, SO_PROTOCOL))


t4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
tp = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
print("tcp4", show(t4), "tcp6", show(t6), "tcp", show(tp), "udp", show(u),
      "unix", show(x), "rcvbuf",
      t4.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF), "sndbuf",
      t4.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))
