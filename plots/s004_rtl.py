#!/usr/bin/python3
"""S004 on the AMD Gen3 x8 platform: median FHF and HFH round trips vs packet
size with the synthesizable RTL engine (co-simulated) and its behavioural
twin; markers: measured FHF medians."""
from common import args, need, plt, points, reference, save, size_of

res, out = args()
ref = reference('s004_calypte')
pts = need(points(res, 's004_rtl'), 's004_rtl')
fig, ax = plt.subplots(figsize=(4.2, 2.9))
for ci, mode in enumerate(('fhf', 'hfh')):
    for style, model in (('-', 'behavioural'), ('--', 'rtl')):
        xs = sorted((size_of(p['point']['workloads.0.size']), p['metrics']['rt.%s_p50_us' % mode]) for p in pts
                    if p['point'].get('workloads.0.mode') == mode and p['point'].get('topology.nodes.card.calypte.model') == model)
        ax.plot([s for s, _ in xs], [v for _, v in xs], style, color='C%d' % ci, label='%s, %s' % (mode.upper(), model))
m = sorted((int(k.split('.')[3][:-1]), r['value']) for k, r in ref.items()
           if k.startswith('s004.fhf.amd_gen3x8.') and k.endswith('.p50'))
ax.plot([s for s, _ in m], [v for _, v in m], 'ko', mfc='none', ms=4, label='FHF measured')
ax.set_xlabel('packet size (B)')
ax.set_ylabel('median round trip (us)')
ax.set_title('S004 AMD Gen3 x8: RTL engine vs behavioural', fontsize=9)
ax.legend(fontsize=6)
save(fig, out, 's004_rtl')
