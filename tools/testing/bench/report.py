#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and a chart from the bench.jsonl files of a make bench run.

report.py RESULTS_DIR KVER

RESULTS_DIR holds one sub-directory per VM run (deterministic, normal),
each with bench.jsonl.  Writes RESULTS_DIR/table.md and, when matplotlib
is there and SMC_BENCH_NO_CHART is not set, RESULTS_DIR/ratios.png
(ratios to TCP, deterministic run).
Where a run has SMC-R records (paths smcr, tcp-rxe), a second table
compares our SMC-R over soft-RoCE with TCP over the same veth pair, and
with upstream's SMC-R (Debian's smc.ko, path upstream-smcr) when the run
has it.
"""

import json
import os
import sys

PATHS = ['tcp', 'uds', 'smcd', 'sockmap', 'upstream-lo']
NAMES = {'tcp': 'TCP', 'uds': 'Unix', 'smcd': 'our SMC-D',
         'sockmap': 'TCP + sockmap',
         'upstream-lo': 'upstream SMC-lo', 'tcp-rxe': 'TCP (veth)',
         'smcr': 'our SMC-R', 'upstream-smcr': 'upstream SMC-R'}
# the SMC-R part: our SMC-R between two rxe devices, and its comparator
RXE_PATHS = ['tcp-rxe', 'smcr', 'upstream-smcr']
# the path each path's SMC sockets must take (None: no SMC at all)
WANT = {'tcp': None, 'uds': None, 'sockmap': None, 'tcp-rxe': None,
        'smcr': 'smcr', 'upstream-smcr': 'smcr'}

# metric: (label, unit, higher is better, goal ratio to TCP or None)
METRICS = [
    ('stream-1024', 'stream, 1 KiB writes', 'Gbit/s', True, 3.0),
    ('stream-8192', 'stream, 8 KiB writes', 'Gbit/s', True, 1.8),
    ('stream-65536', 'stream, 64 KiB writes', 'Gbit/s', True, 1.6),
    ('pingpong-14', 'ping-pong 14 B, round trip', 'us', False, 0.45),
    ('pingpong-1024', 'ping-pong 1 KiB, round trip', 'us', False, None),
    ('crr', 'connect/request/response/close', 'conn/s', True, 1.2),
    ('redis-get', 'redis-benchmark GET', 'req/s', True, 1.8),
    ('redis-set', 'redis-benchmark SET', 'req/s', True, 1.8),
    ('nginx-wrk', 'wrk against nginx', 'req/s', True, 1.4),
    ('iperf3', 'iperf3, 5 s', 'Gbit/s', True, None),
    ('mem', 'memory per idle connection', 'bytes', False, 3.0),
    ('mem1000', 'memory per 1,000 idle connections', 'MiB', False, None),
]

# The normal mode shows what a sender and a receiver running at once
# make of the bulk rows and of a round trip: judged there, on medians of
# several runs
NORMAL_GOALS = {'stream-65536': 1.3, 'pingpong-14': 0.5, 'iperf3': 1.0}

# metric: (label, unit, higher is better), SMC-R table
RXE_METRICS = [m[:4] for m in METRICS
               if m[0].startswith(('stream', 'pingpong', 'crr', 'mem'))]
RXE_METRICS += [('redis-%s-c%d' % (op, c),
                 'redis-benchmark %s, %d client%s' % (
                     op.upper(), c, '' if c == 1 else 's'),
                 'req/s', True)
                for op in ('get', 'set') for c in (1, 16, 64, 512)]


# what the sockmap column is, and why it differs from SMC-D
SOCKMAP_NOTE = (
    'TCP + sockmap: the same TCP runs in a cgroup where a sock_ops program '
    'puts each established socket into a SOCKHASH and an sk_msg program '
    'redirects every sendmsg() into the peer socket\'s receive queue '
    '(sockmap_redir.c, as Envoy, Merbridge and Cilium deploy it); a run '
    'counts only if every message was redirected.  It skips TCP\'s '
    'segments, but still copies each byte twice (into a message of '
    'fresh pages, then to the reader) and keeps the TCP handshake, the '
    'socket pair and a psock per socket; SMC-D copies once, into the '
    'ring the reader reads from, but pays a DMB per end at connect time '
    '(its client sets up both ends, without CLC messages, when the '
    'server is a socket of this host).')


def first(rec, *names):
    for n in names:
        if n in rec and isinstance(rec[n], (int, float)):
            return float(rec[n])
    return None


def metric_of(rec):
    """(metric key, value, problem) of one record; problem is None if ok"""
    if rec.get('failed'):
        return None, None, 'failed: %s' % rec.get('args', '')
    if 'app' in rec:
        key = rec['app']
        val = first(rec, 'rps', 'gbit_s')
        want = WANT.get(rec['path'], 'smcd')
        modes = rec.get('server_modes', '')
        if rec.get('path_ok') is False:
            return key, val, 'path: %s' % rec.get('path_reason', '?')
        if want and (want not in modes or 'fallback' in modes):
            return key, val, 'path: %s' % (modes or 'no SMC sockets')
        if not val:
            return key, val, 'no result (see its output file)'
        return key, val, None
    mode = rec.get('mode')
    problem = None
    if rec.get('path_ok') is False:
        problem = 'path: %s %s' % (rec.get('path_mode', '?'),
                                   rec.get('path_reason', ''))
    if rec.get('ok') is False:
        problem = 'error: %s' % rec.get('error')
    if rec.get('verified') is False:
        problem = 'hash mismatch'
    if mode == 'stream':
        if 'verified' in rec:
            return 'verify', rec.get('verified'), problem
        return ('stream-%d' % rec.get('size', 0),
                first(rec, 'gbps', 'gbit_s', 'gbits'), problem)
    if mode == 'pingpong':
        return ('pingpong-%d' % rec.get('size', 0),
                first(rec, 'rtt_mean_us', 'mean_us', 'rtt_us'), problem)
    if mode == 'crr':
        return 'crr', first(rec, 'conn_per_s', 'cps', 'rate'), problem
    if mode == 'mem':
        # MemAvailable catches DMBs wherever they come from
        return 'mem', first(rec, 'memavail_bytes_per_conn',
                            'slab_bytes_per_conn'), problem
    return None, None, None


def median(vals):
    v = sorted(vals)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


class Figures(dict):
    """figures by (path, metric); .runs: every run's by the same key"""
    runs = None


def load(run_dir):
    """Figures, medians where a metric ran more than once, and the
    problems as (path, text)"""
    res = Figures()
    runs = {}
    problems = []
    path = os.path.join(run_dir, 'bench.jsonl')
    if not os.path.exists(path):
        return None, [(None, 'no results (%s)' % path)]
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            problems.append((None, 'bad line: %s' % line[:80]))
            continue
        key, val, prob = metric_of(rec)
        p = rec.get('path', '?')
        if prob:
            problems.append((p, '%s %s: %s' % (NAMES.get(p, p), key or '',
                                                prob)))
        if key and val is not None and not prob:
            runs.setdefault((p, key), []).append(val)
    for (p, key), vals in runs.items():
        res[(p, key)] = median(vals)
        if key == 'mem':
            res[(p, 'mem1000')] = res[(p, key)] * 1000 / 2 ** 20
    res.runs = runs
    return res, problems


def fmt(v):
    if v is None:
        return '-'
    if v >= 100:
        return '%.0f' % v
    return '%.3g' % v


def fmt_ratio(r, goal):
    """two decimals, three where two would round onto the goal"""
    if not r:
        return '-'
    if goal and r != goal and '%.2f' % r == '%.2f' % goal:
        return '%.3fx' % r
    return '%.2fx' % r


def spread(res):
    """lines on the metrics that ran more than once: median, range"""
    out = []
    runs = getattr(res, 'runs', None) or {}
    for key, label, unit, higher, goal in METRICS:
        cells = []
        for p in PATHS:
            v = runs.get((p, key), [])
            if len(v) > 1:
                cells.append('%s %s (%s to %s)' % (
                    NAMES[p], fmt(median(v)), fmt(min(v)), fmt(max(v))))
        if cells:
            n = max(len(runs.get((p, key), [])) for p in PATHS)
            out.append('- %s, median of %d runs (range): %s %s' % (
                label, n, '; '.join(cells), unit))
    return out


def table(res, problems, title, goals=None):
    """@goals: metric to goal ratio; default the METRICS' own"""
    out = ['## %s' % title, '']
    head = '| metric | unit |' + ''.join(
        ' %s | ratio |' % NAMES[p] for p in PATHS) + ' goal (SMC-D / TCP) |'
    out += [head, '|' + '---|' * (2 + 2 * len(PATHS) + 1)]
    for key, label, unit, higher, goal in METRICS:
        if goals is not None:
            goal = goals.get(key)
        base = res.get(('tcp', key))
        row = '| %s | %s |' % (label, unit)
        for p in PATHS:
            v = res.get((p, key))
            r = v / base if v is not None and base else None
            row += ' %s | %s |' % (fmt(v), fmt_ratio(r, goal))
        ours = res.get(('smcd', key))
        up = res.get(('upstream-lo', key))
        sm = res.get(('sockmap', key))
        verdict = ''
        if goal and ours is not None and base:
            r = ours / base
            met = r >= goal if higher else r <= goal
            verdict = '%s %s%.2fx' % ('met' if met else 'missed',
                                      '>= ' if higher else '<= ', goal)
        if ours is not None and up is not None:
            better = ours >= up if higher else ours <= up
            verdict += ('; ' if verdict else '') + (
                'ahead of upstream' if better else 'behind upstream')
        if ours is not None and sm is not None:
            better = ours >= sm if higher else ours <= sm
            verdict += ('; ' if verdict else '') + (
                'ahead of sockmap' if better else 'behind sockmap')
        out.append(row + ' %s |' % verdict)
    out.append('')
    out.append('Ratios: the path\'s figure over TCP\'s (round trips and '
               'memory: lower is better).')
    lines = spread(res)
    if lines:
        out += [''] + lines
    if any(p == 'sockmap' for p, _ in res):
        out += ['', SOCKMAP_NOTE]
    problems = [t for p, t in problems if p not in RXE_PATHS]
    if problems:
        out += ['', 'Runs left out (failed, or not on the expected path):']
        out += ['- %s' % p for p in problems]
    out.append('')
    return out


def rxe_table(res, problems):
    """our SMC-R against TCP over the same veth pair; [] without records
    of either (a part that failed as a whole still has its record)"""
    if not any(p in RXE_PATHS for p, _ in list(res) + problems):
        return []
    cols = ['smcr']
    if any(p == 'upstream-smcr' for p, _ in list(res) + problems):
        cols.append('upstream-smcr')
    out = ['### SMC-R over soft-RoCE (rxe) vs TCP over the same veth pair',
           '',
           '| metric | unit | %s | %s |' % (
               NAMES['tcp-rxe'],
               ' | '.join('%s | ratio' % NAMES[c] for c in cols)),
           '|' + '---|' * (3 + 2 * len(cols))]
    for key, label, unit, higher in RXE_METRICS:
        base = res.get(('tcp-rxe', key))
        cells = []
        for c in cols:
            v = res.get((c, key))
            r = v / base if v is not None and base else None
            cells += [fmt(v), fmt_ratio(r, None)]
        out.append('| %s | %s | %s | %s |' % (label, unit, fmt(base),
                                              ' | '.join(cells)))
    out.append('')
    out.append('Both between 198.51.100.1 and 198.51.100.2 on the two ends '
               'of a veth pair, SMC-D negotiation off; ratio: SMC-R\'s '
               'figure over TCP\'s (round trips and memory: lower is '
               'better).')
    if len(cols) > 1:
        out.append('Upstream SMC-R is Debian\'s own smc.ko of the same '
                   'kernel, with a UEID (its SMC-Rv2 needs an EID).')
    problems = [t for p, t in problems if p in RXE_PATHS]
    if problems:
        out += ['', 'Runs left out (failed, or not on the expected path):']
        out += ['- %s' % p for p in problems]
    out.append('')
    return out


def chart(res, png):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    keys = [m for m in METRICS if not m[0].startswith('mem')]
    fig, ax = plt.subplots(figsize=(11, 5))
    width = 0.8 / len(PATHS)
    for i, p in enumerate(PATHS):
        vals = []
        for key, label, unit, higher, goal in keys:
            v, b = res.get((p, key)), res.get(('tcp', key))
            if v is None or not b:
                vals.append(0)
            else:
                # plotted so that higher is always better
                vals.append(v / b if higher else b / v)
        ax.bar([x + i * width for x in range(len(keys))], vals, width,
               label=NAMES[p])
    ax.axhline(1.0, color='black', linewidth=0.8)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(keys))])
    ax.set_xticklabels([k[1] for k in keys], rotation=30, ha='right',
                       fontsize=8)
    ax.set_ylabel('speed relative to TCP (higher is better)')
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    return True


def main():
    out_dir, kver = sys.argv[1], sys.argv[2]
    lines = ['# make bench: %s' % kver, '']
    det = None
    for mode, title in (('deterministic',
                         'Deterministic mode (1 vCPU, one TCG thread, '
                         '-icount): the figures to compare'),
                        ('normal', 'Normal mode (2 vCPUs, multi-threaded TCG): '
                         'the bulk and round-trip goals, on medians')):
        d = os.path.join(out_dir, mode)
        if not os.path.isdir(d):
            continue
        res, problems = load(d)
        if res is None:
            lines += ['## %s' % title, '', problems[0][1], '']
            continue
        if mode == 'deterministic':
            det = res
        lines += table(res, problems, title,
                       NORMAL_GOALS if mode == 'normal' else None)
        lines += rxe_table(res, problems)
    with open(os.path.join(out_dir, 'table.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    if det and not os.environ.get('SMC_BENCH_NO_CHART') and \
            chart(det, os.path.join(out_dir, 'ratios.png')):
        print('chart: %s' % os.path.join(out_dir, 'ratios.png'))
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
