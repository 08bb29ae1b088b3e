#!/usr/bin/python3
"""S000 experiment 6: lock latency on both sides of a lock table shared by
host cores and the AU280, as contention rises (fewer buckets), with one
and with three host cores beside the FPGA; each side alone for reference.
One row per lock: the queue joined by compare-and-swap, and the ticket
lock (where the study has it)."""
from common import args, need, plt, points, save

res, out = args()
pts = need(points(res, 's000_locks'), 's000_locks')


def series(lock, cores, fpga, side, what):
    data = sorted((int(p['point']['workloads.0.buckets']), p['metrics'].get('locks.%s_%s_ns' % (side, what))) for p in pts
                  if p['point'].get('workloads.0.lock', 'queue') == lock
                  and int(p['point'].get('workloads.0.cores', 1)) == cores
                  and str(p['point'].get('workloads.0.fpga', True)).lower() == str(fpga).lower())
    return [d for d in data if d[1] is not None]


locks = [k for k in ('queue', 'ticket') if any(p['point'].get('workloads.0.lock', 'queue') == k for p in pts)]
fig, grid = plt.subplots(len(locks), 2, figsize=(8, 2.9 * len(locks)), sharey=True, squeeze=False)
fig.subplots_adjust(hspace=0.5)
for (ax, what), lock in [((ax, what), lock) for lock, row in zip(locks, grid) for ax, what in zip(row, ('median', 'p99'))]:
    for cores, fpga, side, style, label in ((1, True, 'host', 'C3-o', 'host, 1 core + FPGA'),
                                            (3, True, 'host', 'C3--s', 'host, 3 cores + FPGA'),
                                            (1, False, 'host', 'C3:', 'host alone (1 core)'),
                                            (1, True, 'device', 'C0-o', 'FPGA, with 1 core'),
                                            (3, True, 'device', 'C0--s', 'FPGA, with 3 cores'),
                                            (0, True, 'device', 'C0:', 'FPGA alone')):
        data = series(lock, cores, fpga, side, what)
        if data:
            ax.plot([b for b, _ in data], [v for _, v in data], style, ms=3, label=label)
    ax.set_xscale('log', base=2)
    ax.invert_xaxis()
    ax.set_yscale('log')
    ax.set_xlabel('buckets (fewer: more contention)')
    ax.set_title('%s lock, latency %s' % (lock, what))
for lock, row in zip(locks, grid):
    row[0].set_ylabel('first %s to owning the lock (ns)' % ('CAS' if lock == 'queue' else 'ticket'))
grid[0][1].legend(fontsize=6)
fig.suptitle('S000: a lock table shared by host cores and the AU280 (prediction)', fontsize=9)
save(fig, out, 's000_locks')
