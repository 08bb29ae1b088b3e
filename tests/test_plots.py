#!/usr/bin/python3
"""Every figure script runs on a small results fixture and writes a
non-empty PNG (and PDF), and the gallery links them."""
import json, os, shutil, subprocess, sys, tempfile, unittest

HXSIM = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else 'hxsim'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = {
    's001_write_vs_payload': ['workloads.0.bytes=64KiB'],
    's001_concurrent_write': ['workloads.0.bytes=64KiB', 'sweep=[{path: workloads.0.count, values: [1, 2]}]'],
    's001_concurrent_read': ['workloads.0.bytes=64KiB', 'sweep=[{path: workloads.0.count, values: [1, 2]}]'],
    's001_p2p_concurrent': ['workloads.0.bytes=64KiB'],
    's001_p2p': ['workloads.0.bytes=64KiB'],
    's001_p2p_mps256': ['workloads.0.bytes=64KiB'],
    's004_fhf': ['workloads.0.reps=50', 'sweep=[{path: workloads.0.size, values: [64B, 1500B]}]'],
    's004_hfh': ['workloads.0.reps=50', 'sweep=[{path: workloads.0.size, values: [64B, 1500B]}]'],
    's011_lat_rd': ['workloads.0.reps=50', 'sweep=[{path: workloads.0.size, values: [64B, 2048B]}]'],
    's011_lat_wrrd': ['workloads.0.reps=50', 'sweep=[{path: workloads.0.size, values: [64B, 2048B]}]'],
    's011_bw_rd': ['workloads.0.transactions=500', 'sweep=[{path: workloads.0.size, values: [64B, 2048B]}]'],
    's011_bw_wr': ['workloads.0.transactions=500', 'sweep=[{path: workloads.0.size, values: [64B, 2048B]}]'],
    's011_window_bw': ['workloads.0.transactions=500', 'sweep=[{path: workloads.0.window, values: [4KiB, 1MiB]}]'],
    's011_window_lat': ['workloads.0.reps=50', 'sweep=[{path: workloads.0.window, values: [8KiB, 1MiB]}]'],
    's003_perf_local': ['workloads.0.reps=5', 'sweep=[{zip: [{path: workloads.0.page_size, values: [1GiB, 2MiB]}, '
                        '{path: workloads.0.node, values: [near, far]}]}, {path: workloads.0.mode, values: [lat, thr]}, '
                        '{path: workloads.0.size, values: [64B, 64KiB]}]'],
    's004_rtl': ['workloads.0.reps=20', 'sweep=[{path: topology.nodes.card.calypte.model, values: [behavioural, rtl]}, '
                 '{path: workloads.0.mode, values: [fhf, hfh]}, {path: workloads.0.size, values: [64B, 1500B]}]'],
    's000_ats': ['workloads.0.reps=20', 'sweep=[{path: workloads.0.pattern, values: [fresh, warm]}, '
                 '{path: workloads.0.size, values: [64B, 32KiB]}]'],
    's000_ccix_latency': ['workloads.0.reps=20', 'sweep=[{path: workloads.0.path, values: [ccix, dma]}, '
                          '{path: workloads.0.op, values: [rd, wr]}, {path: workloads.0.size, values: [64B, 4KiB]}]'],
    's000_hits': ['workloads.0.reps=20', 'sweep=[{path: topology, values: [../topologies/s000_n1sdp_au280.yaml, '
                  '../topologies/s000_n1sdp_vck5000.yaml]}, {path: workloads.0.pattern, values: [hit, warm]}, '
                  '{path: workloads.0.op, values: [rd, wr]}, {path: workloads.0.size, values: [64B, 1KiB]}]'],
    's000_allocate': ['workloads.0.reps=20', 'sweep.2.values=[64B, 4KiB]'],
    's000_streaming': ['workloads.0.reps=40', 'sweep.3.values=[256B, 4KiB]'],
    's000_contention': ['workloads.0.accesses=100', 'sweep.0.values=[32KiB, 2MiB]'],
    's000_locks': ['workloads.0.locks=20', 'sweep.1.values=[64, 1]'],
    's011_hosts_lat': ['workloads.0.reps=20', 'sweep.2.values=[64B, 1024B]'],
    's011_hosts_bw': ['workloads.0.transactions=500', 'sweep.2.values=[64B, 1024B]'],
    's011_iommu_bw': ['workloads.0.transactions=500', 'sweep=[{path: topology, values: [../topologies/s011_hsw_e5_2620v3.yaml]}, '
                      '{zip: [{path: topology.nodes.host.iommu.enabled, values: [true]}, {path: topology.nodes.host.iommu.superpages, '
                      'values: [false]}]}, {path: workloads.0.op, values: [rd, wr]}, {path: workloads.0.window, values: [4KiB, 1MiB]}]'],
    's011_iommu_lat': ['workloads.0.reps=50', 'sweep=[{path: topology, values: [../topologies/s011_hsw_e5_2620v3.yaml]}, '
                       '{zip: [{path: topology.nodes.host.iommu.enabled, values: [true]}, {path: topology.nodes.host.iommu.superpages, '
                       'values: [false]}]}, {path: workloads.0.op, values: [rd, wrrd]}, {path: workloads.0.window, values: [8KiB, 1MiB]}]'],
    's002_latency': ['workloads.0.reps=10'],
    's002_socket_graph': ['workloads.0.reps=10'],
    's002_nic_far': ['sweep.2.zip.2.values=[50, 300]', 'sweep.2.zip.3.values=[5, 20]'],
    's002_socket_bw': ['workloads.0.lines=64'],
    's002_nic_latency': ['workloads.0.packets=50', 'workloads.0.warmup=5'],
    's002_nic_load': ['workloads.0.packets=300', 'workloads.0.warmup=20', 'sweep.1.values=[1, 8]'],
    's002_nic_peak': ['workloads.0.packets=300', 'workloads.0.warmup=20', 'sweep.2.values=[64B]', 'sweep.4.values=[1]'],
    's002_nic_footprint': ['workloads.0.packets=1500', 'workloads.0.warmup=100', 'sweep.1.values=[64, 256]'],
    's002_pcie_latency': ['workloads.0.packets=50', 'workloads.0.warmup=5', 'sweep.1.values=[64B]', 'sweep.2.values=[poll]'],
    's002_pcie_load': ['workloads.0.packets=300', 'workloads.0.warmup=20', 'sweep.1.values=[1, 8]'],
    's002_pcie_peak': ['workloads.0.packets=300', 'workloads.0.warmup=20', 'sweep.1.values=[64B]', 'sweep.2.values=[1]',
                       'sweep.3.values=[32]'],
    's002_pcie_drops': ['workloads.0.packets=2000', 'workloads.0.warmup=100', 'sweep.1.values=[50us]', 'sweep.2.values=[4, 12]'],
}


class Plots(unittest.TestCase):
    def test_every_figure(self):
        d = tempfile.mkdtemp()
        try:
            for study, sets in SMALL.items():
                args = [HXSIM, 'run', os.path.join(ROOT, 'configs', study + '.yaml'), '-o', os.path.join(d, study), '-q', '-j', '2']
                for s in sets:
                    args += ['--set', s]
                subprocess.run(args, check=True, timeout=300)
            report = os.path.join(d, 'report.json')
            with open(report, 'w') as f:
                json.dump({'cases': [{'case': 'a', 'error_pct': 1.0, 'tolerance_pct': 5, 'status': 'pass'},
                                     {'case': 'b', 'error_pct': -9.0, 'tolerance_pct': 5, 'status': 'FAIL'}],
                           'summary': {'passed': 1, 'failed': 1, 'known_gaps': 0}}, f)
            out = os.path.join(d, 'plots')
            subprocess.run([sys.executable, os.path.join(ROOT, 'plots', 'make_all.py'), d, out, report], check=True, timeout=300)
            names = ['s001_write_vs_payload', 's001_concurrency', 's001_p2p_cases', 's004_fhf_latency',
                     's004_hfh_latency', 's011_vs_size', 's011_vs_window', 's011_iommu', 's011_hosts', 's000_ats', 's000_ccix_latency', 's000_hits', 's000_allocate', 's000_streaming', 's000_contention', 's000_locks', 's003_perf_local', 's004_rtl', 's002_latency', 's002_socket_graph', 's002_nic', 's002_footprint', 's002_pcie_drops',
                     'validation_overview']
            with open(os.path.join(out, 'index.html')) as f:
                index = f.read()
            for n in names:
                for ext in ('png', 'pdf'):
                    p = os.path.join(out, n + '.' + ext)
                    self.assertTrue(os.path.exists(p) and os.path.getsize(p) > 1000, p)
                with open(os.path.join(out, n + '.png'), 'rb') as f:
                    self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')
                self.assertIn(n + '.png', index)
        finally:
            shutil.rmtree(d)


if __name__ == '__main__':
    unittest.main(verbosity=2)
