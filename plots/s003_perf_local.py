#!/usr/bin/python3
"""S003: Coyote perf_local (host -> FPGA -> host) throughput and mean latency
vs transfer size, buffers in 1 GiB huge pages on the near node and in 2 MiB
huge pages on the far node. Lines: hxsim; markers: measured."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s003_coyote')
pts = need(points(res, 's003_perf_local'), 's003_perf_local')
fig, (a1, a2) = plt.subplots(1, 2, figsize=(7.5, 2.8))
fig.subplots_adjust(wspace=0.35)
for ci, (run, page, node, label) in enumerate((('hugepage_1GiB', '1GiB', 'near', '1 GiB pages, near node'),
                                               ('hugepage_2MiB_far_numa', '2MiB', 'far', '2 MiB pages, far node'))):
    for ax, mode, metric in ((a1, 'thr', 'perf.throughput_MiBps'), (a2, 'lat', 'perf.latency_us')):
        mine = sorted((size_of(p['point']['workloads.0.size']), p['metrics'][metric]) for p in pts
                      if p['point'].get('workloads.0.node', 'near') == node and p['point'].get('workloads.0.mode') == mode)
        ax.plot([s for s, _ in mine], [v for _, v in mine], '-', color='C%d' % ci, label='hxsim, ' + label)
        m = sorted((r['conditions']['size'], r['value']) for k, r in ref.items() if k.startswith('s003.%s.%s.' % (run, mode)))
        ax.plot([size_of(s) for s, _ in m], [v for _, v in m], 'o', color='C%d' % ci, mfc='none', ms=3.5, label='measured, ' + label)
for ax, yl, title in ((a1, 'throughput (MiB/s)', 'S003 perf_local throughput'), (a2, 'mean latency (us)', 'S003 perf_local latency')):
    ax.set_xscale('log', base=2)
    ax.set_xlabel('transfer size (B)')
    ax.set_ylabel(yl)
    ax.set_title(title)
    ax.legend(fontsize=6)
a2.set_yscale('log')
save(fig, out, 's003_perf_local')
