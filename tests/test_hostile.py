#!/usr/bin/python3
"""Hostile input and interrupted runs, through the command line: every class
of input that once gave a wrong number, a hang, a destructive write or an
internal error (docs/testing.md lists them). Bad input exits 2 with one
located line and writes nothing; reruns after edits, failures and kills give
what a clean run into a fresh directory gives."""
import json, os, pty, random, shutil, signal, stat, subprocess, sys, tempfile, threading, time, unittest

HXSIM = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else 'hxsim'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPO = os.path.join(ROOT, 'topologies', 's001_rosta.yaml')


def run(*args, cwd=None, timeout=300):
    p = subprocess.run([HXSIM, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def results(d):
    """The points of results.json without their meta (wall-clock and build facts)."""
    with open(os.path.join(d, 'results.json')) as f:
        r = json.load(f)
    for p in r['points']:
        p.pop('meta', None)
    return r


class Workdir(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        shutil.copy(TOPO, self.d)

    def tearDown(self):
        shutil.rmtree(self.d, ignore_errors=True)

    def write(self, name, text, mode='w'):
        p = os.path.join(self.d, name)
        with open(p, mode) as f:
            f.write(text)
        return p

    @staticmethod
    def one_workload(platform, workload):
        """A study of one workload (flow-style YAML) on topologies/PLATFORM.yaml."""
        return 'study: t\ntopology: %s\nworkloads: [%s]\n' % (os.path.join(ROOT, 'topologies', platform + '.yaml'), workload)

    def expect_bad(self, study_text, needle, *extra, regex=None, topo=None, binary=False):
        """Exit 2, one error line containing `needle` (and matching `regex`), nothing written."""
        if topo is not None:
            self.write('s001_rosta.yaml', topo)
        p = self.write('study.yaml', study_text, 'wb' if binary else 'w')
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', p, '-o', out, '-q', *extra, timeout=60)
        self.assertEqual(rc, 2, err)
        self.assertIn(needle, err)
        if regex:
            self.assertRegex(err, regex)
        self.assertEqual(err.count('\n'), 1, 'one clear error line: ' + err)
        self.assertFalse(os.path.exists(out), 'a bad input left output behind')
        return err


with open(TOPO) as _f:
    TOPO_TEXT = _f.read()

GOOD = ('study: t\ntopology: s001_rosta.yaml\n'
        'workloads: [{type: rosta_peer, pairs: [[fpga0, fpga1]], bytes: 64KiB}]\n')


class YamlStrictness(Workdir):
    def test_duplicate_keys_name_both_places(self):
        self.expect_bad(GOOD + 'seed: 1\nseed: 2\n', "key 'seed' is given twice in this map (first at line 4, column 1)",
                        regex=r'study\.yaml:5:1: ')

    def test_leading_zero_is_decimal(self):
        # reps: 010 is ten echoes, not eight.
        study = self.write('study.yaml', 'study: t\ntopology: s001_rosta.yaml\n'
                           'workloads: [{type: rosta_echo, name: e, from: fpga0, to: fpga1, bytes: 64B, reps: 010}]\n')
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', study, '-o', out, '-q')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(out, 'points', '0.json')) as f:
            stats = json.load(f)['stats']
        self.assertEqual(stats['fpga1.rx_tlps']['value'], 10)

    def test_empty_value_is_not_the_default(self):
        self.expect_bad(GOOD, 'workloads.0.bytes: a value is required', '--set', 'workloads.0.bytes=',
                        regex=r'^error: --set workloads\.0\.bytes: ')
        self.expect_bad(GOOD.replace('bytes: 64KiB', 'bytes: ') + 'seed:\n', 'a value is required')

    def test_second_document(self):
        self.expect_bad(GOOD + '---\nseed: 3\n', 'a second YAML document', regex=r'study\.yaml:4:1: ')

    def test_merge_keys(self):
        self.expect_bad(GOOD + 'x: &d {seed: 1}\n<<: *d\n', "YAML merge keys ('<<') are not supported",
                        regex=r'study\.yaml:5:1: ')

    def test_invalid_utf8_in_a_name(self):
        text = GOOD.replace('study: t', 'study: "t\xff"').encode('latin-1')
        self.expect_bad(text, 'invalid UTF-8 (byte 0xFF)', regex=r'study\.yaml:1:10: ', binary=True)

    def test_alias_bomb_is_refused_at_once(self):
        s = 'a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n'
        for i in range(1, 9):
            c, p = chr(ord('a') + i), chr(ord('a') + i - 1)
            s += '%s: &%s [%s]\n' % (c, c, ', '.join(['*' + p] * 9))
        t0 = time.monotonic()
        self.expect_bad(GOOD + s, 'once its aliases are expanded')
        self.assertLess(time.monotonic() - t0, 10)


class NoHang(Workdir):
    def topo_with(self, old, new):
        with open(TOPO) as f:
            text = f.read()
        self.assertIn(old, text)
        return text.replace(old, new)

    def test_os_tick_costing_its_period(self):
        self.expect_bad(GOOD, 'os_tick_cost (5ms) must be shorter than os_tick_period (4ms)',
                        '--set', 'topology.nodes.host.cpu.os_tick_cost=5ms', regex=r'--set topology\.nodes\.host\.cpu')

    def test_clock_rates_that_round_to_nothing(self):
        for clock in ('1e7MHz', '1e-300MHz'):
            self.expect_bad(GOOD, 'outside 1kHz to 100GHz', '--set', 'topology.nodes.fpga0.rosta.clock=' + clock)

    def test_bandwidth_near_zero(self):
        self.expect_bad(GOOD, 'outside 1KB/s to 1000000GB/s', '--set',
                        'topology.nodes.host.memory.channel_bw=1e-300GB/s')
        self.expect_bad(GOOD, 'outside 1KB/s to 1000000GB/s', '--set', 'topology.nodes.host.memory.channel_bw=1e-9GB/s')


class InternalErrors(Workdir):
    def test_port_name_with_a_huge_number(self):
        with open(TOPO) as f:
            topo = f.read()
        topo = topo.replace('  swB: {type: switch}', '  swB: {type: switch, port_mps: {down99999999999999999999999: 128B}}')
        self.expect_bad(GOOD, "no port 'down99999999999999999999999'", topo=topo)

    def test_set_path_through_a_value(self):
        self.expect_bad(GOOD + 'seed: 4\n', "'seed' is a value, not a section", '--set', 'seed.x=1',
                        regex=r'^error: --set seed\.x: ')
        # A section the override creates is located at the override.
        self.expect_bad(GOOD, 'expected a single value', '--set', 'seed.x=1', regex=r'^error: --set seed\.x: seed: ')


class FoundBeforeTheRun(Workdir):
    """What models would find only at run time (or at elaboration, after the
    output directory exists) is refused with its place before anything runs."""

    def test_tlb_ways_that_do_not_divide_the_entries(self):
        self.expect_bad(GOOD, '64 entries do not divide into 5 ways', '--set', 'topology.nodes.host.iommu.iotlb_ways=5',
                        regex=r'^error: --set topology\.nodes\.host\.iommu\.iotlb_ways: ')

    def test_credits_below_one_maximum_tlp(self):
        self.expect_bad(GOOD, 'p_data 4 credits (64 B) on VC0 cannot hold one 128 B TLP (MPS 128 needs 8)', '--set', 'topology.nodes.swB.port.p_data=4')

    def test_a_vc_the_route_does_not_enable(self):
        self.expect_bad(GOOD.replace('bytes: 64KiB', 'bytes: 64KiB, vc: 1'), 'VC1 is not enabled on link swB - fpga0',
                        regex=r'study\.yaml:3:\d+: workloads\.0\.pairs\.0: fpga0 -> fpga1: ')

    # S000's CCIX agent: its path must carry VC1 and packets within MPS.
    CCIX = ('study: t\ntopology: %s\n'
            'workloads: [{type: ccix_lat, device: au280, op: rd, pattern: hit, reps: 5}]\n'
            % os.path.join(ROOT, 'topologies', 's000_n1sdp_au280.yaml'))

    def test_ccix_on_a_path_without_vc1(self):
        self.expect_bad(self.CCIX, 'CCIX travels on VC1: node au280 on the path of CCIX request agent au280 needs port: {vcs: 2}',
                        '--set', 'topology.nodes.au280.port.vcs=1', regex=r's000_n1sdp_au280\.yaml:\d+:\d+: nodes\.au280\.port: ')

    def test_ccix_packets_above_mps(self):
        self.expect_bad(self.CCIX, 'a CCIX packet of 512 B exceeds the MPS of 256 B programmed at au280',
                        '--set', 'topology.nodes.au280.ccix_ra.max_packet=512B')

    def test_an_atomic_on_the_dma_path(self):
        self.expect_bad(self.CCIX.replace('op: rd, pattern: hit', 'op: cas, path: dma'), 'cas applies to the ccix path',
                        regex=r'study\.yaml:3:\d+: workloads\.0\.op: ')

    def test_a_non_allocating_atomic_or_dma_transfer(self):
        # allocate: false is the system cache's choice: an atomic or the DMA engine has none to make.
        self.expect_bad(self.CCIX.replace('op: rd, pattern: hit', 'op: cas, allocate: false'), 'allocate applies to reads and writes on the ccix path',
                        regex=r'study\.yaml:3:\d+: workloads\.0\.allocate: ')
        self.expect_bad(self.CCIX.replace('op: rd, pattern: hit', 'op: wr, path: dma, allocate: false'), 'allocate applies to reads and writes on the ccix path',
                        regex=r'study\.yaml:3:\d+: workloads\.0\.allocate: ')

    def test_host_core_latency_without_host_cores(self):
        study = self.one_workload('s000_n1sdp_au280', "{type: home_lat, op: cas, line: same, reps: 5}")
        self.expect_bad(study, 'home_lat needs host cores at the CCIX home', '--set', 'topology.nodes.host.ccix.cores=0',
                        regex=r'study\.yaml:3:\d+: workloads\.0\.type: ')

    def test_more_sharing_cores_than_the_home_has(self):
        study = self.one_workload('s000_n1sdp_au280', "{type: ccix_share, device: au280, cores: 5, accesses: 5}")
        self.expect_bad(study, '5 host cores, but the CCIX home has 4', regex=r'study\.yaml:3:\d+: workloads\.0\.cores: ')

    def test_a_lock_table_polled_with_no_interval(self):
        study = self.one_workload('s000_n1sdp_au280', "{type: ccix_locks, device: au280, retry: 0ns, locks: 5}")
        self.expect_bad(study, 'a retry interval above zero', regex=r'study\.yaml:3:\d+: workloads\.0\.retry: ')

    def test_a_ticket_lock_given_patience(self):
        study = self.one_workload('s000_n1sdp_au280', "{type: ccix_locks, lock: ticket, patience: 1us, locks: 5}")
        self.expect_bad(study, 'patience applies to lock: queue', regex=r'study\.yaml:3:\d+: workloads\.0\.patience: ')

    def test_a_ccix_workload_with_no_request_agent_to_take(self):
        study = self.one_workload('s011_hsw_e5_2620v3', "{type: ccix_lat, op: rd, reps: 5}")
        self.expect_bad(study, 'the topology has no endpoint with a ccix_ra device', regex=r'study\.yaml:3:\d+: workloads\.0: ')

    def test_ccix_agent_on_virtual_addresses_without_ats(self):
        self.expect_bad(self.CCIX, "translates through the device's ATS switch: set bench.ats: true",
                        '--set', 'topology.nodes.au280.bench.ats=false')

    def test_a_far_socket_on_a_one_socket_host(self):
        study = ('study: t\ntopology: %s\n'
                 'workloads: [{type: bench_lat, device: nfp, op: rd, reps: 5, host_node: far}]\n'
                 % os.path.join(ROOT, 'topologies', 's011_hsw_e3_1226v3.yaml'))
        self.expect_bad(study, 'the far socket needs a root complex on socket 1', regex=r'study\.yaml:3:\d+: workloads\.0\.host_node: ')

    def test_a_ddio_share_above_the_llc_ways(self):
        study = self.one_workload('s011_bdw_e5_2630v4', '{type: bench_lat, device: nfp, op: wrrd, reps: 5}')
        self.expect_bad(study, 'ddio_ways (21) above llc_ways (20)', '--set', 'topology.nodes.host.memory.ddio_ways=21',
                        regex=r'^error: --set topology\.nodes\.host\.memory\.ddio_ways: ')

    def test_two_throughput_tests_on_one_engine(self):
        # They once replaced each other's command feed and ended in a deadlock.
        study = self.one_workload('s011_bdw_e5_2630v4', '{name: a, type: bench_bw, device: nfp, op: rd, transactions: 50}, '
                                  '{name: b, type: bench_bw, device: nfp, op: wr, transactions: 50}')
        self.expect_bad(study, "'nfp' is already driven by workload 'a'", regex=r'study\.yaml:3:\d+: workloads\.1: ')

    def test_untimed_transactions_where_they_mean_nothing(self):
        bw = self.one_workload('s011_bdw_e5_2630v4', '{type: bench_bw, device: nfp, op: wr, transactions: 5, untimed: 10}')
        self.expect_bad(bw, 'untimed applies to bench_lat', regex=r'study\.yaml:3:\d+: workloads\.0\.untimed: ')
        fresh = self.one_workload('s011_bdw_e5_2630v4', '{type: bench_lat, device: nfp, op: wrrd, reps: 5, pattern: fresh, untimed: 10}')
        self.expect_bad(fresh, 'no untimed transactions with it', regex=r'study\.yaml:3:\d+: workloads\.0\.untimed: ')

    TWO_SOCKETS = ('platform: two\nnodes:\n'
                   '  cpu0: {type: root_complex}\n'
                   '  cpu1: {type: root_complex, rc: {dram_base: 128GiB}}\n'
                   '  dev0: {type: endpoint, device: rosta}\n'
                   '  dev1: {type: endpoint, device: rosta}\n'
                   'links: [{up: cpu0, down: dev0}, {up: cpu1, down: dev1}]\n')

    def test_two_sockets_that_cannot_be(self):
        study = GOOD.replace('fpga0, fpga1', 'dev0, dev1')
        topo = self.TWO_SOCKETS
        self.expect_bad(study, "overlaps socket 0's", topo=topo.replace('128GiB', '32GiB'),
                        regex=r's001_rosta\.yaml:4:\d+: nodes\.cpu1\.rc\.dram_base: ')
        self.expect_bad(study, 'are both on socket 0', topo=topo.replace('root_complex', 'root_complex, socket: 0'),
                        regex=r's001_rosta\.yaml:4:\d+: nodes\.cpu1\.socket: ')
        self.expect_bad(study, 'a third root complex', topo=topo.replace('  dev0:', '  cpu2: {type: root_complex, rc: {dram_base: 256GiB}}\n  dev0:'),
                        regex=r's001_rosta\.yaml:5:\d+: nodes\.cpu2: ')
        # The two-node memory model is gone; its keys say what replaced it.
        for key in ('numa_nodes: 2', 'far_latency: 100ns', 'far_snoop: 80ns', 'far_bw: 10GB/s'):
            self.expect_bad(study, 'the far NUMA node is a root complex of its own now',
                            topo=topo.replace('{type: root_complex}', '{type: root_complex, memory: {%s}}' % key),
                            regex=r's001_rosta\.yaml:3:\d+: nodes\.cpu0\.memory\.%s: ' % key.split(':')[0])
        self.expect_bad(study, 'a socket link joins the root complexes of two sockets',
                        topo=TOPO_TEXT + 'socket_link: {latency: 50ns}\n', regex=r's001_rosta\.yaml:\d+:\d+: socket_link: ')
        # Three sockets: every link names its two sockets, once, and every
        # socket is reached from socket 0.
        three = topo.replace('  dev0:', '  cpu2: {type: root_complex, rc: {dram_base: 256GiB}}\n  dev0:')
        self.expect_bad(study, 'no socket link reaches socket(s) 2 from socket 0',
                        topo=three + 'socket_links: [{sockets: [0, 1]}]\n', regex=r's001_rosta\.yaml:\d+:\d+: socket_links: ')
        self.expect_bad(study, 'sockets 1 and 0 are already joined',
                        topo=three + 'socket_links: [{sockets: [0, 1]}, {sockets: [1, 0]}, {sockets: [1, 2]}]\n',
                        regex=r's001_rosta\.yaml:\d+:\d+: socket_links\.1\.sockets: ')
        self.expect_bad(study, 'the sockets with a root complex are 0 to 2', topo=three + 'socket_links: [{sockets: [0, 3]}]\n',
                        regex=r's001_rosta\.yaml:\d+:\d+: socket_links\.0\.sockets\.1: ')
        self.expect_bad(study, 'both given', topo=three + 'socket_link: {}\nsocket_links: [{sockets: [0, 1]}, {sockets: [1, 2]}]\n',
                        regex=r's001_rosta\.yaml:\d+:\d+: socket_links: ')
        self.expect_bad(study, 'with 3 root complexes the sockets are 0 to 2',
                        topo=three.replace('cpu2: {type: root_complex,', 'cpu2: {type: root_complex, socket: 3,') +
                        'socket_links: [{sockets: [0, 1]}, {sockets: [1, 2]}]\n', regex=r's001_rosta\.yaml:5:\d+: nodes\.cpu2\.socket: ')
        # A buffer on a socket the host does not have, or on no node at all.
        on = self.one_workload('s011_bdw_e5_2630v4', '{type: bench_lat, device: nfp, op: rd, reps: 5, node: 2}')
        self.expect_bad(on, 'socket 2: the host has 2 sockets with a root complex', regex=r'study\.yaml:3:\d+: workloads\.0\.node: ')
        self.expect_bad(on.replace('node: 2', 'node: middle'), "'middle' is not a node: near, far or a socket's number",
                        regex=r'study\.yaml:3:\d+: workloads\.0\.node: ')
        # Peers below different sockets: no route between them.
        self.expect_bad(study, 'peer-to-peer across the socket link is not modelled', topo=topo)

    @staticmethod
    def icx_coh_lat(source='l2', holder='remote'):
        """A study of five 64 B reads on S002's Ice Lake sockets."""
        return ('study: t\ntopology: %s\nworkloads: [{type: coh_lat, op: rd, from: %s, holder: %s, reps: 5}]\n'
                % (os.path.join(ROOT, 'topologies', 's002_icx.yaml'), source, holder))

    def test_a_private_cache_not_a_whole_number_of_sets(self):
        self.expect_bad(self.icx_coh_lat(), "the private cache's size must be a multiple of its ways times 64 B (20 ways: 1280 B)",
                        '--set', 'topology.nodes.host.sockets.l2_size=1MiB',
                        regex=r'--set topology\.nodes\.host\.sockets\.l2_size: ')

    def test_an_l1_larger_than_its_l2(self):
        self.expect_bad(self.icx_coh_lat(), "the L1 holds some of the L2's lines: it cannot be larger than l2_size",
                        '--set', 'topology.nodes.host.sockets.l1_size=1536KiB',
                        regex=r'--set topology\.nodes\.host\.sockets\.l1_size: ')

    def test_an_llc_not_a_whole_number_of_sets_a_slice(self):
        # five sets of 12 ways: not a whole number of sets for each of the 4 slices
        self.expect_bad(self.icx_coh_lat(), 'its size must be a multiple of slices x ways x 64 B (4 x 12 x 64 B = 3072 B)',
                        '--set', 'topology.nodes.host.sockets.llc_size=3840B',
                        regex=r'--set topology\.nodes\.host\.sockets\.llc_size: ')

    def test_a_line_in_an_llc_the_sockets_do_not_have(self):
        self.expect_bad(self.icx_coh_lat('llc'), "a line in the LLC needs one: set sockets.llc_size on the root complex 'host'",
                        '--set', 'topology.nodes.host.sockets.llc_size=0B', regex=r'study\.yaml:3:\d+: workloads\.0\.from: ')

    def test_a_system_cache_not_a_whole_number_of_sets(self):
        self.expect_bad(self.CCIX, 'the system cache must be a multiple of its ways times 64 B (16 ways: 1024 B)',
                        '--set', 'topology.nodes.au280.ccix_ra.sc_size=1600B',
                        regex=r'--set topology\.nodes\.au280\.ccix_ra\.sc_size: ')

    def test_a_home_both_dirty_sharing_and_migratory(self):
        self.expect_bad(self.CCIX, 'a home keeps dirty lines shared (dirty_sharing) or hands them on unique (migratory), not both',
                        '--set', 'topology.nodes.host.ccix.dirty_sharing=true', '--set', 'topology.nodes.host.ccix.migratory=true',
                        regex=r'--set topology\.nodes\.host\.ccix\.dirty_sharing: ')

    def test_dirty_sharing_on_forwarding_sockets(self):
        self.expect_bad(self.icx_coh_lat('dram', 'local'), 'keeps no line shared dirty: set forward: false',
                        '--set', 'topology.nodes.host.sockets.dirty_sharing=true',
                        regex=r'--set topology\.nodes\.host\.sockets\.dirty_sharing: ')

    def test_sockets_no_graph_joins(self):
        study = self.icx_coh_lat('dram', 2)
        self.expect_bad(study, 'socket 2 is not one of the host\'s 2 (sockets.count)', regex=r'study\.yaml:3:\d+: workloads\.0\.holder: ')
        self.expect_bad(study, 'the socket pair [1, 5] names a socket beyond the 4 (sockets 0 to 3)',
                        '--set', 'topology.nodes.host.sockets.count=4', '--set', 'topology.nodes.host.sockets.graph=[[0, 1], [1, 5]]',
                        regex=r'--set topology\.nodes\.host\.sockets\.graph: ')
        self.expect_bad(study, 'no route of socket links joins socket 0 and socket 2',
                        '--set', 'topology.nodes.host.sockets.count=4', '--set', 'topology.nodes.host.sockets.graph=[[0, 1], [2, 3]]',
                        regex=r'--set topology\.nodes\.host\.sockets\.graph: ')
        self.expect_bad(study, "the NIC's socket 3 is not one of the host's 2 (sockets.count)",
                        '--set', 'topology.nodes.host.coherent_nic.socket=3',
                        regex=r'--set topology\.nodes\.host\.coherent_nic\.socket: ')
        bw = ('study: t\ntopology: %s\nworkloads: [{type: coh_bw, from: [0, 1, 1], home: 1}]\n'
              % os.path.join(ROOT, 'topologies', 's002_icx.yaml'))
        self.expect_bad(bw, 'socket 1 is listed twice', regex=r'study\.yaml:3:\d+: workloads\.0\.from\.2: ')
        self.expect_bad(bw.replace('[0, 1, 1]', '[0, 3]'), "socket 3 is not one of the host's 2", regex=r'study\.yaml:3:\d+: workloads\.0\.from\.1: ')
        self.expect_bad(study, 'expected full, ring or a list of pairs of sockets',
                        '--set', 'topology.nodes.host.sockets.count=4', '--set', 'topology.nodes.host.sockets.graph=mesh',
                        regex=r'--set topology\.nodes\.host\.sockets\.graph: ')

    def test_a_non_snoopable_buffer_hit_in_the_system_cache(self):
        self.expect_bad(self.CCIX, 'hit needs the lines in the system cache, and a buffer no agent caches (snoop: false) has none there',
                        '--set', 'workloads.0.snoop=false', regex=r'study\.yaml:3:\d+: workloads\.0\.pattern: ')

    def test_buffers_larger_than_memory(self):
        self.expect_bad('study: t\ntopology: s001_rosta.yaml\n'
                        'workloads: [{type: rosta_dma, op: write, devices: [fpga0], bytes: 128GiB}]\n',
                        'its buffers do not fit in host memory (rc.dram_size)', regex=r'study\.yaml:3:\d+: workloads\.0: ')

    def test_peer_traffic_where_p2p_is_disabled(self):
        self.expect_bad(GOOD, "redirects peer requests (acs_redirect) to root complex 'host', which has p2p disabled",
                        '--set', 'topology.nodes.swB.acs_redirect=true', '--set', 'topology.nodes.host.rc.p2p=false')


class Files(Workdir):
    def test_study_names_stay_inside_results(self):
        for name in ('../../x', 'a/b', '..', '"a\\tb"', '""'):
            self.expect_bad(GOOD.replace('study: t', 'study: ' + name), 'not a study name')
        # Without -o, the default results/<study> stays where it was.
        deep = os.path.join(self.d, 'w', 'z')
        os.makedirs(deep)
        p = self.write('study.yaml', GOOD.replace('study: t', 'study: ../../x').replace('s001_rosta.yaml', TOPO))
        rc, _, err = run('run', p, '-q', cwd=deep)
        self.assertEqual(rc, 2, err)
        self.assertEqual(os.listdir(deep), [])
        self.assertFalse(os.path.exists(os.path.join(self.d, 'x')))

    def test_writes_follow_symlinks(self):
        real = self.write('real.dot', 'old\n')
        link = os.path.join(self.d, 'link.dot')
        os.symlink('real.dot', link)
        rc, _, err = run('topo', TOPO, '--dot', link)
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.islink(link), 'the link was replaced')
        with open(real) as f:
            self.assertIn('graph "s001_rosta"', f.read())

    def test_a_pipe_is_written_into_not_replaced(self):
        fifo = os.path.join(self.d, 'fifo')
        os.mkfifo(fifo)
        got = []
        def read():
            with open(fifo) as f:
                got.append(f.read())
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        rc, _, err = run('topo', TOPO, '--dot', fifo, timeout=60)
        reader.join(30)
        self.assertEqual(rc, 0, err)
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode), 'the pipe was replaced')
        self.assertIn('graph "s001_rosta"', got[0])

    @unittest.skipUnless(os.path.exists('/dev/full'), 'needs /dev/full')
    def test_a_full_disk_names_the_error(self):
        rc, _, err = run('topo', TOPO, '--dot', '/dev/full')
        self.assertEqual(rc, 2, err)
        self.assertIn('No space left on device', err)
        self.assertTrue(stat.S_ISCHR(os.stat('/dev/full').st_mode))


class Friction(Workdir):
    def test_set_before_or_after_the_study(self):
        study = self.write('study.yaml', GOOD)
        outs = []
        for args in (['--set', 'workloads.0.bytes=128KiB', study], [study, '--set', 'workloads.0.bytes=128KiB'],
                     ['--set', 'workloads.0.bytes=128KiB', '--set', 'seed=5', study]):
            out = tempfile.mkdtemp(dir=self.d)
            rc, _, err = run('run', *args, '-o', out, '-q')
            self.assertEqual(rc, 0, err)
            outs.append(results(out))
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(outs[0]['points'][0]['point'], {})
        with open(os.path.join(out, 'resolved_study.yaml')) as f:
            self.assertIn('bytes: 128KiB', f.read())

    def test_a_missed_deadline_names_the_key(self):
        study = self.write('study.yaml', GOOD + 'deadline: 1us\n')
        rc, _, err = run('run', study, '-o', os.path.join(self.d, 'out'), '-q')
        self.assertEqual(rc, 3, err)
        self.assertIn("raise the study's `deadline:`, e.g. --set deadline=10us", err)

    def test_plot_draws_any_study(self):
        study = self.write('study.yaml', sweep([64, 128, 256]))
        out = os.path.join(self.d, 'out')
        self.assertEqual(run('run', study, '-o', out, '-q')[0], 0)
        fig = os.path.join(self.d, 'fig.png')
        rc, stdout, err = run('plot', out, '--x', 'workloads.0.bytes', '--y', 'rosta_peer.fpga0_to_fpga1.rx_MiB_per_s',
                              '--out', fig, '--logx')
        self.assertEqual(rc, 0, err)
        with open(fig, 'rb') as f:
            self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')
        rc, _, err = run('plot', out, '--x', 'bytes', '--y', 'rosta_peer.aggregate_MiB_per_s')
        self.assertEqual(rc, 2, err)
        self.assertEqual(err, 'error: --x bytes: not a swept parameter of this study; swept: workloads.0.bytes\n')

    def test_the_reference_is_what_hxsim_params_prints(self):
        rc, out, err = run('params')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(ROOT, 'docs', 'parameters.md')) as f:
            self.assertEqual(f.read(), out, 'docs/parameters.md is stale: regenerate it with hxsim params > docs/parameters.md')
        self.assertIn('| `<src>_to_<dst>.rx_MiB_per_s` | MiB/s | metric |', out)

    def test_a_large_sweep_shows_its_checks(self):
        study = self.write('study.yaml', GOOD + 'sweep: [{path: seed, range: {from: 1, to: 3000, step: 1}}]\n')
        p = subprocess.Popen([HXSIM, 'run', study, '-o', os.path.join(self.d, 'out'), '-j', '2'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        first = p.stderr.readline()
        p.kill()
        p.communicate()
        self.assertRegex(first, r'^checked \d+/2999 points of the sweep$')

    def test_point_servers_do_not_hold_a_listed_sweep(self):
        # The driver holds the study with its list of values; each point
        # server used to read the whole list as well (770 MB each for a
        # million values). They now read the study without its sweep and
        # are sent each point's values.
        values = ', '.join(str(i) for i in range(1, 300001))
        study = self.write('study.yaml', GOOD + 'sweep: [{path: seed, values: [%s]}]\n' % values)
        p = subprocess.Popen([HXSIM, 'run', study, '-o', os.path.join(self.d, 'out'), '-j', '2'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            lines = []
            for line in p.stderr:  # until the servers have run points
                lines.append(line)
                if line.startswith('point ') and len(lines) > 12:
                    break
            self.assertRegex(''.join(lines), r'point \d+/300000 done')

            def peak_kib(pid):
                with open('/proc/%d/status' % pid) as f:
                    return int(next(l for l in f if l.startswith('VmHWM:')).split()[1])
            servers = []
            for d in os.listdir('/proc'):
                try:
                    with open('/proc/%s/stat' % d) as f:
                        ppid = int(f.read().rsplit(')', 1)[1].split()[1])
                    with open('/proc/%s/cmdline' % d, 'rb') as f:
                        args = f.read().split(b'\0')
                except (OSError, ValueError, IndexError):
                    continue
                if ppid == p.pid and b'_serve' in args:
                    servers.append(int(d))
            self.assertEqual(len(servers), 2)
            driver = peak_kib(p.pid)
            for s in servers:
                self.assertLess(peak_kib(s) * 4, driver, (peak_kib(s), driver))
        finally:
            p.kill()
            p.communicate()

    def test_a_point_too_long_for_one_command_still_runs(self):
        # A point's values go to its server in a command of 1 KiB; longer
        # ones go through a file beside the point's, removed once read.
        long = 'x' * 3000
        study = self.write('study.yaml', GOOD + 'sweep: [{path: description, values: [short, %s]}]\n' % long)
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', study, '-o', out, '-q', '-j', '2')
        self.assertEqual(rc, 0, err)
        points = results(out)['points']
        self.assertEqual([q['point']['description'] for q in points], ['short', long])
        self.assertEqual(points[0]['metrics'], points[1]['metrics'])
        self.assertEqual(sorted(os.listdir(os.path.join(out, 'points'))), ['0.json', '1.json'])

    def test_a_description_is_text(self):
        # Free text that no point copies any more (each point read it into
        # a string it never used): it is still checked, at its place.
        self.expect_bad(GOOD + 'description: [a, b]\n', 'expected a single value, not a list or map',
                        regex=r'study\.yaml:4:14: description')
        self.expect_bad(GOOD, 'expected a single value, not a list or map', '--set', 'topology.description={a: 1}',
                        regex=r'^error: --set topology\.description')

    def test_common_seeds_keep_a_points_draws_when_an_axis_grows(self):
        # Each point's seed comes from its index: put a value before a
        # point and its draws change. `point_seeds: common` gives every
        # point the study's seed (common random numbers).
        base = self.one_workload('s011_hsw_e5_2620v3', '{type: bench_lat, name: lat, device: nfp, op: rd, size: 64B, '
                                 'window: 64MiB, pattern: rand, reps: 300, page_size: 4KiB}')
        one = 'sweep: [{path: workloads.0.size, values: [64B]}]\n'
        two = 'sweep: [{path: workloads.0.size, values: [128B, 64B]}]\n'

        def metrics(text, out):
            study = self.write(out + '.yaml', text)
            rc, _, err = run('run', study, '-o', os.path.join(self.d, out), '-q')
            self.assertEqual(rc, 0, err)
            return [p['metrics'] for p in results(os.path.join(self.d, out))['points']]
        by_index = metrics(base + one, 'i1')[0], metrics(base + two, 'i2')[1]
        self.assertNotEqual(by_index[0], by_index[1])  # one configuration, other draws
        common = metrics(base + 'point_seeds: common\n' + one, 'c1')[0], metrics(base + 'point_seeds: common\n' + two, 'c2')[1]
        self.assertEqual(common[0], common[1])
        self.assertEqual(common[0], by_index[0])  # point 0's seed either way
        self.expect_bad(base + 'point_seeds: shared\n', "'shared' is not one of: index, common", regex=r'study\.yaml:4:14: point_seeds')

    def test_metrics_choose_the_csv_columns(self):
        # `metrics:` was accepted and ignored; now it picks results.csv's
        # metric columns, in its order, and a pattern that matches nothing
        # the workloads write is bad input at its place.
        self.expect_bad(GOOD + 'metrics: [rosta_peer.transfers, bw.gbit_per_s]\n',
                        "no metric of this study's workloads matches 'bw.gbit_per_s'", regex=r'study\.yaml:4:\d+: metrics\.1')
        self.expect_bad(GOOD + 'outputs: [csv]\n', "unknown key 'outputs'", regex=r'study\.yaml:4:1:')
        text = sweep([64, 128]).replace('bytes: 1MiB}', 'name: k, bytes: 1MiB}')
        study = self.write('study.yaml', text + 'metrics: [k.transfers, "*.rx_MiB_per_s"]\n')
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', study, '-o', out, '-q')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(out, 'results.csv')) as f:
            self.assertEqual(f.readline(), 'point,workloads.0.bytes,k.transfers,k.fpga0_to_fpga1.rx_MiB_per_s\n')
        self.assertIn('k.aggregate_MiB_per_s', results(out)['points'][0]['metrics'])

    def test_a_long_point_shows_how_far_it_is(self):
        # One point of a few seconds, its stderr on a terminal: the progress
        # line tells the point's share of work done, its simulated time and
        # an ETA; the results are those of a quiet run.
        study = self.write('study.yaml', GOOD.replace('64KiB', '2GiB') + 'deadline: 10s\n')
        out = os.path.join(self.d, 'out')
        master, slave = pty.openpty()
        p = subprocess.Popen([HXSIM, 'run', study, '-o', out, '-j', '1'], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        shown = b''
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal's other side has closed
                break
            if not chunk:
                break
            shown += chunk
        os.close(master)
        self.assertEqual(p.wait(timeout=120), 0, shown)
        self.assertRegex(shown.decode(), r'\[0/1\] \d+s elapsed, 1 running; point 0: \d+% of its work at '
                                         r'[\d.]+ ms simulated, ETA \d+s')
        quiet = os.path.join(self.d, 'quiet')
        self.assertEqual(run('run', study, '-o', quiet, '-q')[0], 0)
        self.assertEqual(results(out), results(quiet))


SWEEP = ('study: k\ntopology: s001_rosta.yaml\n'
         'workloads: [{type: rosta_peer, pairs: [[fpga0, fpga1]], bytes: 1MiB}]\n'
         'sweep: [{path: workloads.0.bytes, values: [%s]}]\n')


def sweep(sizes, unit='KiB'):
    return SWEEP % ', '.join('%d%s' % (s, unit) for s in sizes)


class Resume(Workdir):
    def run_into(self, text, out, *extra):
        p = self.write('study.yaml', text)
        rc, _, err = run('run', p, '-o', out, '-q', *extra)
        return rc, err

    def clean(self, text):
        """The results of `text` run into a fresh directory."""
        out = tempfile.mkdtemp(dir=self.d)
        rc, err = self.run_into(text, out)
        self.assertEqual(rc, 0, err)
        return results(out)

    def test_edit_and_rerun_equals_a_clean_run(self):
        out = os.path.join(self.d, 'out')
        a, b = sweep([64, 128, 256]), sweep([64, 512, 256])
        self.assertEqual(self.run_into(a, out)[0], 0)
        rc, err = self.run_into(b, out)
        self.assertEqual(rc, 0, err)
        self.assertEqual(results(out), self.clean(b))
        # And back: nothing of b's is reported for a.
        self.assertEqual(self.run_into(a, out)[0], 0)
        self.assertEqual(results(out), self.clean(a))

    def test_a_failing_point_leaves_no_earlier_result(self):
        out = os.path.join(self.d, 'out')
        base = GOOD + 'sweep: [{path: deadline, values: [%s]}]\n'
        self.assertEqual(self.run_into(base % '10ms, 10ms', out)[0], 0)
        rc, err = self.run_into(base % '10ms, 1us', out)
        self.assertEqual(rc, 3, err)
        r = results(out)
        self.assertEqual(r['failed'], 1)
        self.assertEqual([p['point_index'] for p in r['points']], [0])
        self.assertFalse(os.path.exists(os.path.join(out, 'points', '1.json')))
        # A rerun of the same study does not resurrect the earlier point 1.
        rc, err = self.run_into(base % '10ms, 1us', out)
        self.assertEqual(rc, 3, err)
        self.assertEqual([p['point_index'] for p in results(out)['points']], [0])

    def test_a_point_of_another_configuration_is_never_reused(self):
        # A point file whose fingerprint is not this run's (copied in from
        # another study's run) is run again, not reported.
        out, other = os.path.join(self.d, 'out'), os.path.join(self.d, 'other')
        a, b = sweep([64, 128]), sweep([64, 4096])
        self.assertEqual(self.run_into(a, out)[0], 0)
        self.assertEqual(self.run_into(b, other)[0], 0)
        shutil.copy(os.path.join(other, 'points', '1.json'), os.path.join(out, 'points', '1.json'))
        rc, err = self.run_into(a, out)
        self.assertEqual(rc, 0, err)
        self.assertEqual(results(out), self.clean(a))

    def servers_of(self, out):
        """Processes (other than zombies) whose command line names `out`."""
        found = []
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                with open('/proc/%s/cmdline' % pid, 'rb') as f:
                    cmd = f.read().split(b'\0')
                with open('/proc/%s/stat' % pid) as f:
                    state = f.read().rsplit(')', 1)[1].split()[0]
            except OSError:
                continue
            if state != 'Z' and out.encode() in cmd:
                found.append(int(pid))
        return found

    def test_killed_at_twenty_moments_equals_an_uninterrupted_run(self):
        # Two configurations, edited between kills: the final run of each
        # must give exactly what an uninterrupted run gives, and no point
        # server may outlive its killed driver.
        out = os.path.join(self.d, 'out')
        a = sweep(range(1, 41), 'MiB')
        b = sweep(range(41, 0, -1), 'MiB')
        rng = random.Random(20261201)
        t0 = time.monotonic()
        self.assertEqual(self.run_into(a, out)[0], 0)
        full = time.monotonic() - t0
        shutil.rmtree(out)
        # Alternating: a kill of b's run finds a's points of the kill before.
        for k in range(20):
            text = a if k % 2 == 0 else b
            p = self.write('study.yaml', text)
            proc = subprocess.Popen([HXSIM, 'run', p, '-o', out, '-q', '-j', '2'],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0, 1.2 * full))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            deadline = time.monotonic() + 10
            while self.servers_of(out) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual(self.servers_of(out), [], 'point servers outlived their driver (kill %d)' % k)
        for text in (b, a):
            rc, err = self.run_into(text, out)
            self.assertEqual(rc, 0, err)
            self.assertEqual(results(out), self.clean(text))


if __name__ == '__main__':
    unittest.main(verbosity=2)
