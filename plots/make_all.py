#!/usr/bin/python3
"""Regenerate every figure from a results directory and write an index.html
gallery beside them. Usage: make_all.py RESULTS_DIR OUT_DIR [REPORT.json]"""
import html
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES = [
    ('s001_write_vs_payload', 's001_write_vs_payload.py', 'S001 write speed vs payload: theory, hardware timer, application'),
    ('s001_concurrency', 's001_concurrency.py', 'S001 per-device and aggregate speed vs concurrent FPGAs'),
    ('s001_p2p_cases', 's001_p2p_cases.py', 'S001 FPGA-to-FPGA speeds per case'),
    ('s004_fhf_latency', 's004_latency.py', 'S004 FHF latency distribution vs packet size per platform'),
    ('s004_hfh_latency', None, 'S004 HFH latency distribution vs packet size per platform'),
    ('s004_rtl', 's004_rtl.py', 'S004 AMD Gen3 x8: the RTL engine co-simulated vs its behavioural twin'),
    ('s011_vs_size', 's011_vs_size.py', 'S011 latency and bandwidth vs transfer size'),
    ('s011_vs_window', 's011_vs_window.py', 'S011 read bandwidth and latency vs window size (IOMMU off)'),
    ('s003_perf_local', 's003_perf_local.py', 'S003 Coyote perf_local throughput and latency: 1 GiB pages near, 2 MiB pages far'),
    ('s000_ats', 's000_ats.py', 'S000 read latency with an ATC miss and hit vs size (CCIX path)'),
    ('s000_ccix_latency', 's000_ccix_latency.py', 'S000 CCIX vs PCIe DMA latency vs size, reads and writes, with and without ESM, AU280 and VCK5000'),
    ('s000_hits', 's000_hits.py', 'S000 device-cache hits vs misses to the host, reads and writes, AU280 and VCK5000'),
    ('s000_allocate', 's000_allocate.py', 'S000 CCIX transfers that keep no copy in the device cache (ReadOnce, WriteUnique) vs allocating ones (prediction)'),
    ('s000_streaming', 's000_streaming.py', 'S000 streaming through fresh lines into an unlimited or a 64 KiB device cache, allocating or keeping no copy (prediction)'),
    ('s000_locks', 's000_locks.py', 'S000 lock table shared by host cores and the AU280: lock latency as contention rises (prediction)'),
    ('s000_contention', 's000_contention.py', 'S000 host core and AU280 contending for a shared buffer: latency alone and together, distributions, one vs three cores'),
    ('s011_iommu', 's011_iommu.py', 'S011 bandwidth and latency vs window: IOMMU off, superpages, 4 KiB pages'),
    ('s011_hosts', 's011_hosts.py', 'S011 every pcie-bench host: latency and bandwidth vs transfer size'),
    ('s002_latency', 's002_latency.py', 'S002 64 B read latency by cache state and homing, Ice Lake and Sapphire Rapids'),
    ('s002_nic', 's002_nic.py', 'S002 NICs on the socket interconnect and on PCIe: minimum latency, latency vs load, peak rate, CC-NIC ablations (predictions)'),
    ('s002_socket_graph', 's002_socket_graph.py', 'Four sockets with the parameters of S002\'s Sapphire Rapids, fully joined or in a ring: 64 B read latency by the socket that holds the line, CC-NIC with its engines one or two links from the host, and read bandwidth across the sockets (predictions)'),
    ('s002_footprint', 's002_footprint.py', "S002 CC-NIC's shared buffer pools vs a buffer per slot as the rings outgrow the L2 (prediction)"),
    ('s002_pcie_drops', 's002_pcie_drops.py', 'A PCIe NIC with interrupt moderation: latency and drops vs load, with and without a limit on its RX buffer (prediction)'),
]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    res, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    failed = 0
    for _, script, _ in FIGURES:
        if script and subprocess.run([sys.executable, os.path.join(HERE, script), res, out]).returncode:
            failed += 1
    figs = list(FIGURES)
    if len(sys.argv) == 4:
        if subprocess.run([sys.executable, os.path.join(HERE, 'validation_overview.py'), sys.argv[3], out]).returncode:
            failed += 1
        figs.append(('validation_overview', None, 'Validation overview: error per checked figure'))
    with open(os.path.join(out, 'index.html'), 'w') as f:
        f.write('<!doctype html><meta charset="utf-8"><title>hxsim figures</title>\n'
                '<style>body{font-family:serif;max-width:1100px;margin:auto}figure{margin:2em 0}'
                'img{max-width:100%;border:1px solid #ddd}</style>\n<h1>hxsim: simulated vs measured</h1>\n')
        for name, _, caption in figs:
            if os.path.exists(os.path.join(out, name + '.png')):
                f.write('<figure><a href="%s.pdf"><img src="%s.png" alt="%s"></a><figcaption>%s</figcaption></figure>\n'
                        % (name, name, html.escape(caption), html.escape(caption)))
    print('wrote', os.path.join(out, 'index.html'))
    sys.exit(1 if failed else 0)


main()
