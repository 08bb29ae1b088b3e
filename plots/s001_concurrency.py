#!/usr/bin/python3
"""S001 experiment 3: per-device and aggregate speed vs number of FPGAs
transferring at once (writes and reads); the shared x8 Gen2 host link."""
from common import args, need, plt, points, reference, save

res, out = args()
ref = reference('s001_rosta')
fig, axes = plt.subplots(1, 2, figsize=(7, 2.6), sharey=True)
for ax, study, op, key, mref in ((axes[0], 's001_concurrent_write', 'write', 'wr', 's001.wr_ram.hw.p128'),
                                  (axes[1], 's001_concurrent_read', 'read', 'rd', 's001.rd_ram.hw')):
    pts = need(points(res, study), study)
    n = [int(p['point']['workloads.0.count']) for p in pts]
    per = [p['metrics']['%s.%s_hw_MiB_per_s_per_device' % (key, op)] for p in pts]
    agg = [p['metrics']['%s.%s_hw_MiB_per_s_aggregate' % (key, op)] for p in pts]
    ax.plot(n, agg, 'C0-o', ms=3, label='hxsim, aggregate')
    ax.plot(n, per, 'C1-s', ms=3, label='hxsim, per device')
    ax.plot([1], [ref[mref]['value']], 'kX', ms=8, label='measured, one device')
    # The x8 Gen2 host link's capacity for 128 B writes (16 B header, 8 B framing).
    ax.axhline(4e9 * 128 / 152 / 2**20, color='gray', ls=':', label='x8 Gen2 link, 128 B TLPs')
    ax.set_xlabel('FPGAs transferring at once')
    ax.set_title('S001: concurrent %ss of 4 MiB' % op)
    ax.set_xticks(range(1, 9))
axes[0].set_ylabel('speed (MiB/s)')
axes[0].legend(loc='center right')
save(fig, out, 's001_concurrency')
