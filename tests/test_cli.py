#!/usr/bin/python3
"""Integration tier: hxsim through its command line. Bad input exits 2 with
file:line:col and leaves nothing behind; runs are deterministic and
resumable; each platform's golden results hold within per-metric tolerance
(regenerate with scripts/update_golden.py)."""
import json, os, shutil, subprocess, sys, tempfile, unittest

HXSIM = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else 'hxsim'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, cwd=None, env=None):
    p = subprocess.run([HXSIM, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                       env=None if env is None else {**os.environ, **env})
    return p.returncode, p.stdout, p.stderr


def run_study(test, d, text, *args):
    """Write TEXT as D/study.yaml, run it into D/out with ARGS (the test
    fails unless it succeeds), and return the points of its results.json."""
    study, out = os.path.join(d, 'study.yaml'), os.path.join(d, 'out')
    with open(study, 'w') as f:
        f.write(text)
    rc, _, err = run('run', study, '-o', out, '-q', *args)
    test.assertEqual(rc, 0, err)
    with open(os.path.join(out, 'results.json')) as f:
        return json.load(f)['points']


class BadInput(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        shutil.copy(os.path.join(ROOT, 'topologies', 's001_rosta.yaml'), self.d)

    def tearDown(self):
        shutil.rmtree(self.d)

    def study(self, text, topo=None):
        if topo is not None:
            with open(os.path.join(self.d, 's001_rosta.yaml'), 'w') as f:
                f.write(topo)
        p = os.path.join(self.d, 'study.yaml')
        with open(p, 'w') as f:
            f.write(text)
        return p

    def expect_error(self, study_text, needle, topo=None, extra=()):
        p = self.study(study_text, topo)
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', p, '-o', out, '-q', *extra)
        self.assertEqual(rc, 2, err)
        self.assertIn(needle, err)
        self.assertEqual(err.count('\n'), 1, 'one clear error line: ' + err)
        self.assertFalse(os.path.exists(out), 'a bad input left output behind')
        return err

    GOOD = ('study: t\ntopology: s001_rosta.yaml\n'
            'workloads: [{type: rosta_peer, pairs: [[fpga0, fpga1]], bytes: 64KiB}]\n')

    def test_yaml_syntax(self):
        err = self.expect_error('study: t\nworkloads: [\n', 'YAML syntax error')
        self.assertRegex(err, r'study\.yaml:\d+:\d+:')

    def test_unknown_key(self):
        err = self.expect_error(self.GOOD + 'sweeps: []\n', "unknown key 'sweeps'")
        self.assertRegex(err, r'study\.yaml:4:1:')

    def test_wrong_unit(self):
        err = self.expect_error(self.GOOD.replace('64KiB', '64 parsecs'), 'is not a size')
        self.assertRegex(err, r'study\.yaml:3:\d+: workloads\.0\.bytes')

    def test_first_bad_sweep_point_is_reported_whatever_the_jobs(self):
        # 200 points checked by up to 4 threads; points 73 and 151 are bad:
        # the error is always point 73's.
        values = ', '.join('%d parsecs' % k if k in (73, 151) else '%dKiB' % (k + 1) for k in range(200))
        text = self.GOOD + 'sweep: [{path: workloads.0.bytes, values: [%s]}]\n' % values
        for jobs in ('1', '2', '4'):
            err = self.expect_error(text, "'73 parsecs' is not a size", extra=('-j', jobs))
            self.assertNotIn('151', err)

    def test_unknown_workload_device(self):
        self.expect_error(self.GOOD.replace('fpga1', 'fpga9'), "'fpga9' is not an endpoint with a rosta device")

    def test_device_driven_twice(self):
        study = self.GOOD.replace(']\n', ', {type: rosta_echo, name: e, from: fpga0, to: fpga2}]\n')
        self.expect_error(study, "'fpga0' is already driven by workload 'rosta_peer'")

    def test_bar_too_small_for_the_device(self):
        topo = open(os.path.join(ROOT, 'topologies', 's001_rosta.yaml')).read().replace('bar_size: 2MiB', 'bar_size: 64KiB')
        err = self.expect_error(self.GOOD, 'needs a BAR0 of at least 2048KiB', topo)
        self.assertRegex(err, r's001_rosta\.yaml:\d+:\d+: nodes\.\w+\.endpoint\.bar_size')

    def test_bad_link_width(self):
        topo = open(os.path.join(ROOT, 'topologies', 's001_rosta.yaml')).read().replace(
            '{up: host, down: swA, gen: 2, width: 8}', '{up: host, down: swA, gen: 2, width: 24}')
        err = self.expect_error(self.GOOD, 'not a PCIe link width', topo)
        self.assertRegex(err, r's001_rosta\.yaml:\d+:\d+: links\.0\.width')

    def test_cyclic_tree(self):
        topo = open(os.path.join(ROOT, 'topologies', 's001_rosta.yaml')).read() + '  - {up: swC, down: fpga0, gen: 2, width: 4}\n'
        self.expect_error(self.GOOD, 'already has an upstream link', topo)

    def test_disconnected(self):
        topo = open(os.path.join(ROOT, 'topologies', 's001_rosta.yaml')).read().replace(
            '  - {up: swC, down: fpga7, gen: 2, width: 4}\n', '')
        self.expect_error(self.GOOD, 'not connected', topo)

    def test_impossible_mps(self):
        self.expect_error(self.GOOD + 'set: {topology.nodes.fpga0.mps: 1KiB}\n', 'above what the device supports')

    # A value given apart from the file it lands in is located where it
    # was given: the sweep's line, the study's set: line, or the --set.
    def test_bad_sweep_value_names_its_line(self):
        err = self.expect_error(self.GOOD + 'sweep:\n  - {path: workloads.0.bytes, values: [64KiB, 64 parsecs]}\n',
                                'is not a size')
        self.assertRegex(err, r'study\.yaml:5:\d+: sweep\.0\.values\.1: workloads\.0\.bytes: ')

    def test_a_sweep_axis_cannot_change_the_sweep(self):
        err = self.expect_error(self.GOOD + 'sweep:\n  - {path: sweep.0.values.0, values: [1KiB, 2KiB]}\n',
                                'a sweep axis cannot change the sweep')
        self.assertRegex(err, r'study\.yaml:5:\d+: sweep\.0\.path: ')

    def test_a_sweep_too_large_to_run_is_bad_input(self):
        # Refused at once, not counted out or expanded (a range's step typed wrong).
        err = self.expect_error(self.GOOD + 'sweep:\n  - {path: workloads.0.bytes, range: {from: 1, to: 1e15, step: 1}}\n',
                                'a range of more than 1000000 values')
        self.assertRegex(err, r'study\.yaml:5:\d+: sweep\.0\.range: ')
        err = self.expect_error(self.GOOD + 'sweep:\n  - {path: workloads.0.bytes, range: {from: 1, to: 5000, step: 1}}\n'
                                '  - {path: seed, range: {from: 1, to: 5000, step: 1}}\n', 'a sweep of 2.5e+07 points')
        self.assertRegex(err, r'study\.yaml:5:\d+: sweep: ')
        self.expect_error(self.GOOD + 'sweep:\n  - {path: workloads.0.bytes, range: {from: 9, to: 1, step: 1}}\n',
                          'the range holds no value')

    def test_bad_study_set_value_names_its_line(self):
        err = self.expect_error(self.GOOD + 'set: {topology.links.0.width: 3}\n', 'is not a PCIe link width')
        self.assertRegex(err, r'study\.yaml:4:\d+: set\.topology\.links\.0\.width: links\.0\.width: 3 ')

    def test_bad_set_value_names_the_set(self):
        err = self.expect_error(self.GOOD, 'is not a PCIe link width', extra=('--set', 'topology.links.0.width=3'))
        self.assertIn('error: --set topology.links.0.width: links.0.width: 3 ', err)

    def test_unusable_output_directory(self):
        # A file where the output directory should be: bad input, found
        # before anything runs, for run, validate and bench alike.
        p = self.study(self.GOOD)
        blocker = os.path.join(self.d, 'blocker')
        with open(blocker, 'w') as f:
            f.write('x')
        for args, label in ((('run', p, '-o', blocker + '/out', '-q'), '-o '),
                            (('validate', os.path.join(ROOT, 'validation', 'cases', 's001_latency.yaml'),
                              '--work', os.path.join(self.d, 'work'), '--report', blocker + '/rep'), '--report '),
                            (('bench', '--json', blocker + '/b.json'), '--json ')):
            rc, _, err = run(*args)
            self.assertEqual(rc, 2, err)
            self.assertRegex(err, '^error: ' + label + r'\S+: \S*blocker exists and is not a directory\n$')
        self.assertEqual(sorted(os.listdir(self.d)), ['blocker', 's001_rosta.yaml', 'study.yaml'], 'nothing written')
        # A directory where a file should be written.
        for args, label in ((('bench', '--json', self.d), '--json '),
                            (('topo', os.path.join(self.d, 's001_rosta.yaml'), '--dot', self.d), '--dot ')):
            rc, out, err = run(*args)
            self.assertEqual(rc, 2, err)
            self.assertEqual(err, 'error: %s%s: %s is a directory\n' % (label, self.d, self.d))
            self.assertEqual(out, '', 'nothing printed before the error')
        self.assertEqual(sorted(os.listdir(self.d)), ['blocker', 's001_rosta.yaml', 'study.yaml'], 'nothing left behind')

    def test_bad_set_path(self):
        self.expect_error(self.GOOD, "unknown key 'latncy'", extra=('--set', 'topology.nodes.swA.latncy=1ns'))

    def test_bad_cli(self):
        rc, _, err = run('run')
        self.assertEqual(rc, 2)
        rc, _, err = run('topo', '/nonexistent.yaml')
        self.assertEqual(rc, 2)
        # A trace window without --trace would be silently ignored.
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', self.study(self.GOOD), '-o', out, '--trace-from', '5us')
        self.assertEqual(rc, 2, err)
        self.assertIn('--trace-from requires --trace', err)
        self.assertFalse(os.path.exists(out))


class NicLoopInput(unittest.TestCase):
    """The packet loop's keys on S002's Ice Lake host: each NIC kind's own
    keys, its device, and the rings and cores it needs, refused at their
    place before anything is written."""
    TOPO = os.path.join(ROOT, 'topologies', 's002_icx.yaml')

    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def expect_error(self, workload, needle, where=r'study\.yaml:3:\d+: workloads\.0', topo=None):
        p = os.path.join(self.d, 'study.yaml')
        t = self.TOPO
        if topo is not None:
            t = os.path.join(self.d, 's002_icx.yaml')
            with open(t, 'w') as f:
                f.write(topo)
        with open(p, 'w') as f:
            f.write('study: t\ntopology: %s\nworkloads: [{type: nic_loop, name: nic, %s}]\n' % (t, workload))
        out = os.path.join(self.d, 'out')
        rc, _, err = run('run', p, '-o', out, '-q')
        self.assertEqual(rc, 2, err)
        self.assertIn(needle, err)
        self.assertRegex(err, where)
        self.assertEqual(err.count('\n'), 1, 'one clear error line: ' + err)
        self.assertFalse(os.path.exists(out), 'a bad input left output behind')

    def test_each_nic_kind_refuses_the_others_keys(self):
        self.expect_error('nic: pcie, per_line: 4', 'per_line applies to nic: ccnic and e810_upi')
        self.expect_error('nic: ccnic, rx: irq', 'rx applies to nic: pcie')
        self.expect_error('nic: pcie, layout: packed', 'layout applies to nic: ccnic and e810_upi')
        self.expect_error('nic: pcie, buffers: pools', 'buffers applies to nic: ccnic and e810_upi')
        self.expect_error('nic: ccnic, buffers: pool', 'buffers', r'study\.yaml:3:\d+: workloads\.0\.buffers')
        # Pools hold four rings' worth of buffers: this fits as slots, not as pools.
        self.expect_error('nic: ccnic, ring: 1024, per_line: 4, size: 9216B, buffers: pools',
                          "a queue's buffer pools exceed 64 MiB", r'study\.yaml:3:\d+: workloads\.0\.ring')

    def test_tail_registers_take_descriptors_back_to_back(self):
        self.expect_error('nic: e810_upi, layout: grouped', 'layout: grouped needs inline signalling (nic: ccnic)',
                          r'study\.yaml:3:\d+: workloads\.0\.layout')

    def test_the_device_must_be_a_nic(self):
        self.expect_error('nic: pcie, device: host', "'host' is not an endpoint with device: nic")
        self.expect_error('nic: pcie', 'several NICs: say which with device:')

    def test_rings_and_cores(self):
        self.expect_error('nic: pcie, device: e810, ring: 32', "a ring of at least twice the NIC's tx_wb_every (32)")
        self.expect_error('nic: pcie, device: cx6, queues: 3', 'each queue takes two host cores (cpu.cores is 4)')
        self.expect_error('nic: pcie, device: cx6, ring: 64, batch: 33', 'a batch is at most half a ring (ring / 2 = 32)')

    def test_a_bad_nic_parameter_is_located_in_its_topology(self):
        topo = open(self.TOPO).read()
        self.assertEqual(topo.count('completion: 64B'), 1)
        self.expect_error('nic: pcie, device: cx6', '16B, 32B or 64B', r's002_icx\.yaml:\d+:\d+: nodes\.cx6\.nic\.completion',
                          topo.replace('completion: 64B', 'completion: 24B'))

    def test_an_rx_buffer_holds_a_packet(self):
        # A buffer smaller than a packet would drop every packet that waits,
        # the one packet of a ping-pong too, which its sender waits for.
        topo = open(self.TOPO).read()
        self.assertEqual(topo.count('      driver_per_packet: 20ns   # as the coherent'), 1)
        self.expect_error('nic: pcie, device: e810, size: 1500B', "packets of 1500 B do not fit in the NIC's rx_buffer of 1024 B",
                          r'study\.yaml:3:\d+: workloads\.0\.size',
                          topo.replace('      driver_per_packet: 20ns   # as the coherent', '      rx_buffer: 1KiB\n      driver_per_packet: 20ns   # as the coherent'))


class Runs(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_a_log_hears_from_a_long_point(self):
        # stderr is a pipe here, as a CI log is: no progress bar, but a line
        # every HXSIM_PROGRESS_EVERY seconds (30 by default) naming the point
        # still running, how far it is and its ETA. One CC-NIC point of
        # several seconds, with a line asked for every second.
        study = os.path.join(ROOT, 'configs', 'bench', 'ccnic_peak.yaml')
        out = os.path.join(self.d, 'long')
        rc, _, err = run('run', study, '-o', out, '--set', 'workloads.0.packets=800000', env={'HXSIM_PROGRESS_EVERY': '1'})
        self.assertEqual(rc, 0, err)
        self.assertRegex(err, r'point 0: \d+% of its work at [\d.]+ (us|ms|s) simulated, ETA \d+s \(\d+s elapsed\)\n')
        self.assertNotIn('\r', err)
        rc, _, err = run('run', study, '-o', os.path.join(self.d, 'bad'), env={'HXSIM_PROGRESS_EVERY': 'soon'})
        self.assertEqual(rc, 2, err)
        self.assertIn("HXSIM_PROGRESS_EVERY is 'soon', not a number of seconds above 0", err)
        self.assertFalse(os.path.exists(os.path.join(self.d, 'bad')))

    def test_deterministic_and_resumable(self):
        study = os.path.join(ROOT, 'configs', 's004_fhf.yaml')
        sets = ['--set', 'workloads.0.reps=200', '--set',
                'sweep=[{path: workloads.0.size, values: [64B, 1500B]}]']
        a, b = os.path.join(self.d, 'a'), os.path.join(self.d, 'b')
        # The second run leaves its point servers unpinned (the first, with a
        # server for each of two CPUs, holds each to its own): same results.
        for out, extra in ((a, []), (b, ['--no-pin'])):
            rc, _, err = run('run', study, '-o', out, '-q', '-j', '2', *extra, *sets)
            self.assertEqual(rc, 0, err)
        for k in ('0', '1'):
            with open(os.path.join(a, 'points', k + '.json'), 'rb') as fa, open(os.path.join(b, 'points', k + '.json'), 'rb') as fb:
                self.assertEqual(fa.read(), fb.read(), 'same inputs and seed must give bit-identical results')
        self.assertTrue(os.path.exists(os.path.join(a, 'results.csv')))
        # Each result names the build it came from, as --version does.
        with open(os.path.join(a, 'points', '0.json')) as f:
            meta = json.load(f)['meta']
        rc, version, _ = run('--version')
        self.assertEqual(version.strip(), 'hxsim %s (%s)' % (meta['hxsim_version'], meta['git_revision']))
        # Wall-clock figures: one study-level file, not a file per point.
        with open(os.path.join(a, 'timing.json')) as f:
            t = json.load(f)
        self.assertEqual([e['point'] for e in t['points']], [0, 1])
        self.assertTrue(all(e['wall_s'] > 0 and 'earlier_run' not in e for e in t['points']))
        self.assertEqual(t['points_run'], 2)
        self.assertEqual([n for n in os.listdir(os.path.join(a, 'points')) if not n.endswith('.json')], [])
        rc, _, err = run('run', study, '-o', a, *sets)
        self.assertEqual(rc, 0, err)
        self.assertIn('(2 reused)', err)
        with open(os.path.join(a, 'timing.json')) as f:
            t2 = json.load(f)
        self.assertEqual(t2['points_run'], 0)
        self.assertEqual([(e['point'], e['wall_s'], e.get('earlier_run')) for e in t2['points']],
                         [(e['point'], e['wall_s'], True) for e in t['points']], 'reused points keep their timing')
        rc, _, err = run('run', study, '-o', a, '--seed', '7', *sets)
        self.assertIn('(0 reused)', err)

    def test_csv_columns_do_not_depend_on_which_point_finishes_first(self):
        # Each point writes its own metric; point 0 runs far longer, so under
        # -j2 point 1 finishes first. The CSV is the one a run in turn gives.
        study = os.path.join(ROOT, 'configs', 's001_latency.yaml')
        sweep = ('sweep=[{zip: [{path: workloads.0.to, values: [fpga1, fpga4]}, {path: workloads.0.name, values: [slow, fast]},'
                 ' {path: workloads.0.reps, values: [20000, 1]}]}]')
        csv = {}
        for jobs in ('1', '2'):
            out = os.path.join(self.d, 'j' + jobs)
            rc, _, err = run('run', study, '-o', out, '-q', '-j', jobs, '--set', sweep)
            self.assertEqual(rc, 0, err)
            with open(os.path.join(out, 'results.csv'), 'rb') as f:
                csv[jobs] = f.read()
        self.assertEqual(csv['1'], csv['2'])
        self.assertTrue(csv['2'].startswith(b'point,workloads.0.name,workloads.0.reps,workloads.0.to,slow.one_way_ns,fast.one_way_ns\n'))

    def test_topology_overrides_apply_to_every_topology_of_a_sweep(self):
        # A point that changes the topology file still gets the study's and
        # the command line's topology.* overrides.
        study = os.path.join(self.d, 'fhf.yaml')
        with open(study, 'w') as f:
            f.write('study: fhf\ntopology: %s/topologies/s004_amd_gen3x8.yaml\n'
                    'set: {topology.nodes.host.rc.outbound_latency: 1145ns}\n'
                    'workloads: [{type: calypte_loopback, name: rt, mode: fhf, device: card, size: 64B, reps: 200}]\n'
                    'sweep: [{path: topology, values: [%s/topologies/s004_amd_gen3x8.yaml]}]\n' % (ROOT, ROOT))
        p50 = {}
        for v in ('120ns', '920ns'):
            out = os.path.join(self.d, v)
            rc, _, err = run('run', study, '-o', out, '-q', '--set', 'topology.nodes.host.rc.inbound_latency=' + v)
            self.assertEqual(rc, 0, err)
            with open(os.path.join(out, 'results.json')) as f:
                p50[v] = json.load(f)['points'][0]['metrics']['rt.fhf_p50_us']
        # The file's 120 ns inbound and 145 ns outbound latencies give 0.83 us;
        # the study's +1 us outbound, then the command line's +0.8 us inbound.
        self.assertGreater(p50['120ns'], 1.7)
        self.assertGreater(p50['920ns'] - p50['120ns'], 0.7)

    def test_editing_a_swept_topology_reruns_the_study(self):
        # The topology files a sweep switches to are configuration: a point
        # computed before one of them changed is not reused.
        for name, src in (('a.yaml', 's004_amd_gen3x8.yaml'), ('b.yaml', 's004_intel_gen3x8.yaml')):
            shutil.copy(os.path.join(ROOT, 'topologies', src), os.path.join(self.d, name))
        study = os.path.join(self.d, 'st.yaml')
        with open(study, 'w') as f:
            f.write('study: st\ntopology: a.yaml\n'
                    'workloads: [{type: calypte_loopback, name: rt, mode: fhf, device: card, size: 64B, reps: 100}]\n'
                    'sweep: [{path: topology, values: [a.yaml, b.yaml]}]\n')
        out = os.path.join(self.d, 'out')
        def p50s():
            with open(os.path.join(out, 'results.json')) as f:
                return [p['metrics']['rt.fhf_p50_us'] for p in json.load(f)['points']]
        rc, _, err = run('run', study, '-o', out)
        self.assertEqual(rc, 0, err)
        before = p50s()
        rc, _, err = run('run', study, '-o', out)
        self.assertIn('(2 reused)', err)
        b = os.path.join(self.d, 'b.yaml')
        with open(b) as f:
            text = f.read()
        self.assertIn('inbound_latency: 120ns', text)
        with open(b, 'w') as f:
            f.write(text.replace('inbound_latency: 120ns', 'inbound_latency: 920ns'))
        rc, _, err = run('run', study, '-o', out)
        self.assertEqual(rc, 0, err)
        self.assertIn('(0 reused)', err)
        after = p50s()
        self.assertEqual(after[0], before[0])
        self.assertGreater(after[1] - before[1], 0.7)

    def test_a_sweep_over_seeds_gives_replicas(self):
        # A point that sets the seed runs with that seed wherever it stands:
        # equal values give equal results, another value other results.
        pts = run_study(self, self.d, 'study: seeds\ntopology: %s/topologies/s004_amd_gen3x8.yaml\n'
                        'workloads: [{type: calypte_loopback, name: rt, mode: fhf, device: card, size: 64B, reps: 200}]\n'
                        'sweep: [{path: seed, values: [1, 2, 1]}]\n' % ROOT)
        self.assertEqual((pts[0]['meta']['seed'], pts[0]['metrics']), (pts[2]['meta']['seed'], pts[2]['metrics']))
        self.assertNotEqual(pts[0]['meta']['seed'], pts[1]['meta']['seed'])
        self.assertNotEqual(pts[0]['metrics'], pts[1]['metrics'])

    def test_sweep_resumes_after_sigkill(self):
        import signal, time
        study = os.path.join(ROOT, 'configs', 'bench', 'sweep_1000.yaml')
        out = os.path.join(self.d, 'sw')
        p = subprocess.Popen([HXSIM, 'run', study, '-o', out, '-q', '-j', '2'], stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        pts = os.path.join(out, 'points')
        while time.time() < deadline and (not os.path.isdir(pts) or len([f for f in os.listdir(pts) if f.endswith('.json')]) < 100):
            time.sleep(0.05)
        p.send_signal(signal.SIGKILL)  # the driver dies; its running points finish or die with it
        p.wait()
        finished = len([f for f in os.listdir(pts) if f.endswith('.json')])
        self.assertGreater(finished, 0)
        self.assertLess(finished, 1000, 'the sweep finished before it was killed')
        rc, _, err = run('run', study, '-o', out, '-j', '2')
        self.assertEqual(rc, 0, err)
        reused = int(err.split('(')[1].split(' reused')[0])
        self.assertGreaterEqual(reused, finished - 2)  # points being written at the kill may be redone
        with open(os.path.join(out, 'results.json')) as f:
            idx = [q['point_index'] for q in json.load(f)['points']]
        self.assertEqual(sorted(idx), list(range(1000)), 'a point lost or repeated')

    def test_a_point_server_that_dies_ends_the_sweep_with_an_error(self):
        import signal, time
        study = os.path.join(ROOT, 'configs', 'bench', 'sweep_1000_1mib.yaml')
        p = subprocess.Popen([HXSIM, 'run', study, '-o', os.path.join(self.d, 'sv'), '-q', '-j', '2'],
                             stderr=subprocess.PIPE, text=True)
        def parents():
            out = {}
            for pid in filter(str.isdigit, os.listdir('/proc')):
                try:
                    with open(f'/proc/{pid}/stat') as f:
                        out[int(pid)] = int(f.read().rsplit(')', 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    pass
            return out
        # A server that is running a point (it has a child): killing it loses that point.
        victim, deadline = None, time.time() + 60
        while victim is None and time.time() < deadline:
            pp = parents()
            servers = {pid for pid, ppid in pp.items() if ppid == p.pid}
            busy = sorted({ppid for pid, ppid in pp.items() if ppid in servers})
            victim = busy[0] if busy else None
            time.sleep(0.02)
        self.assertIsNotNone(victim, 'no point server running a point found')
        os.kill(victim, signal.SIGKILL)
        _, err = p.communicate(timeout=120)  # the sweep ends rather than waiting for the lost point
        self.assertEqual(p.returncode, 3, err)
        self.assertIn('a point server ended during the sweep (signal 9)', err)

    def test_point_server_refuses_a_study_changed_since_the_check(self):
        # A local sweep's point servers read the study again; one that reads
        # other content than the driver checked (its hash) runs nothing.
        study = os.path.join(ROOT, 'configs', 's004_fhf.yaml')
        rc, _, err = run('_serve', study, '--dir', self.d, '--cmd-fd', '0', '--rep-fd', '1', '--study-hash', '12345')
        self.assertEqual(rc, 2, err)
        self.assertIn('changed while the sweep started', err)

    def test_failing_point_is_reported_and_the_rest_run(self):
        study = os.path.join(ROOT, 'configs', 's004_fhf.yaml')
        out = os.path.join(self.d, 'f')
        rc, _, err = run('run', study, '-o', out, '-j', '2', '--set', 'workloads.0.reps=50',
                         '--set', 'sweep=[{path: deadline, values: [10ms, 100ns, 10ms]}]')
        self.assertEqual(rc, 3, err)  # a simulation error, after every other point ran
        self.assertIn('point 1 failed (exit 3)', err)
        self.assertIn('did not finish by its deadline', err)  # the point's own stderr
        pts = os.path.join(out, 'points')
        self.assertTrue(os.path.exists(os.path.join(pts, '0.json')) and os.path.exists(os.path.join(pts, '2.json')))
        self.assertFalse(os.path.exists(os.path.join(pts, '1.json')))
        with open(os.path.join(pts, '1.json.stderr')) as f:
            self.assertIn('did not finish by its deadline', f.read())
        self.assertFalse(os.path.exists(os.path.join(pts, '0.json.stderr')))
        with open(os.path.join(out, 'results.json')) as f:
            r = json.load(f)
        self.assertEqual([q['point_index'] for q in r['points']], [0, 2])
        self.assertEqual(r['failed'], 1)

    def test_mpi_two_ranks_match_a_local_run(self):
        study = os.path.join(ROOT, 'configs', 's004_fhf.yaml')
        sets = ['--set', 'workloads.0.reps=100', '--set', 'sweep=[{path: workloads.0.size, values: [64B, 256B, 1500B]}]']
        a, b, one = os.path.join(self.d, 'mpi'), os.path.join(self.d, 'local'), os.path.join(self.d, 'one')
        # Without mpirun the process is a single rank: rank 0's own point
        # server runs every point.
        rc, _, err = run('run', study, '--mpi', '-q', '-o', one, *sets)
        if 'built without MPI' in err or not shutil.which('mpirun'):
            self.skipTest('hxsim built without MPI or no mpirun')
        self.assertEqual(rc, 0, err)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_btl='self,vader')
        p = subprocess.run(['mpirun', '--oversubscribe', '-np', '2', HXSIM, 'run', study, '--mpi', '-q', '-o', a, *sets],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        rc, _, err = run('run', study, '-q', '-j', '2', '-o', b, *sets)
        self.assertEqual(rc, 0, err)
        for f in ('results.json', 'results.csv'):
            for other, what in ((a, '--mpi on 2 ranks'), (one, '--mpi on 1 rank')):
                with open(os.path.join(other, f), 'rb') as fa, open(os.path.join(b, f), 'rb') as fb:
                    self.assertEqual(fa.read(), fb.read(), f + ' differs between ' + what + ' and a local run')
        with open(os.path.join(a, 'timing.json')) as f:
            t = json.load(f)
        self.assertEqual(t['jobs'], 'mpi')
        self.assertEqual([e['point'] for e in t['points']], [0, 1, 2])
        self.assertTrue(all(e['wall_s'] > 0 for e in t['points']))
        # --trace: each point's trace comes back from its rank, as a local run writes it.
        tr = ['--trace', '--trace-max', '500']
        p = subprocess.run(['mpirun', '--oversubscribe', '-np', '2', HXSIM, 'run', study, '--mpi', '-q', '-o', a, *sets, *tr],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        rc, _, err = run('run', study, '-q', '-j', '2', '-o', b, *sets, *tr)
        self.assertEqual(rc, 0, err)
        for k in range(3):
            f = os.path.join('points', '%d.trace.json' % k)
            with open(os.path.join(a, f), 'rb') as fa, open(os.path.join(b, f), 'rb') as fb:
                self.assertEqual(fa.read(), fb.read(), f + ' differs between --mpi and a local run')

    def test_mpi_ranks_report_their_points_progress(self):
        # Two points: the short one on rank 0's own server, the long one on
        # rank 1, whose progress must reach the log as rank 0's would.
        study = os.path.join(ROOT, 'configs', 'bench', 'ccnic_peak.yaml')
        rc, _, err = run('run', study, '--mpi', '-q', '-o', os.path.join(self.d, 'one'), '--set', 'workloads.0.packets=1000')
        if 'built without MPI' in err or not shutil.which('mpirun'):
            self.skipTest('hxsim built without MPI or no mpirun')
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', OMPI_MCA_btl='self,vader',
                   HXSIM_PROGRESS_EVERY='1')
        p = subprocess.run(['mpirun', '--oversubscribe', '-np', '2', HXSIM, 'run', study, '--mpi', '-o', os.path.join(self.d, 'mpi'),
                            '--set', 'sweep=[{path: workloads.0.packets, values: [1000, 1600000]}]'],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r'point 1: \d+% of its work at [\d.]+ (us|ms|s) simulated, ETA \d+s \(\d+s elapsed\)\n')

    def test_version_is_the_commit_built(self):
        # Read at build time: a build directory configured at an older
        # commit and rebuilt must not report that older commit.
        head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True)
        if head.returncode != 0:
            self.skipTest('not a git checkout')
        rc, version, err = run('--version')
        self.assertEqual(rc, 0, err)
        self.assertRegex(version.strip(), r'^hxsim \S+ \(%s(-dirty)?\)$' % head.stdout.strip())

    def test_trace_is_a_bounded_chrome_trace(self):
        study = os.path.join(ROOT, 'configs', 's001_latency.yaml')
        out = os.path.join(self.d, 'tr')
        rc, _, err = run('run', study, '-o', out, '-q', '--trace', '--trace-from', '1us', '--trace-to', '6us', '--trace-max', '8')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(out, 'points', '0.trace.json')) as f:
            t = json.load(f)
        spans = [e for e in t['traceEvents'] if e['ph'] == 'X']
        names = {e['tid']: e['args']['name'] for e in t['traceEvents'] if e['ph'] == 'M'}
        self.assertEqual(len(spans), 8)                        # bounded by --trace-max
        self.assertGreater(t['otherData']['dropped_events'], 0)
        self.assertTrue(all(1.0 <= e['ts'] < 6.0 and e['dur'] > 0 for e in spans))
        self.assertTrue(all(e['tid'] in names for e in spans))
        self.assertTrue(any(n.startswith('link ') for n in names.values()))
        rc, _, err = run('run', study, '-o', os.path.join(self.d, 'bad'), '--trace', '--trace-to', 'soon')
        self.assertEqual(rc, 2)
        self.assertFalse(os.path.exists(os.path.join(self.d, 'bad')))

    def test_topo_report_and_dot(self):
        dot = os.path.join(self.d, 't.dot')
        rc, out, err = run('topo', os.path.join(ROOT, 'topologies', 's001_rosta.yaml'), '--dot', dot)
        self.assertEqual(rc, 0, err)
        self.assertIn('host -> swA -> swB -> fpga0', out)
        self.assertIn('window 0x', out)
        self.assertIn('"swA" -- "swB"', open(dot).read())

    def test_topo_prints_the_sockets_graph_and_routes_through_sockets(self):
        with open(os.path.join(ROOT, 'topologies', 's002_spr.yaml')) as f:
            text = f.read()
        rc, out, err = run('topo', os.path.join(ROOT, 'topologies', 's002_spr.yaml'))
        self.assertEqual(rc, 0, err)
        self.assertIn('pairs: 0-1\n  every pair of sockets joined', out)
        ring = os.path.join(self.d, 'ring.yaml')
        with open(ring, 'w') as f:
            f.write(text.replace('      count: 2', '      count: 4\n      graph: ring').replace('      links: 4', '      links: 1'))
        rc, out, err = run('topo', ring)
        self.assertEqual(rc, 0, err)
        self.assertIn('4 x (4 cores, 4 LLC slices), 1 socket link a pair', out)
        self.assertIn('pairs: 0-1 1-2 2-3 3-0', out)
        for route in ('0 -> 1 -> 2', '1 -> 2 -> 3', '2 -> 1 -> 0', '3 -> 0 -> 1'):
            self.assertIn('\n    ' + route + '\n', out)
        dot = os.path.join(self.d, 'ring.dot')
        rc, _, err = run('topo', ring, '--dot', dot)
        self.assertEqual(rc, 0, err)
        text = open(dot).read()
        for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):
            self.assertIn('"host.socket%d" -- "host.socket%d" [style=bold' % (a, b), text)
        self.assertIn('"host" -- "host.socket0" [style=dashed]', text)

    def test_coherent_bandwidth_is_the_lines_in_flight_over_their_latency(self):
        # One core's loads of remote lines on Ice Lake's two sockets, with 1
        # and 4 in flight: no queueing (4 is below every credit count), so
        # the bandwidth is the lines in flight times 64 B over the latency.
        study = os.path.join(self.d, 'bw.yaml')
        with open(study, 'w') as f:
            f.write('study: bw\ntopology: %s\n'
                    'workloads: [{type: coh_bw, name: bw, op: rd, from: [0], home: 1, lines: 200, inflight: 1}]\n'
                    'sweep: [{path: workloads.0.inflight, values: [1, 4]}]\n' % os.path.join(ROOT, 'topologies', 's002_icx.yaml'))
        rc, _, err = run('run', study, '-o', os.path.join(self.d, 'bw'), '-q')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.d, 'bw', 'results.json')) as f:
            pts = json.load(f)['points']
        self.assertEqual(len(pts), 2)
        for p in pts:
            m, n = p['metrics'], p['point']['workloads.0.inflight']
            self.assertAlmostEqual(m['bw.median_ns'], m['bw.p99_ns'], delta=1.0)
            self.assertAlmostEqual(m['bw.GBps'], n * 64 / m['bw.mean_ns'], delta=0.02 * m['bw.GBps'])
            self.assertEqual(m['bw.link_messages_per_line'], 3)  # request, data, CompAck
            # Every load's stages, adding up to its latency; nothing waits for credits.
            b = p['breakdowns']['bw.rd_ns']
            self.assertEqual(b['transactions'], 200)
            self.assertAlmostEqual(sum(s['mean_ns'] for s in b['stages']), b['mean_ns'], delta=0.01)
            self.assertAlmostEqual(b['mean_ns'], m['bw.mean_ns'], delta=0.01)
            self.assertEqual(sum(s['mean_ns'] for s in b['stages'] if s['stage'] == 'credit'), 0)
            # The socket links' ends are resources: the data comes back from
            # socket 1, so its ends are the busiest and carry more than the
            # requests and acknowledgements sent the other way.
            res = p['resources']
            ends = {k: v for k, v in res['list'].items() if k.startswith('host.sockets.s') and '.link' in k}
            self.assertEqual(len(ends), 6, sorted(res['list']))  # ICX: three links each way
            self.assertTrue(res['busiest'].startswith('host.sockets.s1.link'), res['busiest'])
            self.assertIn('socket 1 to socket 0', ends[res['busiest']]['what'])
            busy = [sum(v['busy_ps'] for k, v in ends.items() if k.startswith('host.sockets.s%d.' % s)) for s in (0, 1)]
            self.assertGreater(busy[1], 2 * busy[0])
            span_ps = p['meta']['simulated_time_ns'] * 1000
            for v in ends.values():
                self.assertAlmostEqual(v['utilisation'], v['busy_ps'] / span_ps, delta=1e-6)

    def test_params_reference(self):
        rc, out, _ = run('params')
        self.assertEqual(rc, 0)
        for key in ('fc_update_every', 'posted_buffer', 'desc_gap_cycles', 'calypte_loopback'):
            self.assertIn(key, out)
        # Each parameter's range, as its declaration checks it.
        self.assertIn('| `gen` | int | `3` | 1 to 6 |', out)
        self.assertIn('| `rcb` | size | `64B` | 64B or 128B |', out)
        self.assertIn('| `llc_replacement` | choice | `lru` | lru, plru or random |', out)

    def test_bench_memory_is_each_points_own(self):
        # A bench_bw study of 2 M writes peaks below 50 MB (memory flat in
        # the number of commands), as the point itself measures it: the
        # point's rusage would carry the peak of the bench process that
        # started it.
        out = os.path.join(self.d, 'b.json')
        rc, _, err = run('bench', '--only', 'flat_bench', '--repeats', '1', '--json', out)
        self.assertEqual(rc, 0, err)
        with open(out) as f:
            scen = {x['name']: x for x in json.load(f)['scenarios']}
        s = scen['flat_bench_bw']
        self.assertGreater(s['peak_rss_mb'], 1)
        self.assertLess(s['peak_rss_mb'], 50)
        # The yardstick was probed on each CPU this process may use (up to
        # eight), and is the rate of the fastest, where the scenarios ran.
        k = scen['sc_kernel']
        cpus = sorted(os.sched_getaffinity(0))[:8]
        self.assertEqual(sorted(int(c) for c in k['notifications_per_s_by_cpu']), cpus)
        self.assertIn(k['cpu'], cpus)
        self.assertEqual(k['notifications_per_s'], max(k['notifications_per_s_by_cpu'].values()))
        self.assertEqual(k['notifications_per_s'], k['notifications_per_s_by_cpu'][str(k['cpu'])])
        # The scenario's ratio divides by the yardstick probed again just
        # before its run (a probe of its own, not the one at the start).
        self.assertGreater(s['kernel_notifications_per_s'], 0)
        self.assertAlmostEqual(s['tlp_hops_per_kernel_notification'],
                               s['tlp_hops_per_s'] / s['kernel_notifications_per_s'], places=12)
        self.assertNotEqual(s['kernel_notifications_per_s'], k['notifications_per_s'])


class Explain(unittest.TestCase):
    def run_and_explain(self, d, study, top, *sets):
        """Run configs/STUDY into D/w with --set SETS, explain it; the
        results directory, what explain printed and the points of its
        results.json."""
        out = os.path.join(d, 'w')
        args = [a for kv in sets for a in ('--set', kv)]
        rc, _, err = run('run', os.path.join(ROOT, 'configs', study + '.yaml'), '-o', out, '-q', *args)
        self.assertEqual(rc, 0, err)
        rc, text, err = run('explain', out, '--top', str(top))
        self.assertEqual(rc, 0, err)
        with open(os.path.join(out, 'results.json')) as f:
            return out, text, json.load(f)['points']

    def stages(self, p, name, transactions, mean_ns, places=3):
        """Point P's breakdown NAME, checked to hold TRANSACTIONS and to add
        up to MEAN_NS (to PLACES decimals): its mean per stage, by stage name."""
        bd = p['breakdowns'][name]
        self.assertEqual(bd['transactions'], transactions)
        self.assertAlmostEqual(sum(s['mean_ns'] for s in bd['stages']), mean_ns, places=places)
        return {s['stage']: s['mean_ns'] for s in bd['stages']}

    def assert_figures(self, out, names):
        for name in names:
            with open(os.path.join(out, 'explain', name), 'rb') as f:
                self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')

    def test_the_eight_fpga_write_is_bound_by_the_host_link(self):
        # S001 experiment 3: eight FPGAs writing at once share the x8 Gen2 link to the host.
        with tempfile.TemporaryDirectory() as d:
            out, text, points = self.run_and_explain(d, 's001_concurrent_write', 3, 'sweep.0.values=[1, 8]',
                                                     'workloads.0.bytes=512KiB')
            eight = text[text.index('workloads.0.count=8'):]
            self.assertIn('busiest: swA.up, link swA -> host (Gen2 x8)', eight)
            # One FPGA alone is bound by its own engine's datapath (8 B a
            # cycle at 250 MHz, headers included), just ahead of its own x4
            # Gen2 link, not by the shared one.
            one = text[:text.index('workloads.0.count=8')]
            self.assertIn('busiest: fpga0.rosta.datapath, DMA engine datapath', one)
            self.assertRegex(one, r'\n    fpga0\.up +[0-9.]+%  link fpga0 -> swB \(Gen2 x4\)')
            self.assert_figures(out, ['point_0.png', 'point_1.png'])

    def test_a_latency_study_is_broken_down_by_stage(self):
        # pcie-bench's write-then-read on the Haswell host: the read waits
        # for the write's commit, and the stages add up to the mean latency.
        with tempfile.TemporaryDirectory() as d:
            out, text, points = self.run_and_explain(d, 's011_lat_wrrd', 2, 'sweep.0.values=[64B, 1KiB]', 'workloads.0.reps=50')
            for p in points:
                st = self.stages(p, 'lat.LAT_DMA_WRRD_ns', 50, p['metrics']['lat.mean_ns'], places=6)
                self.assertGreater(st['ordering'], 0)
            self.assertIn('lat.LAT_DMA_WRRD_ns: %.1f ns mean over 50 transactions' % points[0]['metrics']['lat.mean_ns'], text)
            self.assertRegex(text, r'\n    ordering +[0-9.]+ ns')
            self.assert_figures(out, ['point_0.png', 'point_1.png', 'breakdown.png'])

    def test_a_lock_is_broken_down_on_both_sides(self):
        # S000's lock table with three host cores and the FPGA on eight
        # buckets: every timed lock's breakdown adds up to its side's mean;
        # a host core's waits for the holder are software, the FPGA's
        # waits and retries its own logic's (device) time.
        with tempfile.TemporaryDirectory() as d:
            out, text, points = self.run_and_explain(d, 's000_locks', 2, 'sweep.0.values=[queue]', 'sweep.1.values=[8]',
                                                     'sweep.2.zip.0.values=[3]', 'sweep.2.zip.1.values=[true]', 'workloads.0.locks=64')
            p = points[0]
            st = {}
            for side, n in (('host', 192), ('device', 64)):
                self.assertEqual(p['metrics']['locks.%s_starved' % side], 0)
                st[side] = self.stages(p, 'locks.%s_lock_ns' % side, n, p['metrics']['locks.%s_mean_ns' % side], places=6)
            host, device = st['host'], st['device']
            self.assertGreater(host['software'], 0)
            self.assertGreater(host['coherence'], 0)
            self.assertEqual(device['software'], 0)
            # The device's fixed part of a CAS is 100 ns of its own (the AXI
            # sequence and the response's way back); more is its waiting.
            self.assertGreater(device['device'], 100)
            self.assertIn('locks.host_lock_ns: %.1f ns mean over 192 transactions' % p['metrics']['locks.host_mean_ns'], text)
            self.assertRegex(text, r'\n    software +[0-9.]+ ns')

    def test_a_calypte_round_trip_is_broken_down_both_ways(self):
        # S004's FHF and HFH loops on the behavioural engine: the breakdown
        # follows one ledger across both directions (the pointer update the
        # host polls for, the header that releases the packet) and adds up
        # to the round trip's mean; the engine's part is its two pipelines
        # (12 cycles each at 250 MHz on this platform) and the F2H packet's
        # beats on its 256-bit bus, exactly.
        for mode in ('fhf', 'hfh'):
            with tempfile.TemporaryDirectory() as d:
                out, text, points = self.run_and_explain(d, 's004_' + mode, 3, 'sweep.0.values=[../topologies/s004_amd_gen3x8.yaml]',
                                                         'sweep.1.values=[64B,1500B]', 'workloads.0.reps=500')
                self.assertEqual(len(points), 2)
                for p, size in zip(points, (64, 1500)):
                    mean_ns = 1000 * p['histograms']['rt.%s_us' % mode]['mean']
                    self.assertAlmostEqual(p['breakdowns']['rt.%s_us' % mode]['mean_ns'], mean_ns, places=3)
                    st = self.stages(p, 'rt.%s_us' % mode, 500, mean_ns)
                    self.assertAlmostEqual(st['device'], 2 * 12 * 4 + (size + 31) // 32 * 4, places=6)
                    for s in ('software', 'memory', 'root_complex', 'serialisation', 'propagation'):
                        self.assertGreater(st[s], 0, s)
                    self.assertEqual(st['translation'], 0)
                    self.assertIn('rt.%s_us: %.1f ns mean over 500 transactions' % (mode, mean_ns), text)

    def test_the_rtl_calypte_engine_is_broken_down_beside_its_twin(self):
        # The synthesizable engine's cycles are one device stage, from the
        # user logic's send to its pointer update and from the releasing
        # header to the packet's first beat out: within two cycles of its
        # behavioural twin's pipelines, every other stage the fabric's.
        with tempfile.TemporaryDirectory() as d:
            out, _, points = self.run_and_explain(d, 's004_rtl', 1, 'sweep.2.values=[64B,256B]', 'workloads.0.reps=300')
            self.assertEqual(len(points), 8)
            device = {}
            for p in points:
                k = p['point']
                name = 'rt.%s_us' % k['workloads.0.mode']
                st = self.stages(p, name, 300, 1000 * p['histograms'][name]['mean'])
                device[(k['topology.nodes.card.calypte.model'], k['workloads.0.mode'], k['workloads.0.size'])] = st['device']
            for (model, mode, size), ns in device.items():
                if model == 'rtl':
                    self.assertLessEqual(abs(ns - device[('behavioural', mode, size)]), 8, (mode, size))

    def test_a_coyote_transfer_is_broken_down_with_its_mmu_misses(self):
        # S003's one-at-a-time 64 B transfer: the ledger goes out with the
        # invocation's last register write, through the MMU, the reads and
        # the loopback, and back with the writeback the host polls. The
        # shell's own cycles (command, loopback, done, one beat: 358 at
        # 250 MHz on this platform) and two hit translations (2 cycles each)
        # exactly; unmapped buffers miss once per page, and each miss's trip
        # through the driver (at least its 2 us of work) is translation.
        means = {}
        for mapped in ('true', 'false'):
            with tempfile.TemporaryDirectory() as d:
                out, text, points = self.run_and_explain(d, 's003_perf_local', 2, 'sweep.0.zip.0.values=[1GiB]', 'sweep.0.zip.1.values=[near]',
                                                         'sweep.1.zip.0.values=[lat]', 'sweep.1.zip.1.values=[50]', 'sweep.2.values=[64B]',
                                                         'workloads.0.mapped=' + mapped)
                p = points[0]
                mean_ns = 1000 * p['metrics']['perf.latency_us']
                st = self.stages(p, 'perf.latency_us', 50, mean_ns)
                self.assertAlmostEqual(st['device'], 358 * 4, places=6)
                for s in ('software', 'memory', 'root_complex', 'hard_block'):
                    self.assertGreater(st[s], 0, s)
                means[mapped] = st['translation']
                self.assertIn('perf.latency_us: %.1f ns mean over 50 transactions' % mean_ns, text)
        self.assertAlmostEqual(means['true'], 16, places=6)
        self.assertGreaterEqual(means['false'] * 50, 16 * 50 + 2 * 2000)

    def test_a_pcie_nic_packet_is_broken_down(self):
        # S002's E810 on PCIe, one packet in flight: each packet's ledger
        # opens when it is due, goes out with the doorbell, through the
        # descriptor and data reads, the NIC's port and loopback, and back
        # with its completion. The NIC's own part is its two engines, its
        # two pipelines, the loopback and the frame on a 100 Gb/s wire
        # (preamble, FCS and gap: 24 B), exactly; a sleeping receiver's
        # wake-up (3 us after the interrupt) is software.
        with tempfile.TemporaryDirectory() as d:
            out, text, points = self.run_and_explain(d, 's002_pcie_latency', 2, 'sweep.0.values=[e810]', 'workloads.0.packets=200')
            self.assertEqual(len(points), 4)
            sw = {}
            for p in points:
                size = int(p['point']['workloads.0.size'].rstrip('B'))
                st = self.stages(p, 'nic.latency_ns', 200, p['histograms']['nic.latency_ns']['mean'])
                self.assertAlmostEqual(st['device'], 2 * 5 + 2 * 250 + 10 + (max(size, 60) + 24) * 8 / 100, places=3)
                for s in ('hard_block', 'root_complex', 'memory', 'software'):
                    self.assertGreater(st[s], 0, s)
                sw[(size, p['point']['workloads.0.rx'])] = st['software']
            for size in (64, 1500):
                self.assertGreater(sw[(size, 'irq')] - sw[(size, 'poll')], 2500)
                self.assertLess(sw[(size, 'irq')] - sw[(size, 'poll')], 3000)

    def test_a_pcie_nic_that_drops_reports_its_drops(self):
        # The E810 with 1 KiB of RX buffer and interrupts moderated to one
        # per 20 us: packets that pile up beyond the buffer are dropped. The
        # drop rate is the NIC's drop counter over the packets sent; the
        # latencies, their count and their breakdown are of the packets
        # received, each one's stages adding up to its latency.
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        pts = run_study(self, d, 'study: drops\ntopology: %s\n'
                        'workloads: [{type: nic_loop, name: nic, nic: pcie, device: e810, rx: irq, ring: 128, batch: 32, size: 64B, '
                        'mode: open, load: 8, packets: 3000, warmup: 100}]\n'
                        'sweep: [{path: topology.nodes.e810.nic.rx_buffer, values: [0B, 1KiB]}]\n'
                        % os.path.join(ROOT, 'topologies', 's002_icx.yaml'),
                        '--set', 'topology.nodes.e810.nic.irq_interval=20us')
        self.assertEqual(len(pts), 2)
        unlimited, small = pts
        self.assertEqual(unlimited['metrics']['nic.drop_rate'], 0)
        self.assertNotIn('e810.nic.rx_drops', unlimited['stats'])
        self.assertGreater(unlimited['stats']['e810.nic.rx_waits']['value'], 0)  # it would have dropped
        self.assertEqual(unlimited['histograms']['nic.latency_ns']['count'], 3000)
        drops = small['stats']['e810.nic.rx_drops']['value']
        self.assertGreater(drops, 0)
        self.assertAlmostEqual(small['metrics']['nic.drop_rate'], drops / 3100, places=12)
        received = small['histograms']['nic.latency_ns']['count']
        self.assertLess(received, 3000)
        self.assertGreaterEqual(received, 3000 - drops)
        b = small['breakdowns']['nic.latency_ns']
        self.assertEqual(b['transactions'], received)
        self.assertAlmostEqual(sum(s['mean_ns'] for s in b['stages']), b['mean_ns'], delta=0.01)

    def test_a_coherent_nic_reports_its_batches(self):
        # Each side's mean batch: at peak every batch is full (3,200 packets
        # in batches of 32 on the host, the NIC taking what is there up to
        # 32); under an open load of 12 Mpps a host core whose stores wait
        # for their lines falls behind and batches, one with a store buffer
        # (design note 88) does not.
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        pts = {}
        for mode, load in (('peak', ''), ('open', ', load: 12')):
            os.mkdir(os.path.join(d, mode))
            for p in run_study(self, os.path.join(d, mode),
                               'study: %s\ntopology: %s\n'
                               'workloads: [{type: nic_loop, name: nic, nic: ccnic, per_line: 4, batch: 32, size: 64B, mode: %s%s, '
                               'packets: 3168, warmup: 32}]\n'
                               'sweep: [{path: topology.nodes.host.sockets.store_buffer, values: [0, 72]}]\n'
                               % (mode, os.path.join(ROOT, 'topologies', 's002_icx.yaml'), mode, load)):
                pts[(mode, p['point']['topology.nodes.host.sockets.store_buffer'])] = p['metrics']
        for sb in (0, 72):
            self.assertEqual(pts[('peak', sb)]['nic.host_batch'], 32)
            self.assertGreater(pts[('peak', sb)]['nic.nic_batch'], 1)
            self.assertLessEqual(pts[('peak', sb)]['nic.nic_batch'], 32)
        self.assertEqual(pts[('open', 72)]['nic.host_batch'], 1)
        self.assertGreater(pts[('open', 0)]['nic.host_batch'], 2)
        self.assertLess(pts[('open', 72)]['nic.median_ns'], pts[('open', 0)]['nic.median_ns'])

    def test_a_coherent_nic_packet_is_broken_down_by_step(self):
        # S002's NICs on the socket interconnect, one packet in flight: the
        # host cores' driver work (20 ns a packet each side) and the NIC
        # engine's (20 ns) are software and device, every line transfer
        # coherence; the E810's tail registers cost more transfers than
        # CC-NIC's signal inside the descriptor line.
        with tempfile.TemporaryDirectory() as d:
            out, text, points = self.run_and_explain(d, 's002_nic_latency', 1, 'sweep.0.values=[../topologies/s002_icx.yaml]',
                                                     'sweep.2.values=[64B]', 'workloads.0.packets=300')
            coh = {}
            for p in points:
                mean_ns = p['histograms']['nic.latency_ns']['mean']
                st = self.stages(p, 'nic.latency_ns', 300, mean_ns)
                self.assertGreaterEqual(st['software'], 40)
                self.assertGreaterEqual(st['device'], 20)
                self.assertAlmostEqual(st['software'] + st['device'] + st['coherence'], mean_ns, places=3)
                coh[p['point']['workloads.0.nic']] = st['coherence']
            self.assertGreater(coh['e810_upi'], coh['ccnic'] + 100)

    def test_an_mmio_read_is_broken_down(self):
        # A core's UC read of a NIC register: out through the root complex,
        # the register file's latency at the device, the completion back.
        with tempfile.TemporaryDirectory() as d:
            out, text, points = self.run_and_explain(d, 's002_mmio', 2, 'workloads.0.reps=50')
            for p in points:
                st = self.stages(p, 'mmio.read_ns', 50, p['histograms']['mmio.read_ns']['mean'])
                for s in ('device', 'hard_block', 'propagation', 'root_complex'):
                    self.assertGreater(st[s], 0, s)
                self.assertEqual(st['memory'] + st['software'], 0)
            self.assertIn('mmio.read_ns: %.1f ns mean over 50 transactions' % points[0]['histograms']['mmio.read_ns']['mean'], text)

    def test_an_rtl_designs_register_read_is_broken_down(self):
        # A design of your own answers the host's read of its ID register
        # on its completer stream: its cycles are the device's, the rest
        # the fabric's and the root complex's, adding up to the mean.
        with tempfile.TemporaryDirectory() as d:
            p = run_study(self, d, 'study: rtl_mmio\n'
                          'topology:\n'
                          '  platform: rtl_mmio\n'
                          '  nodes:\n'
                          '    host: {type: root_complex}\n'
                          '    fpga:\n'
                          '      type: endpoint\n'
                          '      device: rtl\n'
                          '      endpoint: {bar_size: 64KiB}\n'
                          '      rtl: {sources: [%s], top: desc_dma, parameters: {DATA_W: 128}, data_width: 128, clock: 250MHz}\n'
                          '  links:\n'
                          '    - {up: host, down: fpga, gen: 3, width: 8}\n'
                          'workloads:\n'
                          '  - {type: mmio_lat, name: id, device: fpga, offset: 28B, size: 4B, reps: 50}\n'
                          % os.path.join(ROOT, 'tests', 'rtl', 'desc_dma.sv'))[0]
            st = self.stages(p, 'id.read_ns', 50, p['histograms']['id.read_ns']['mean'])
            for s in ('device', 'hard_block', 'root_complex'):
                self.assertGreater(st[s], 0, s)

    def test_a_directory_without_results_is_bad_input(self):
        with tempfile.TemporaryDirectory() as d:
            rc, _, err = run('explain', d)
            self.assertEqual(rc, 2)
            self.assertIn('results.json: no such file', err)
            self.assertEqual(err.count('\n'), 1)


class Validate(unittest.TestCase):
    def test_missetting_a_parameter_fails_naming_the_cases(self):
        d = tempfile.mkdtemp()
        try:
            cases = [os.path.join(ROOT, 'validation', 'cases', c + '.yaml') for c in ('s001_latency', 's001_p2p')]
            rc, out, err = run('validate', *cases, '--work', d, '-j', '2')
            self.assertEqual(rc, 0, out + err)
            rc, out, err = run('validate', *cases, '--work', d, '-j', '2', '--set', 'topology.defaults.switch.latency=300ns')
            self.assertEqual(rc, 1, out + err)
            self.assertIn('cases outside tolerance: s001_latency', out)
            with open(os.path.join(d, 'validation_report.json')) as f:
                rep = json.load(f)
            self.assertEqual(rep['summary']['failed'], 1)
            self.assertEqual({c['id'] for c in rep['cases'] if not c['pass']}, {'s001.lat.p2p.1sw'})
        finally:
            shutil.rmtree(d)


    def test_tolerance_logic_and_report_format(self):
        # One study (S001 one-switch latency, 706.2 ns simulated) checked
        # against made-up references of each provenance.
        d = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(d, 'reference'))
            os.makedirs(os.path.join(d, 'cases'))
            with open(os.path.join(d, 'reference', 't.yaml'), 'w') as f:
                f.write('source: T\nrecords:\n'
                        '  - {id: t.exact.in, value: 700, unit: ns, prov: exact}\n'          # +0.9%, default 5%
                        '  - {id: t.exact.out, value: 650, unit: ns, prov: exact}\n'         # +8.6% > 5%
                        '  - {id: t.approx.in, value: 650, unit: ns, prov: approx}\n'        # +8.6% <= 10%
                        '  - {id: t.range.in, value: [700, 710], unit: ns, prov: range}\n'
                        '  - {id: t.range.out, value: [710, 720], unit: ns, prov: range}\n'
                        '  - {id: t.tight, value: 700, unit: ns, prov: exact, tolerance_pct: 0.5}\n'
                        '  - {id: t.gap, value: 600, unit: ns, prov: exact}\n')
            study = os.path.join(ROOT, 'configs', 's001_latency.yaml')
            checks = ''.join('  - {ref: %s, point: {workloads.0.to: fpga1}, metric: one_switch.one_way_ns%s}\n'
                             % (i, ', known_gap: explained' if i == 't.gap' else '')
                             for i in ('t.exact.in', 't.exact.out', 't.approx.in', 't.range.in', 't.range.out', 't.tight', 't.gap'))
            with open(os.path.join(d, 'cases', 'c.yaml'), 'w') as f:
                f.write('case: c\nstudy: %s\nchecks:\n%s' % (study, checks))
            rc, out, err = run('validate', '--cases-dir', os.path.join(d, 'cases'), '--work', os.path.join(d, 'w'),
                               '--report', os.path.join(d, 'rep'))
            self.assertEqual(rc, 1, out + err)
            with open(os.path.join(d, 'rep.json')) as f:
                rep = json.load(f)
            status = {c['id']: c['status'] for c in rep['cases']}
            self.assertEqual(status, {'t.exact.in': 'pass', 't.exact.out': 'FAIL', 't.approx.in': 'pass', 't.range.in': 'pass',
                                      't.range.out': 'FAIL', 't.tight': 'FAIL', 't.gap': 'XFAIL'})
            for c in rep['cases']:
                for k in ('id', 'reference', 'simulated', 'unit', 'error_pct', 'tolerance_pct', 'pass'):
                    self.assertIn(k, c)
            self.assertEqual(rep['summary']['failed'], 3)
            self.assertEqual(rep['summary']['known_gaps'], 1)
            self.assertIn('T', rep['summary']['by_source'])
            self.assertTrue(os.path.exists(os.path.join(d, 'rep.md')))
        finally:
            shutil.rmtree(d)


    def test_a_bad_analytic_peer_stops_before_any_study_runs(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'reference'))
            os.makedirs(os.path.join(d, 'cases'))
            with open(os.path.join(d, 'reference', 't.yaml'), 'w') as f:
                f.write('source: T\nrecords:\n  - {id: t.bw, value: 700, unit: MiB/s, prov: exact}\n')
            study = os.path.join(ROOT, 'configs', 's001_latency.yaml')
            with open(os.path.join(d, 'cases', 'c.yaml'), 'w') as f:
                f.write('case: c\nstudy: %s\nchecks:\n  - {ref: t.bw, metric: m,\n'
                        '     analytic: {model: pcie_loopback, gen: 3, width: 16, payload: 64, header: 16, mps: 128,'
                        ' mrrs: 512, cpl: 0, unit: MiB/s}}\n' % study)
            rc, out, err = run('validate', '--cases-dir', os.path.join(d, 'cases'), '--work', os.path.join(d, 'w'))
            self.assertEqual(rc, 2, out + err)
            self.assertIn('c.yaml:5:', err)
            self.assertIn('checks.0.analytic.cpl', err)
            self.assertNotIn('validate: c', err)  # the study never ran
            self.assertFalse(os.path.exists(os.path.join(d, 'w')))

    def test_ratio_and_first_at_most_checks(self):
        # S000 miss vs hit at three sizes: a check may compare a point with
        # another ('over') and ask for the first size where that ratio falls
        # to a bound ('first_at_most'), in the reference's unit.
        d = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(d, 'reference'))
            os.makedirs(os.path.join(d, 'cases'))
            with open(os.path.join(d, 'study.yaml'), 'w') as f:
                f.write('study: t\ntopology: %s\n'
                        'workloads:\n  - {type: bench_lat, name: lat, device: au280, op: rd, size: 64B, window: 64KiB, '
                        'pattern: fresh, reps: 50}\n'
                        'sweep:\n  - {path: workloads.0.pattern, values: [fresh, seq]}\n'
                        '  - {path: workloads.0.size, values: [64B, 16KiB, 32KiB]}\n'
                        # the board's DMA engine, through its ATS switch
                        '  - {path: topology.nodes.au280.ccix_ra.dma_translates, values: [true]}\n'
                        % os.path.join(ROOT, 'topologies', 's000_n1sdp_au280.yaml'))
            with open(os.path.join(d, 'reference', 't.yaml'), 'w') as f:
                f.write('source: T\nrecords:\n'
                        '  - {id: t.factor, value: 3, unit: x, prov: approx, tolerance_pct: 20}\n'
                        '  - {id: t.from2, value: 32, unit: KB, prov: exact}\n'
                        '  - {id: t.from3, value: 16, unit: KiB, prov: exact}\n'
                        '  - {id: t.never, value: 1, unit: KiB, prov: exact}\n')
            over = "over: {workloads.0.pattern: seq}"
            along = "point: {workloads.0.pattern: fresh}, metric: lat.median_ns, " + over
            with open(os.path.join(d, 'cases', 'c.yaml'), 'w') as f:
                f.write('case: c\nstudy: ../study.yaml\nchecks:\n'
                        '  - {ref: t.factor, point: {workloads.0.pattern: fresh, workloads.0.size: 64B}, metric: lat.median_ns, %s}\n'
                        '  - {ref: t.from2, %s, first_at_most: {axis: workloads.0.size, value: 2}}\n'
                        '  - {ref: t.from3, %s, first_at_most: {axis: workloads.0.size, value: 3}}\n'
                        '  - {ref: t.never, %s, first_at_most: {axis: workloads.0.size, value: 1}}\n' % (over, along, along, along))
            rc, out, err = run('validate', '--cases-dir', os.path.join(d, 'cases'), '--work', os.path.join(d, 'w'),
                               '--report', os.path.join(d, 'rep'))
            self.assertEqual(rc, 1, out + err)  # t.never finds no size
            with open(os.path.join(d, 'w', 'c', 'results.json')) as f:
                lat = {(p['point']['workloads.0.pattern'], p['point']['workloads.0.size']): p['metrics']['lat.median_ns']
                       for p in json.load(f)['points']}
            factor = {s: lat[('fresh', s)] / lat[('seq', s)] for s in ('64B', '16KiB', '32KiB')}
            size = {'64B': 64, '16KiB': 16384, '32KiB': 32768}
            first = lambda b: next(s for s in ('64B', '16KiB', '32KiB') if factor[s] <= b)
            with open(os.path.join(d, 'rep.json')) as f:
                rep = {c['id']: c for c in json.load(f)['cases']}
            self.assertAlmostEqual(rep['t.factor']['simulated'], factor['64B'])
            self.assertAlmostEqual(rep['t.from2']['simulated'], size[first(2)] / 1000)   # KB
            self.assertAlmostEqual(rep['t.from3']['simulated'], size[first(3)] / 1024)   # KiB
            self.assertNotEqual(first(2), first(3))  # the bound moves the answer
            self.assertEqual(rep['t.never']['status'], 'no-point')
            # The swept axis cannot also be fixed: an input error before anything runs.
            with open(os.path.join(d, 'cases', 'c.yaml'), 'a') as f:
                f.write('  - {ref: t.from2, point: {workloads.0.size: 64B}, metric: lat.median_ns, '
                        'first_at_most: {axis: workloads.0.size, value: 2}}\n')
            rc, out, err = run('validate', '--cases-dir', os.path.join(d, 'cases'), '--work', os.path.join(d, 'w2'))
            self.assertEqual(rc, 2, out + err)
            self.assertFalse(os.path.exists(os.path.join(d, 'w2')))
            self.assertIn('c.yaml:8:', err)
            self.assertIn('must not also be fixed', err)
            # A size found along an axis needs a reference in a size unit.
            with open(os.path.join(d, 'cases', 'c.yaml'), 'w') as f:
                f.write('case: c\nstudy: ../study.yaml\nchecks:\n'
                        '  - {ref: t.factor, %s, first_at_most: {axis: workloads.0.size, value: 2}}\n' % along)
            rc, out, err = run('validate', '--cases-dir', os.path.join(d, 'cases'), '--work', os.path.join(d, 'w2'))
            self.assertEqual(rc, 2, out + err)
            self.assertIn('c.yaml:4:', err)
            self.assertIn("unit 'x' is not a size", err)
            self.assertFalse(os.path.exists(os.path.join(d, 'w2')))
        finally:
            shutil.rmtree(d)


class HostCaches(unittest.TestCase):
    def test_dma_writes_keep_a_window_in_ddios_share_of_the_llc(self):
        # S011's Broadwell host, LAT_DMA_WRRD on a buffer homed on the other
        # socket: a write whose line the near LLC lacks crosses for
        # ownership (far), one that finds it there does not (near). The
        # timed transactions find the window in the near LLC only after the
        # untimed ones of a long run have written it there, and only as far
        # as the DMA writes' two ways of the 20 (2.5 of 25 MiB) hold it.
        with tempfile.TemporaryDirectory() as d:
            pts = run_study(self, d, 'study: wrrd\ntopology: %s\n'
                            'workloads: [{type: bench_lat, name: lat, device: nfp, op: wrrd, size: 64B, pattern: rand, reps: 400, '
                            'node: far, host_cache: cold}]\n'
                            'sweep:\n'
                            '  - {path: workloads.0.window, values: [1MiB, 16MiB]}\n'
                            '  - {path: workloads.0.untimed, values: [0, 2097152]}\n'
                            '  - {path: topology.nodes.host.memory.ddio_ways, values: [2, 20]}\n'
                            % os.path.join(ROOT, 'topologies', 's011_bdw_e5_2630v4.yaml'), '-j', '2')
            med = {(p['point']['workloads.0.window'], p['point']['workloads.0.untimed'],
                    p['point']['topology.nodes.host.memory.ddio_ways']): p['metrics']['lat.median_ns'] for p in pts}
            near, far = med[('1MiB', 2097152, 2)], med[('1MiB', 0, 2)]
            self.assertGreater(far - near, 80)  # ownership from socket 1: the socket link both ways, 107 ns
            # Without the untimed transactions 400 draws from 16 Ki lines mostly touch a line first.
            self.assertEqual(med[('1MiB', 0, 20)], far)
            # 16 MiB: beyond DDIO's 2.5 MiB the median write crosses; with every way it stays near.
            self.assertEqual(med[('16MiB', 2097152, 2)], far)
            self.assertEqual(med[('16MiB', 2097152, 20)], near)


class Platforms(unittest.TestCase):
    def test_one_n1sdp_for_both_s000_boards(self):
        # S000's two boards sit in the same host: the VCK5000 platform's host
        # section (and link defaults) must stay the AU280 platform's, text for
        # text, or a calibration of one would silently not reach the other.
        def host(board):
            text = open(os.path.join(ROOT, 'topologies', 's000_n1sdp_%s.yaml' % board)).read()
            return text[text.index('link_defaults:'):text.index('\n  %s:\n' % board)]
        au, vck = host('au280'), host('vck5000')
        self.assertIn('ccix:', au)
        self.assertEqual(au, vck)


class Golden(unittest.TestCase):
    def test_platforms_match_golden(self):
        cases = json.load(open(os.path.join(ROOT, 'tests', 'golden', 'cases.json')))
        d = tempfile.mkdtemp()
        try:
            for name, c in cases.items():
                with self.subTest(platform=name):
                    sets = sum((['--set', s] for s in c['set']), [])
                    out = os.path.join(d, name)
                    rc, _, err = run('run', os.path.join(ROOT, c['study']), '-o', out, '-q', '-j', '2', *sets)
                    self.assertEqual(rc, 0, err)
                    got = json.load(open(os.path.join(out, 'results.json')))['points']
                    gold = json.load(open(os.path.join(ROOT, 'tests', 'golden', name + '.json')))
                    self.assertEqual(len(got), len(gold))
                    for g, p in zip(gold, got):
                        for m, v in g['metrics'].items():
                            tol = c.get('tolerance_pct', 1.0) / 100.0 * max(abs(v), 1e-12)
                            self.assertAlmostEqual(p['metrics'][m], v, delta=tol, msg=f'{name} point {g["point"]} {m}')
        finally:
            shutil.rmtree(d)


if __name__ == '__main__':
    unittest.main(verbosity=2)
