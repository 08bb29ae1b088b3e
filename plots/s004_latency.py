#!/usr/bin/python3
"""S004: round-trip latency distributions (min, P1, P50, P80, P99) vs packet
size per platform; measured as markers, simulated as lines."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s004_calypte')
for mode in ('fhf', 'hfh'):
    study = 's004_' + mode
    pts = need(points(res, study), study)
    plats = []
    for p in pts:
        plat = p['meta']['platform'].replace('s004_', '')
        if plat not in plats:
            plats.append(plat)
    fig, axes = plt.subplots(1, len(plats), figsize=(2.3 * max(2, len(plats)), 2.5), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, plat in zip(axes, plats):
        mine = sorted((size_of(p['point']['workloads.0.size']), p['metrics']) for p in pts if p['meta']['platform'] == 's004_' + plat)
        x = [s for s, _ in mine]
        for i, q in enumerate(('min', 'p1', 'p50', 'p80', 'p99')):
            ax.plot(x, [m['rt.%s_%s_us' % (mode, q)] for _, m in mine], '-', color='C%d' % i, label='hxsim ' + q)
            mx = [s for s in x if 's004.%s.%s.%dB.%s' % (mode, plat, s, q) in ref]
            ax.plot(mx, [ref['s004.%s.%s.%dB.%s' % (mode, plat, s, q)]['value'] for s in mx], 'o', color='C%d' % i,
                    mfc='none', label='measured ' + q)
        ax.set_title(plat.replace('_', ' '))
        ax.set_xlabel('packet size (B)')
    axes[0].set_ylabel('%s round trip (us)' % mode.upper())
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc='lower center', ncol=5, fontsize=6.5, bbox_to_anchor=(0.5, -0.18))
    fig.suptitle('S004 DMA Calypte: %s latency distribution vs packet size' % mode.upper(), y=1.02, fontsize=9)
    save(fig, out, 's004_%s_latency' % mode)
