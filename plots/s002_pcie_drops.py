#!/usr/bin/python3
"""A PCIe NIC (the E810 on S002's Ice Lake host) whose receiving core sleeps
until an interrupt, interrupts moderated to one per 10 or 50 us: median
latency and the share of packets dropped against the offered load of 64 B
packets, with an unlimited RX buffer (flow control) and with 8 KiB of it.
A model prediction: S002 publishes no figure for it."""
from common import args, need, plt, points, save

res, out = args()
pts = need(points(res, 's002_pcie_drops'), 's002_pcie_drops')

def us(v):
    s = str(v)
    return float(s[:-2]) if s.endswith('us') else float(s.rstrip('ns')) / 1000.0

fig, (lat, drop) = plt.subplots(1, 2, figsize=(7.6, 3.0))
curves = sorted({(us(p['point']['topology.nodes.e810.nic.irq_interval']), str(p['point']['topology.nodes.e810.nic.rx_buffer']))
                 for p in pts})
for i, (irq, buf) in enumerate(curves):
    s = sorted((p['point']['workloads.0.load'], p['metrics']['nic.median_ns'] / 1000.0, 100 * p['metrics']['nic.drop_rate'])
               for p in pts if us(p['point']['topology.nodes.e810.nic.irq_interval']) == irq
               and str(p['point']['topology.nodes.e810.nic.rx_buffer']) == buf)
    unlimited = buf in ('0B', '0')
    label = 'interrupt per %g us, %s' % (irq, 'unlimited RX buffer' if unlimited else buf + ' RX buffer')
    style = ('--s' if unlimited else '-o')
    color = 'C%d' % (0 if irq == min(c[0] for c in curves) else 3)
    lat.plot([x[0] for x in s], [x[1] for x in s], color + style, ms=4, label=label)
    drop.plot([x[0] for x in s], [x[2] for x in s], color + style, ms=4, label=label)
lat.set_xlabel('offered load (Mpps, one queue)')
lat.set_ylabel('median latency of packets received (us)')
drop.set_xlabel('offered load (Mpps, one queue)')
drop.set_ylabel('packets dropped (%)')
lat.set_title('S002 E810, receiver asleep: latency (prediction)', fontsize=8)
drop.set_title('and drops', fontsize=8)
lat.legend(fontsize=6)
fig.subplots_adjust(bottom=0.16, wspace=0.3)
save(fig, out, 's002_pcie_drops')
