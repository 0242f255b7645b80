#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The PNET ID table over its generic netlink family, SMC_PNETID.

Run by pnet.sh, which builds the rxe test bed and passes its names in
the environment (SMCR_NETA, SMCR_NETB, SMCR_RXEA, SMCR_RXEB).  Prints
KTAP.  With --netns-part it runs the checks meant for another network
namespace and prints one JSON line instead.

Other tests use it as a small command:
  smc_pnetid.py --add PNETID --eth IFNAME
  smc_pnetid.py --add PNETID --ib DEVICE --port N
  smc_pnetid.py --flush
exiting 0 on success, 1 with the error on stderr.
"""

import errno
import json
import os
import socket
import struct
import subprocess
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_MAXATTR = 5
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 1, 2, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3

# include/uapi/linux/smc.h
NAME, ETHNAME, IBNAME, IBPORT = 1, 2, 3, 4
GET, ADD, DEL, FLUSH = 1, 2, 3, 4

DEVS = '/sys/kernel/debug/smc/rdma-devices'
LO = '/sys/kernel/debug/smc/loopback-ism'


def nla(typ, payload):
    n = 4 + len(payload)
    return struct.pack('HH', n, typ) + payload + b'\0' * ((4 - n % 4) % 4)


def nla_str(typ, s):
    return nla(typ, s.encode() + b'\0')


def parse_attrs(buf):
    attrs = {}
    while len(buf) >= 4:
        n, typ = struct.unpack_from('HH', buf)
        if n < 4:
            break
        attrs[typ & 0x3fff] = buf[4:n]
        buf = buf[(n + 3) & ~3:]
    return attrs


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.sock.settimeout(10)
        self.seq = 0
        self.batches = 0

    def request(self, family, cmd, attrs=b'', flags=NLM_F_ACK):
        """(error, [(cmd, attrs)]): error 0 or a positive errno"""
        self.seq += 1
        body = struct.pack('BBH', cmd, 1, 0) + attrs
        hdr = struct.pack('IHHII', 16 + len(body), family,
                          NLM_F_REQUEST | flags, self.seq, 0)
        self.sock.send(hdr + body)
        msgs = []
        self.batches = 0
        while True:
            data = self.sock.recv(65536)
            self.batches += 1
            while len(data) >= 16:
                n, typ, fl, seq, _ = struct.unpack_from('IHHII', data)
                payload = data[16:n]
                data = data[(n + 3) & ~3:]
                if seq != self.seq:
                    continue
                if typ == NLMSG_ERROR:
                    return -struct.unpack_from('i', payload)[0], msgs
                if typ == NLMSG_DONE:
                    return 0, msgs
                msgs.append((payload[0], parse_attrs(payload[4:]), fl))
                if not fl & NLM_F_MULTI:
                    return 0, msgs

    def family(self, name):
        err, msgs = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                 nla_str(CTRL_ATTR_FAMILY_NAME, name), 0)
        if err:
            return None
        a = msgs[0][1]
        return {'id': struct.unpack('H', a[CTRL_ATTR_FAMILY_ID])[0],
                'version': struct.unpack('I', a[CTRL_ATTR_VERSION])[0],
                'maxattr': struct.unpack('I', a[CTRL_ATTR_MAXATTR])[0]}


def s(v):
    return v.split(b'\0')[0].decode()


class Pnet:
    def __init__(self):
        self.nl = Genl()
        self.fam = self.nl.family('SMC_PNETID')

    def add(self, name=None, eth=None, ib=None, port=None):
        a = b''
        if name is not None:
            a += nla_str(NAME, name)
        if eth is not None:
            a += nla_str(ETHNAME, eth)
        if ib is not None:
            a += nla_str(IBNAME, ib)
        if port is not None:
            a += nla(IBPORT, struct.pack('B', port))
        return self.nl.request(self.fam['id'], ADD, a)[0]

    def delete(self, name=None):
        a = nla_str(NAME, name) if name is not None else b''
        return self.nl.request(self.fam['id'], DEL, a)[0]

    def flush(self):
        return self.nl.request(self.fam['id'], FLUSH)[0]

    @staticmethod
    def rows(msgs):
        out = []
        for cmd, a, fl in msgs:
            row = (s(a.get(NAME, b'?')), s(a.get(ETHNAME, b'?')),
                   s(a.get(IBNAME, b'?')),
                   a[IBPORT][0] if IBPORT in a else None)
            out.append((cmd, fl & NLM_F_MULTI != 0, row))
        return out

    def dump(self):
        err, msgs = self.nl.request(self.fam['id'], GET, b'', NLM_F_DUMP)
        return err, [r for _, _, r in self.rows(msgs)]

    def get(self, name=None):
        a = nla_str(NAME, name) if name is not None else b''
        err, msgs = self.nl.request(self.fam['id'], GET, a, 0)
        return err, self.rows(msgs)


def dev_line(dev):
    for line in open(DEVS):
        if line.startswith(dev + ' '):
            return line.strip()
    return ''


def lo_pnetid():
    if not os.path.exists(LO):
        return None
    for line in open(LO):
        if line.startswith('pnetid '):
            return line.split()[1]
    return ''


class Ktap:
    def __init__(self, plan):
        self.n = self.fails = self.skips = 0
        print('TAP version 13')
        print('1..%d' % plan)
        sys.stdout.flush()

    def result(self, name, problems):
        self.n += 1
        for p in problems:
            print('# %s' % p)
        print('%sok %d %s' % ('not ' if problems else '', self.n, name))
        sys.stdout.flush()
        self.fails += bool(problems)

    def skip(self, name, why):
        self.n += 1
        self.skips += 1
        print('ok %d %s # SKIP %s' % (self.n, name, why))


def want(problems, what, got, expect):
    if got != expect:
        problems.append('%s: got %r, want %r' % (what, got, expect))


def netns_part(rxe):
    """in another netns: only interface entries, a table of its own"""
    p = Pnet()
    r = {'eth': p.add('ns1', eth='nsveth0'),
         'ib_only': p.add('NS2', ib=rxe, port=1)}
    r['dump'] = p.dump()
    print(json.dumps(r))


def command(argv):
    """the --add / --flush command mode; the exit status"""
    p = Pnet()
    if argv[0] == '--flush':
        err = p.flush()
    else:
        opts = dict(zip(argv[2::2], argv[3::2]))
        port = opts.get('--port')
        err = p.add(argv[1], eth=opts.get('--eth'), ib=opts.get('--ib'),
                    port=int(port) if port else None)
    if err:
        print('smc_pnetid: %s: %s' % (' '.join(argv), os.strerror(err)),
              file=sys.stderr)
        return 1
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ('--add', '--flush'):
        return command(sys.argv[1:])
    env = os.environ
    neta, netb = env['SMCR_NETA'], env['SMCR_NETB']
    rxea, rxeb = env['SMCR_RXEA'], env['SMCR_RXEB']
    if len(sys.argv) > 1 and sys.argv[1] == '--netns-part':
        netns_part(rxea)
        return 0

    k = Ktap(13)
    p = Pnet()
    pr = []
    if not p.fam:
        k.result('family SMC_PNETID', ['family SMC_PNETID not found'])
        return 1
    want(pr, 'version', p.fam['version'], 1)
    want(pr, 'maxattr', p.fam['maxattr'], 4)
    k.result('family SMC_PNETID, version 1, 4 attributes', pr)
    p.flush()

    pr = []
    want(pr, 'add', p.add(' net1 ', eth=neta), 0)
    want(pr, 'dump', p.dump(), (0, [('NET1', neta, 'n/a', 255)]))
    k.result('interface entry: name trimmed and upper-cased, all '
             'attributes in the dump', pr)

    pr = []
    want(pr, 'dash', p.add('a-b', eth=netb), errno.EINVAL)
    want(pr, 'empty', p.add('', eth=netb), errno.EINVAL)
    want(pr, 'blank', p.add('   ', eth=netb), errno.EINVAL)
    want(pr, '17 chars', p.add('A' * 17, eth=netb), errno.EINVAL)
    want(pr, 'no name', p.add(None, eth=netb), errno.EINVAL)
    want(pr, 'empty interface', p.add('NET2', eth=''), errno.EINVAL)
    want(pr, 'empty device', p.add('NET2', ib='  '), errno.EINVAL)
    want(pr, 'same interface', p.add('NET2', eth=neta), errno.EEXIST)
    want(pr, 'nothing to add', p.add('NET2'), errno.EEXIST)
    want(pr, 'table', p.dump(), (0, [('NET1', neta, 'n/a', 255)]))
    k.result('bad names refused, a second entry for an interface exists',
             pr)

    pr = []
    want(pr, 'add', p.add('net1', ib=' %s ' % rxea), 0)
    if 'pnet 1:NET1' not in dev_line(rxea):
        pr.append('%s: %s' % (rxea, dev_line(rxea)))
    if 'pnet' in dev_line(rxeb):
        pr.append('%s: %s' % (rxeb, dev_line(rxeb)))
    want(pr, 'dump', p.dump()[1][-1], ('NET1', 'n/a', rxea, 1))
    k.result('device entry (port 1 by default) gives the port its PNET ID',
             pr)

    pr = []
    want(pr, 'port 3', p.add('NET3', ib=rxeb, port=3), errno.EINVAL)
    want(pr, 'port 0', p.add('NET3', ib=rxeb, port=0), errno.EINVAL)
    want(pr, 'same device', p.add('NET3', ib=rxea, port=1), errno.EEXIST)
    want(pr, 'port 2', p.add('NET3', ib=rxeb, port=2), 0)
    if 'pnet' in dev_line(rxeb):
        pr.append('a port rxe does not have: %s' % dev_line(rxeb))
    k.result('device entry rules: ports 1..2, one entry per device', pr)

    # a device that comes after its entry takes its PNET ID then
    pr = []
    subprocess.run(['rdma', 'link', 'delete', rxea], check=False)
    want(pr, 'gone', dev_line(rxea), '')
    subprocess.run(['rdma', 'link', 'add', rxea, 'type', 'rxe', 'netdev',
                    neta], check=False)
    if 'pnet 1:NET1' not in dev_line(rxea):
        pr.append('re-added %s: %r' % (rxea, dev_line(rxea)))
    k.result('a device registered after its entry takes the PNET ID', pr)

    pr = []
    if lo_pnetid() is None:
        k.skip('SMC-D device entry', 'no loopback-ism')
    else:
        want(pr, 'add', p.add('lo1', ib='loopback-ism'), 0)
        want(pr, 'loopback-ism', lo_pnetid(), 'LO1')
        k.result('SMC-D device entry (loopback-ism)', pr)

    pr = []
    err, rows = p.get('NET1')
    want(pr, 'get NET1', (err, sorted(r for _, _, r in rows)),
         (0, sorted([('NET1', neta, 'n/a', 255),
                     ('NET1', 'n/a', rxea, 1)])))
    if not all(cmd == GET and multi for cmd, multi, _ in rows):
        pr.append('reply messages: %r' % rows)
    want(pr, 'get unknown', p.get('NOPE'), (0, []))
    want(pr, 'get without name', p.get()[0], errno.EINVAL)
    k.result('GET of one name: its entries, then DONE', pr)

    pr = []
    want(pr, 'lower case', p.delete('net1'), errno.ENOENT)
    want(pr, 'no name', p.delete(), errno.EINVAL)
    want(pr, 'delete', p.delete('NET1'), 0)
    want(pr, 'again', p.delete('NET1'), errno.ENOENT)
    if 'pnet' in dev_line(rxea):
        pr.append('%s keeps it: %s' % (rxea, dev_line(rxea)))
    left = sorted(r[0] for r in p.dump()[1])
    want(pr, 'left', left, ['LO1', 'NET3'] if lo_pnetid() is not None
         else ['NET3'])
    k.result('DEL removes every entry of a name and the device PNET IDs', pr)

    # without CAP_NET_ADMIN: changes refused, reading allowed
    pr = []
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
        q = Pnet()
        res = [q.add('USER', eth='nouser0'), q.flush(), q.delete('NET3'),
               q.dump()[0]]
        os.write(w, json.dumps(res).encode())
        os._exit(0)
    os.close(w)
    res = json.loads(os.read(r, 4096) or b'null')
    os.waitpid(pid, 0)
    want(pr, 'add, flush, del, dump as nobody', res,
         [errno.EPERM, errno.EPERM, errno.EPERM, 0])
    k.result('unprivileged: ADD, DEL, FLUSH refused, GET allowed', pr)

    pr = []
    ns = 'smcpnet%d' % os.getpid()
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        out = subprocess.run(['ip', 'netns', 'exec', ns, sys.executable,
                              sys.argv[0], '--netns-part'],
                             capture_output=True, text=True, timeout=60)
        try:
            got = json.loads(out.stdout)
        except ValueError:
            got = {'error': out.stdout + out.stderr}
        want(pr, 'in the netns', got,
             {'eth': 0, 'ib_only': errno.EEXIST,
              'dump': [0, [['NS1', 'nsveth0', 'n/a', 255]]]})
    finally:
        subprocess.run(['ip', 'netns', 'del', ns], check=False)
    if any(r[0].startswith('NS') for r in p.dump()[1]):
        pr.append('init_net sees the other namespace: %r' % (p.dump(),))
    k.result('another namespace: its own table, interface entries only', pr)

    # a dump larger than one message resumes where it stopped
    pr = []
    names = ['E%d' % i for i in range(300)]
    errs = [p.add(n, eth='d%d' % i) for i, n in enumerate(names)]
    if any(errs):
        pr.append('adds: %r' % sorted(set(errs)))
    err, rows = p.dump()
    got = sorted(r[0] for r in rows if r[0].startswith('E'))
    want(pr, 'dump error', err, 0)
    want(pr, 'entries, each once', got, sorted(names))
    if p.nl.batches < 2:
        pr.append('dump fit in %d message batch(es)' % p.nl.batches)
    k.result('dump of 300 entries spans messages, nothing lost or '
             'repeated', pr)

    pr = []
    p.add('NET4', ib=rxeb, port=1)
    want(pr, 'flush', p.flush(), 0)
    want(pr, 'empty', p.dump(), (0, []))
    want(pr, 'flush empty', p.flush(), 0)
    for d in (rxea, rxeb):
        if 'pnet' in dev_line(d):
            pr.append('%s keeps it: %s' % (d, dev_line(d)))
    if lo_pnetid() not in (None, '-'):
        pr.append('loopback-ism keeps %s' % lo_pnetid())
    k.result('FLUSH empties the table and clears the devices', pr)

    print('# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0'
          % (k.n - k.fails - k.skips, k.fails, k.skips))
    return 1 if k.fails else 0


if __name__ == '__main__':
    sys.exit(main())
