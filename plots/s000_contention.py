#!/usr/bin/python3
"""S000 experiment 4: a host core and the AU280 read-modify-write random
lines of one shared buffer at once. Left: each side's median and 99th
percentile vs buffer size, alone and together; middle: the distributions
(deciles) together on the 32 KiB and 2 MiB buffers; right: one against
three host cores on the 32 KiB buffer."""
from common import args, need, plt, points, save, size_of

res, out = args()
pts = need(points(res, 's000_contention'), 's000_contention')


def pick(cores, fpga, buffer=None):
    return [p for p in pts if int(p['point'].get('workloads.0.cores', 1)) == cores
            and str(p['point'].get('workloads.0.fpga', True)).lower() == str(fpga).lower()
            and (buffer is None or p['point'].get('workloads.0.buffer') == buffer)]


def metric(p, side, what):
    return p['metrics'].get('share.%s_%s_ns' % (side, what))


fig, (a0, a1, a2) = plt.subplots(1, 3, figsize=(10.5, 2.9))
for side, colour in (('host', 'C3'), ('device', 'C0')):
    alone = pick(1, False) if side == 'host' else pick(0, True)
    both = pick(1, True)
    for sel, style, label in ((alone, '--', 'alone'), (both, '-', 'together')):
        data = sorted((size_of(p['point']['workloads.0.buffer']), metric(p, side, 'median'), metric(p, side, 'p99'))
                      for p in sel if metric(p, side, 'median') is not None)
        if data:
            a0.plot([d[0] for d in data], [d[1] for d in data], colour + style + 'o', ms=3, label='%s %s, median' % (side, label))
            a0.plot([d[0] for d in data], [d[2] for d in data], colour + style + 'x', ms=3, lw=0.7, label='%s %s, p99' % (side, label))
a0.set_xscale('log', base=2)
a0.set_yscale('log')
a0.set_xlabel('shared buffer (B)')
a0.set_ylabel('read-modify-write latency (ns)')
a0.set_title('alone vs together (one host core)')
a0.legend(fontsize=5.5, ncol=2)

deciles = list(range(10, 100, 10))
for buffer, style in (('32KiB', '-'), ('2MiB', '--')):
    for p in pick(1, True, buffer):
        for side, colour in (('host', 'C3'), ('device', 'C0')):
            xs = [metric(p, side, 'p%d' % q) for q in deciles]
            if None not in xs:
                a1.plot(xs, [q / 100 for q in deciles], colour + style, label='%s, %s' % (side, buffer))
a1.set_xscale('log')
a1.set_xlabel('latency (ns)')
a1.set_ylabel('fraction of accesses (deciles)')
a1.set_title('distributions, together')
a1.legend(fontsize=6)

for cores, style in ((1, '-o'), (3, '-s')):
    for p in pick(cores, True, '32KiB'):
        vals = [metric(p, side, 'median') for side in ('host', 'device')]
        p99 = [metric(p, side, 'p99') for side in ('host', 'device')]
        a2.bar([x + (0.2 if cores == 3 else -0.2) for x in (0, 1)], vals, width=0.38, label='%d host core%s, median' % (cores, 's' if cores > 1 else ''))
        a2.plot([x + (0.2 if cores == 3 else -0.2) for x in (0, 1)], p99, 'k' + style[-1], ms=3, label='%d, p99' % cores)
a2.set_xticks([0, 1])
a2.set_xticklabels(['host', 'device'])
a2.set_yscale('log')
a2.set_ylabel('latency (ns)')
a2.set_title('32 KiB: one vs three host cores')
a2.legend(fontsize=6)
fig.subplots_adjust(wspace=0.38)
fig.suptitle('S000: host and AU280 contending for a shared buffer (prediction)', fontsize=9)
save(fig, out, 's000_contention')
