#!/usr/bin/python3
"""S002 CC-NIC's shared buffer pools against a buffer per descriptor slot
as the rings grow: the peak rate of a 1500 B loop-back on one queue (Ice
Lake), with the platform's L2 per core and with unlimited private caches,
the platform's LLC behind them.
A model prediction: S002 publishes no figure for it."""
from common import args, need, plt, points, save

res, out = args()
pts = need(points(res, 's002_nic_footprint'), 's002_nic_footprint')

fig, ax = plt.subplots(1, 1, figsize=(4.6, 3.0))
STYLE = {('slots', True): ('C7', '-o', 'a buffer per slot, L2 1.25 MiB'), ('pools', True): ('C0', '-o', 'shared pools, L2 1.25 MiB'),
         ('slots', False): ('C7', '--s', 'a buffer per slot, unlimited caches'), ('pools', False): ('C0', '--s', 'shared pools, unlimited caches')}
for (buffers, finite), (color, style, label) in STYLE.items():
    s = sorted((int(p['point']['workloads.0.ring']), p['metrics']['nic.Mpps']) for p in pts
               if p['point'].get('workloads.0.buffers', 'slots') == buffers and
               (str(p['point'].get('topology.nodes.host.sockets.l2_size', '0B')) not in ('0B', '0')) == finite)
    if s:
        ax.plot([x[0] for x in s], [x[1] for x in s], color + style, ms=4, label=label)
ax.set_xscale('log', base=2)
ax.set_xlabel('ring (lines of four descriptors)')
ax.set_ylabel('peak rate, 1500 B (Mpps, one queue)')
ax.set_title('S002 CC-NIC: buffers vs the L2, 36 MiB LLC (model prediction)', fontsize=8)
ax.legend(fontsize=6)
fig.subplots_adjust(bottom=0.16)
save(fig, out, 's002_footprint')
