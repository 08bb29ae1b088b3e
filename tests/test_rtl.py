#!/usr/bin/python3
"""Co-simulating a design of your own (`device: rtl`, docs/rtl.md): a
study in an empty directory holding only a .sv file, a topology and a
study, run with the installed hxsim; the copied data checked byte for byte
with the protocol checkers on; the clocking contract held against a
free-running clock; every data width; corrupted data, protocol violations,
designs that do not build or do not fit, and edited designs. The same for
a second design on the UltraScale+ hard block's interfaces (CQ, CC, RQ, RC),
and for the in-tree engine on the same generic path.

Usage: test_rtl.py HXSIM BUILD_DIR [unittest args]"""
import json, os, re, shutil, subprocess, sys, tempfile, unittest

HXSIM = os.path.abspath(sys.argv.pop(1))
BUILD = os.path.abspath(sys.argv.pop(1))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGN = os.path.join(ROOT, 'tests', 'rtl', 'desc_dma.sv')
USP_DESIGN = os.path.join(ROOT, 'tests', 'rtl', 'usp_dma.sv')
# One cache for the whole run: each distinct design is built once.
os.environ.setdefault('HXSIM_RTL_CACHE', os.path.join(BUILD, 'rtl-cache'))

TOPOLOGY = '''platform: byo
description: a host and my DMA engine
nodes:
  host:
    type: root_complex
  fpga:
    type: endpoint
    device: rtl
    endpoint: {bar_size: 64KiB}
    rtl:
      sources: [desc_dma.sv]
      top: desc_dma
      parameters: {DATA_W: 128}
      data_width: 128
      clock: 250MHz
links:
  - {up: host, down: fpga, gen: 3, width: 8}
'''

# Two descriptors of 4 KiB each: host src -> card RAM -> host dst.
STUDY = '''study: byo_copy
topology: topo.yaml
workloads:
  - type: rtl_script
    name: copy
    device: fpga
    buffers: {ring: 4KiB, src: 8KiB, dst: 8KiB, status: 64B}
    steps:
      - fill: {at: src, bytes: 8192, pattern: 7}
      - fill: {at: dst, bytes: 8192, value: 0}
      - mmio_read: {offset: 0x1c, expect: 0x48584453}
      - loop:
          count: 2
          var: i
          steps:
            - write_mem: {at: ring+32*i, u64: [src+4096*i, dst+4096*i]}
            - write_mem: {at: ring+32*i+16, u32: [4096, 1]}
      - mmio_write: {offset: 0x00, u64: ring}
      - mmio_write: {offset: 0x14, u64: status}
      - mmio_write: {offset: 0x08, u32: 2}
      - mark: doorbell
      - mmio_write: {offset: 0x0c, u32: 1}
      - wait_msi: 0
      - poll_mem: {at: status, u32: 2}
      - mark: done
      - mmio_read: {offset: 0x10, expect: 2}
      - check_mem: {at: dst, bytes: 8192, equals: src}
      - check_mem: {at: dst, bytes: 8192, pattern: 7}
'''


def run(exe, *args, cwd):
    p = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=900)
    return p.returncode, p.stdout, p.stderr


class OwnDesign(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        shutil.copy(DESIGN, self.d)
        self.write('topo.yaml', TOPOLOGY)
        self.write('study.yaml', STUDY)

    def tearDown(self):
        shutil.rmtree(self.d)

    def write(self, name, text):
        with open(os.path.join(self.d, name), 'w') as f:
            f.write(text)

    def go(self, *extra, out='out', exe=HXSIM):
        return run(exe, 'run', 'study.yaml', '-o', out, '-q', *extra, cwd=self.d)

    def point(self, out='out'):
        with open(os.path.join(self.d, out, 'results.json')) as f:
            return json.load(f)['points'][0]

    def test_a_design_from_an_empty_directory_with_the_installed_hxsim(self):
        prefix = tempfile.mkdtemp()
        try:
            p = subprocess.run(['cmake', '--install', BUILD, '--prefix', prefix], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            exe = os.path.join(prefix, 'bin', 'hxsim')
            rc, _, err = self.go(exe=exe)
            self.assertEqual(rc, 0, err)
        finally:
            shutil.rmtree(prefix)
        pt = self.point()
        m = pt['metrics']
        self.assertEqual(m['copy.checked_bytes'], 16384)  # both check_mem steps passed
        self.assertEqual(m['copy.mmio_reads'], 2)         # answered by the design
        self.assertGreater(m['copy.done_ns'], m['copy.doorbell_ns'])
        s = pt['stats']
        # 2 descriptor reads, 2 x 32 source reads of 128 B, 2 x 32 writes, 2 status writes, 2 MSIs, 2 register completions
        self.assertEqual(s['fpga.rtl.tx_tlps']['value'], 2 + 64 + 64 + 2 + 2)
        self.assertEqual(s['fpga.rtl.msis']['value'], 2)
        self.assertGreater(s['fpga.rtl.rtl_cycles']['value'], 1000)

    def test_the_clocking_contract_holds_against_a_free_running_clock(self):
        rc, _, err = self.go()
        self.assertEqual(rc, 0, err)
        rc, _, err = self.go('--set', 'topology.nodes.fpga.rtl.free_running=true', out='free')
        self.assertEqual(rc, 0, err)
        gated, free = self.point(), self.point('free')
        self.assertEqual(gated['metrics'], free['metrics'])
        self.assertLess(gated['stats']['fpga.rtl.rtl_cycles']['value'], free['stats']['fpga.rtl.rtl_cycles']['value'])

    def test_every_data_width(self):
        for w in (64, 256, 512):
            rc, _, err = self.go('--set', f'topology.nodes.fpga.rtl.parameters.DATA_W={w}',
                                 '--set', f'topology.nodes.fpga.rtl.data_width={w}', out=f'w{w}')
            self.assertEqual(rc, 0, f'{w}: {err}')
            self.assertEqual(self.point(f'w{w}')['metrics']['copy.checked_bytes'], 16384)

    def test_a_corrupted_completion_byte_is_caught(self):
        rc, _, err = self.go('--set', 'topology.nodes.fpga.rtl.inject_completion_error=true')
        self.assertEqual(rc, 3, err)
        self.assertIn('payload check failed on an MMIO read completion', err)

    def test_a_wrong_copy_is_caught_at_its_step(self):
        self.write('study.yaml', STUDY.replace('check_mem: {at: dst, bytes: 8192, pattern: 7}',
                                               'check_mem: {at: dst, bytes: 8192, pattern: 8}'))
        rc, _, err = self.go()
        self.assertEqual(rc, 3, err)
        self.assertRegex(err, r'study\.yaml:\d+:\d+: workloads\.0\.steps\.\d+\.check_mem: byte 0 at 0x')

    def test_the_bench_times_the_design_bare_on_the_same_work(self):
        # hxsim bench's rtl_generic: the co-simulation's rate beside the bare
        # design's, clocked with its inputs still and replaying the inputs
        # a recorded run gave it, cycle by cycle.
        rc, _, err = run(HXSIM, 'bench', '--only', 'rtl_generic', '--repeats', '1', '--json', 'b.json', cwd=self.d)
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.d, 'b.json')) as f:
            s = {x['name']: x for x in json.load(f)['scenarios']}['rtl_generic']
        self.assertEqual(s['rtl_cycles'], 1107013)
        for k in ('rtl_cycles_per_s', 'rtl_raw_cycles_per_s', 'rtl_replay_cycles_per_s'):
            self.assertGreater(s[k], 1e5, k)
        self.assertAlmostEqual(s['rtl_share_of_replay'], s['rtl_cycles_per_s'] / s['rtl_replay_cycles_per_s'])
        self.assertEqual([f for f in os.listdir(self.d) if 'rtl-inputs' in f], [])

    def test_waves_are_written(self):
        rc, _, err = self.go('--set', 'topology.nodes.fpga.rtl.wave=dma.vcd')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.d, 'dma.vcd')) as f:
            vcd = f.read()
        self.assertIn('$enddefinitions', vcd)
        self.assertIn('tx_req_valid', vcd)
        self.assertGreater(vcd.count('\n#'), 100)  # time steps

    def edit_reruns(self, design, points, study='study.yaml'):
        """Run, rerun (all reused), edit `design`, rerun: nothing reused."""
        for reused in (None, points):
            rc, out, err = run(HXSIM, 'run', study, '-o', 'out', cwd=self.d)
            self.assertEqual(rc, 0, err)
            if reused:
                self.assertIn(f'({reused} reused)', out + err)
        with open(os.path.join(self.d, design), 'a') as f:
            f.write('// an edit\n')
        rc, out, err = run(HXSIM, 'run', study, '-o', 'out', cwd=self.d)
        self.assertEqual(rc, 0, err)
        self.assertIn('(0 reused)', out + err)

    def test_an_edited_design_is_run_again(self):
        self.edit_reruns('desc_dma.sv', 1)

    def test_a_design_a_sweep_switches_to_is_fingerprinted_by_content(self):
        # The project in a folder of its own, run from the folder above: the
        # sweep's file names are relative to the study, as its topology is.
        os.mkdir(os.path.join(self.d, 'proj'))
        for f in ('desc_dma.sv', 'topo.yaml'):
            shutil.move(os.path.join(self.d, f), os.path.join(self.d, 'proj', f))
        shutil.copy(os.path.join(self.d, 'proj', 'desc_dma.sv'), os.path.join(self.d, 'proj', 'other.sv'))
        self.write('proj/study.yaml', STUDY +
                   "sweep:\n  - {path: topology.nodes.fpga.rtl.sources, values: [[desc_dma.sv], [other.sv]]}\n")
        self.edit_reruns('proj/other.sv', 2, study='proj/study.yaml')  # the design only the sweep names

    def expect_bad(self, needle, pattern):
        rc, _, err = self.go()
        self.assertEqual(rc, 2, err)
        self.assertIn(needle, err)
        self.assertRegex(err, pattern)
        self.assertFalse(os.path.exists(os.path.join(self.d, 'out')), 'bad input left output behind')

    def test_a_design_that_does_not_build_is_bad_input(self):
        with open(os.path.join(self.d, 'desc_dma.sv'), 'a') as f:
            f.write('module broken(input logic a) assign b = ; endmodule\n')
        self.expect_bad('Verilator rejected the design', r'topo\.yaml:\d+:\d+: nodes\.fpga\.rtl\.sources')
        self.expect_bad('desc_dma.sv:', r'desc_dma\.sv:\d+')

    def test_a_design_without_the_interface_is_bad_input(self):
        with open(os.path.join(self.d, 'desc_dma.sv')) as f:
            text = f.read()
        self.write('desc_dma.sv', text.replace('input  logic                tx_cpl_ready,', '').replace('tx_cpl_ready', "1'b1"))
        self.expect_bad('no port tx_cpl_ready', r'topo\.yaml:\d+:\d+: nodes\.fpga\.rtl\.top')

    def test_a_tool_that_does_not_finish_is_stopped(self):
        # An empty cache: the tools must run (their versions first).
        cache = os.path.join(self.d, 'cache')
        for limit, pattern in (('0.001', r'topo\.yaml:\d+:\d+: nodes\.fpga\.rtl\.sources: \S+ did not finish within 0\.001 s'),
                               ('soon', r"HXSIM_RTL_BUILD_TIMEOUT is 'soon'")):
            p = subprocess.run([HXSIM, 'run', 'study.yaml', '-o', 'out', '-q'], cwd=self.d, capture_output=True, text=True,
                               timeout=300, env=dict(os.environ, HXSIM_RTL_BUILD_TIMEOUT=limit, HXSIM_RTL_CACHE=cache))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertRegex(p.stderr, pattern)
            self.assertFalse(os.path.exists(os.path.join(self.d, 'out')))

    def test_the_tools_versions_are_asked_once_until_a_tool_changes(self):
        # A verilator of its own on the PATH, which logs its calls: a new
        # tool file, so the cache holds no versions for it yet.
        tools = os.path.join(self.d, 'tools')
        os.mkdir(tools)
        calls = os.path.join(self.d, 'calls')
        wrapper = os.path.join(tools, 'verilator')
        with open(wrapper, 'w') as f:
            f.write('#!/bin/sh\necho "$@" >> %s\nexec %s "$@"\n' % (calls, shutil.which('verilator')))
        os.chmod(wrapper, 0o755)
        env = dict(os.environ, PATH=tools + os.pathsep + os.environ['PATH'])

        def calls_after(out):
            p = subprocess.run([HXSIM, 'run', 'study.yaml', '-o', out, '-q'], cwd=self.d, capture_output=True, text=True,
                               timeout=900, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(calls) as f:
                lines = [line.split()[0] for line in f if line.strip()]
            return lines.count('--version'), lines.count('--cc')  # versions asked, designs verilated

        asked, built = calls_after('a')  # the design may be built here, in a cache no other test filled yet
        self.assertEqual(asked, 1)
        self.assertEqual(calls_after('b'), (1, built))  # the versions kept: not asked again
        st = os.stat(wrapper)
        os.utime(wrapper, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # the tool changed
        # Asked again; the same versions name the same library: no second build.
        self.assertEqual(calls_after('c'), (2, built))
        self.assertEqual(self.point('a')['metrics'], self.point('c')['metrics'])

    def test_a_missing_source_is_bad_input(self):
        self.write('topo.yaml', TOPOLOGY.replace('[desc_dma.sv]', '[nowhere.sv]'))
        self.expect_bad('no such file', r'topo\.yaml:11:\d+: nodes\.fpga\.rtl\.sources\.0')

    def test_script_mistakes_are_bad_input_at_their_place(self):
        cases = [
            (STUDY.replace('write_mem: {at: ring+32*i,', 'write_mem: {at: rnig+32*i,'),
             r"study\.yaml:\d+:\d+: workloads\.0\.steps\.3\.loop\.steps\.0\.write_mem\.at: 'rnig\+32\*i': no buffer, value or loop counter named 'rnig'"),
            (STUDY.replace('- mark: done', '- marc: done'), r"study\.yaml:\d+:\d+: workloads\.0\.steps\.\d+: unknown step 'marc'"),
            (STUDY.replace('{offset: 0x08, u32: 2}', '{offset: 0x10002, u32: 2}'), r'offset 0x10002 \+ 4 B lies outside BAR0'),
            (STUDY.replace('{offset: 0x08, u32: 2}', '{offset: 0x08}'), r'exactly one of u8, u32, u64'),
            (STUDY.replace('device: fpga', 'device: host'), r"'host' is not an endpoint with device: rtl"),
            (STUDY.replace('buffers: {', 'values: {src: 4}\n    buffers: {'), r"values\.src: 'src' is also a buffer"),
            (STUDY.replace('- mark: doorbell', '- mmio_copy: {offset: 0xfffc, from: src, bytes: 8}'),
             r'mmio_copy\.offset: offset 0xfffc \+ 8 B lies outside BAR0'),
            (STUDY.replace('- mark: doorbell', '- time: {name: t, steps: [{delay: 1ns}]}\n      - time: {name: t, steps: [{delay: 1ns}]}'),
             r"time\.name: 't' is already a timer or a record's name"),
            (STUDY.replace('- mark: doorbell', '- time: {name: t, steps: [{delay: 1ns}]}\n      - record: {name: t, offset: 0x10, unit: 4ns}'),
             r"record\.name: 't' is already a timer or another record's name"),
            (STUDY.replace('- mark: doorbell', '- record: {name: r, offset: 0x10, unit: 0ns}'), r'record\.unit: a unit of more than 0 ns'),
            (STUDY.replace('- mark: doorbell', '- mmio_read: {offset: 0x10, expect: 1, until: 1}'), r'expect \(one read\) or until'),
            (STUDY.replace('- mark: doorbell', '- mmio_read: {offset: 0x10, mask: 1}'), r'mask and tries go with until'),
            (STUDY.replace('- mark: doorbell', '- mark: dd_p50\n      - time: {name: dd, steps: [{delay: 1ns}]}'),
             r"mark 'dd_p50' and timer 'dd' would both write metric dd_p50_ns"),
        ]
        for text, pattern in cases:
            self.write('study.yaml', text)
            rc, _, err = self.go()
            self.assertEqual(rc, 2, err)
            self.assertRegex(err, pattern)
            self.assertFalse(os.path.exists(os.path.join(self.d, 'out')))

    def test_a_protocol_violation_names_the_stream_and_cycle(self):
        # A one-DW write whose beat carries no eop: the checker stops the run.
        self.write('bad.sv', '''module bad(input logic clk, input logic rst_n,
  output logic [127:0] tx_req_hdr, output logic [127:0] tx_req_data, output logic [3:0] tx_req_strb,
  output logic tx_req_sop, output logic tx_req_eop, output logic tx_req_valid, input logic tx_req_ready);
  logic sent;
  always_ff @(posedge clk) if (!rst_n) sent <= 0; else if (tx_req_valid && tx_req_ready) sent <= 1;
  assign tx_req_valid = !sent;
  assign tx_req_hdr = {32'h40000001, 32'h0000000f, 32'h00100000, 32'h0};
  assign tx_req_data = 128'h1;
  assign tx_req_strb = 4'h1;
  assign tx_req_sop = 1'b1;
  assign tx_req_eop = 1'b0;
endmodule
''')
        self.write('topo.yaml', TOPOLOGY.replace('[desc_dma.sv]', '[bad.sv]').replace('top: desc_dma', 'top: bad')
                   .replace('parameters: {DATA_W: 128}', 'free_running: true'))
        self.write('study.yaml', 'study: bad\ntopology: topo.yaml\nworkloads:\n'
                   '  - {type: rtl_script, device: fpga, steps: [{delay: 1us}]}\n')
        rc, _, err = self.go()
        self.assertEqual(rc, 3, err)
        self.assertRegex(err, r'rtl checker fpga\.rtl\.tx_req .*cycle \d+: no eop on the TLP\'s last DW')


    def test_values_timers_and_copies(self):
        # A named value sets a loop's count and enters products; a timer times
        # each run of its steps; mmio_copy sends host memory's bytes to the
        # design with WC stores (the design's ID register ignores the write).
        self.write('study.yaml', STUDY.replace('buffers: {', 'values: {n: 2, stride: 4096}\n    buffers: {')
                   .replace('count: 2', 'count: n').replace('src+4096*i, dst+4096*i', 'src+stride*i, dst+stride*i')
                   .replace('- mark: done', '- mark: done\n      - loop: {count: 3, steps: [{time: {name: rd, steps: [{mmio_read: {offset: 0x10}}]}}]}'
                            '\n      - mmio_copy: {offset: 0x1c, from: src, bytes: 4}'))
        rc, _, err = self.go()
        self.assertEqual(rc, 0, err)
        pt = self.point()
        m = pt['metrics']
        self.assertEqual(m['copy.checked_bytes'], 16384)
        self.assertEqual(m['copy.mmio_reads'], 2 + 3)
        self.assertEqual(pt['histograms']['copy.rd_ns']['count'], 3)
        self.assertGreater(m['copy.rd_min_ns'], 0)
        self.assertLessEqual(m['copy.rd_min_ns'], m['copy.rd_p50_ns'])
        self.assertLessEqual(m['copy.rd_p50_ns'], m['copy.rd_max_ns'])
        # The same study without the timer and the copy: 3 reads and one write fewer reach the design.
        self.write('study.yaml', STUDY)
        rc, _, err = self.go(out='plain')
        self.assertEqual(rc, 0, err)
        plain = self.point('plain')['stats']['fpga.rtl.rx_tlps']['value']
        self.assertEqual(pt['stats']['fpga.rtl.rx_tlps']['value'], plain + 3 + 1)

    def test_a_register_polled_and_recorded(self):
        # mmio_read with until reads the ID register again until it matches
        # (at once here); record adds a register's value times its unit to a
        # distribution: the ID, 0x48584453, in units of 1 ps.
        self.write('study.yaml', STUDY.replace('- mark: done', '- mark: done\n      - mmio_read: {offset: 0x1c, until: 0x48584453}'
                                               '\n      - loop: {count: 2, steps: [{record: {name: id, offset: 0x1c, unit: 1ps}}]}'))
        rc, _, err = self.go()
        self.assertEqual(rc, 0, err)
        pt = self.point()
        self.assertEqual(pt['metrics']['copy.mmio_reads'], 2 + 1 + 2)
        self.assertEqual(pt['histograms']['copy.id_ns']['count'], 2)
        self.assertAlmostEqual(pt['metrics']['copy.id_p50_ns'], 0x48584453 / 1000.0, delta=0x48584453 / 1000.0 * 0.01)
        # A register that never reaches the value: the run stops after `tries` reads, naming them.
        self.write('study.yaml', STUDY.replace('- mark: done', '- mark: done\n      - mmio_read: {offset: 0x1c, until: 7, mask: 0xf, tries: 3}'))
        rc, _, err = self.go(out='never')
        self.assertEqual(rc, 3, err)
        self.assertRegex(err, r'mmio_read: register 0x1c still reads 0x48584453 after 3 reads, waiting for 0x7 under mask 0xf')


USP_TOPOLOGY = (TOPOLOGY.replace('[desc_dma.sv]', '[usp_dma.sv]').replace('top: desc_dma', 'top: usp_dma\n      interface: usp')
                .replace('description: a host and my DMA engine', 'description: a host and my DMA engine on the UltraScale+ interfaces'))
USP_STUDY = STUDY.replace('expect: 0x48584453', 'expect: 0x48585553')


class UltraScalePlus(unittest.TestCase):
    """usp_dma.sv: the same engine, written against PG213's interfaces."""
    def setUp(self):
        self.d = tempfile.mkdtemp()
        shutil.copy(USP_DESIGN, self.d)
        OwnDesign.write(self, 'topo.yaml', USP_TOPOLOGY)
        OwnDesign.write(self, 'study.yaml', USP_STUDY)

    def tearDown(self):
        shutil.rmtree(self.d)

    def go(self, *extra, out='out'):
        return OwnDesign.go(self, *extra, out=out)

    def point(self, out='out'):
        return OwnDesign.point(self, out)

    def test_the_copy_at_every_width(self):
        cycles = {}
        for w in (64, 128, 256, 512):
            rc, _, err = self.go('--set', f'topology.nodes.fpga.rtl.parameters.DATA_W={w}',
                                 '--set', f'topology.nodes.fpga.rtl.data_width={w}', out=f'w{w}')
            self.assertEqual(rc, 0, f'{w}: {err}')
            pt = self.point(f'w{w}')
            self.assertEqual(pt['metrics']['copy.checked_bytes'], 16384)  # both check_mem steps passed
            self.assertEqual(pt['metrics']['copy.mmio_reads'], 2)         # answered on CC with the ID
            s = pt['stats']
            self.assertEqual(s['fpga.rtl.tx_tlps']['value'], 2 + 64 + 64 + 2 + 2)
            self.assertEqual(s['fpga.rtl.msis']['value'], 2)               # cfg_interrupt_msi_int, answered by msi_sent
            cycles[w] = s['fpga.rtl.rtl_cycles']['value']
        # A narrower bus moves the same packets in more beats.
        self.assertGreater(cycles[64], cycles[128])
        self.assertGreater(cycles[128], cycles[256])
        self.assertGreater(cycles[256], cycles[512])

    def test_the_clocking_contract_holds_against_a_free_running_clock(self):
        rc, _, err = self.go()
        self.assertEqual(rc, 0, err)
        rc, _, err = self.go('--set', 'topology.nodes.fpga.rtl.free_running=true', out='free')
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.point()['metrics'], self.point('free')['metrics'])

    def test_waves_are_written(self):
        rc, _, err = self.go('--set', 'topology.nodes.fpga.rtl.wave=dma.vcd')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.d, 'dma.vcd')) as f:
            vcd = f.read()
        self.assertIn('s_axis_rq_tvalid', vcd)
        self.assertGreater(vcd.count('\n#'), 100)

    def test_a_corrupted_completion_byte_is_caught(self):
        rc, _, err = self.go('--set', 'topology.nodes.fpga.rtl.inject_completion_error=true')
        self.assertEqual(rc, 3, err)
        self.assertIn('payload check failed on an MMIO read completion', err)

    def test_the_wrong_interface_or_width_is_bad_input(self):
        OwnDesign.write(self, 'topo.yaml', USP_TOPOLOGY.replace('interface: usp', 'interface: tlp_stream'))
        OwnDesign.expect_bad(self, 'does not have the tlp_stream interface', r'topo\.yaml:\d+:\d+: nodes\.fpga\.rtl\.top')
        # The design built at 128 bits, the interface said to be 512: the 512-bit tuser layouts differ too.
        OwnDesign.write(self, 'topo.yaml', USP_TOPOLOGY.replace('data_width: 128', 'data_width: 512'))
        OwnDesign.expect_bad(self, 'm_axis_cq_tuser is 88 bits wide, not 183', r'topo\.yaml:\d+:\d+: nodes\.fpga\.rtl\.top')

    def test_a_tkeep_with_a_hole_names_the_interface_and_cycle(self):
        # A two-DW write whose descriptor beat leaves DW 2 out of tkeep.
        OwnDesign.write(self, 'bad.sv', '''module bad(input logic user_clk, input logic user_reset,
  output logic [127:0] s_axis_rq_tdata, output logic [61:0] s_axis_rq_tuser, output logic s_axis_rq_tlast,
  output logic [3:0] s_axis_rq_tkeep, output logic s_axis_rq_tvalid, input logic [3:0] s_axis_rq_tready);
  logic sent;
  always_ff @(posedge user_clk) if (user_reset) sent <= 0; else if (s_axis_rq_tvalid && s_axis_rq_tready[0]) sent <= 1;
  assign s_axis_rq_tvalid = !sent;
  assign s_axis_rq_tdata = {32'h0, 32'h0000_0802, 32'h0, 32'h0010_0000};
  assign s_axis_rq_tuser = {54'h0, 4'hf, 4'hf};
  assign s_axis_rq_tkeep = 4'b1011;
  assign s_axis_rq_tlast = 1'b0;
endmodule
''')
        OwnDesign.write(self, 'topo.yaml', USP_TOPOLOGY.replace('[usp_dma.sv]', '[bad.sv]').replace('top: usp_dma', 'top: bad')
                        .replace('parameters: {DATA_W: 128}', 'free_running: true'))
        OwnDesign.write(self, 'study.yaml', 'study: bad\ntopology: topo.yaml\nworkloads:\n'
                        '  - {type: rtl_script, device: fpga, steps: [{delay: 1us}]}\n')
        rc, _, err = self.go()
        self.assertEqual(rc, 3, err)
        self.assertRegex(err, r'rtl checker fpga\.rtl\.rq .*cycle \d+: tkeep 0xb is not contiguous from DW 0')


GENERIC = os.path.join(ROOT, 'configs', 's004_rtl_generic.yaml')
GENERIC_FHF = os.path.join(ROOT, 'configs', 's004_rtl_generic_fhf.yaml')
GENERIC_BURST = os.path.join(ROOT, 'configs', 's004_rtl_generic_burst.yaml')
ADAPTER = os.path.join(ROOT, 'configs', 's004_rtl.yaml')


class InTreeEngine(unittest.TestCase):
    """The in-tree Calypte-style engine (models/dma/rtl) as a design of your
    own: hx_dma_stream.sv puts it behind the TLP-stream interface with its
    user logic (an H2F-to-F2H loopback) in RTL; the scripted driver runs
    S004's HFH round trips (configs/s004_rtl_generic.yaml)."""
    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def go(self, study, out, *extra):
        return run(HXSIM, 'run', study, '-o', out, '-q', *extra, cwd=self.d)

    def points(self, out):
        with open(os.path.join(self.d, out, 'results.json')) as f:
            return json.load(f)['points']

    def generic_and_adapter(self, study, mode):
        # The study's 7 points on the generic path, and the same RTL's medians
        # for `mode` through its own adapter (user logic in C++), ns by size.
        rc, _, err = self.go(study, 'generic')
        self.assertEqual(rc, 0, err)
        rc, _, err = self.go(ADAPTER, 'adapter')
        self.assertEqual(rc, 0, err)
        own = {p['point']['workloads.0.size']: p['metrics'][f'rt.{mode}_p50_us'] * 1000 for p in self.points('adapter')
               if p['point']['topology.nodes.card.calypte.model'] == 'rtl' and p['point']['workloads.0.mode'] == mode}
        generic = self.points('generic')
        self.assertEqual(len(generic), 7)
        return generic, own

    def test_round_trips_agree_with_the_engines_own_adapter(self):
        generic, own = self.generic_and_adapter(GENERIC, 'hfh')
        for p in generic:
            size = int(p['point']['workloads.0.values.size'])
            m = p['metrics']
            self.assertEqual(m['rt.checked_bytes'], 4096 * size)  # every looped-back packet, byte for byte
            self.assertEqual(m['rt.mmio_reads'], 3)               # ID, version, channels and width: answered by the RTL
            self.assertEqual(p['histograms']['rt.hfh_ns']['count'], 4096)
            # The same RTL through its own adapter (user logic in C++): within 5 cycles of 4 ns.
            self.assertLessEqual(abs(m['rt.hfh_p50_ns'] - own[f'{size}B']), 20, size)

    def test_fhf_round_trips_timed_by_the_rtl_agree_with_the_engines_own_adapter(self):
        # USER = 1: the user logic sends each packet and times its return in
        # cycles; the script loops it back and records the count.
        generic, own = self.generic_and_adapter(GENERIC_FHF, 'fhf')
        for p in generic:
            size = int(p['point']['workloads.0.values.size'])
            m = p['metrics']
            self.assertEqual(p['histograms']['rt.fhf_ns']['count'], 4096)
            # ID and version, SEND's answer polled (DONE) and LAST each round trip, BAD at the end (0: checked by expect).
            self.assertGreaterEqual(m['rt.mmio_reads'], 2 + 2 * 4096 + 1)
            self.assertEqual(m['rt.fhf_min_ns'] % 4, 0)  # whole cycles of 4 ns
            self.assertLessEqual(abs(m['rt.fhf_p50_ns'] - own[f'{size}B']), 20, size)

    def test_bursts_agree_with_the_engines_own_adapter(self):
        # USER = 2: one register write starts the burst; the script times it
        # to the marker's pointer update. The adapter's calypte_burst starts
        # its clock at the send itself, so the generic burst takes longer by
        # the register write's trip to the design, and by nothing else.
        rc, _, err = self.go(GENERIC_BURST, 'generic')
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.d, 'adapter.yaml'), 'w') as f:
            f.write('study: adapter_burst\ntopology: %s\nset: {topology.nodes.card.calypte.model: rtl}\nworkloads:\n'
                    '  - {type: calypte_burst, name: burst, device: card, channels: 4, size: 64B, packets: 1000}\n'
                    'sweep:\n  - {path: workloads.0.size, values: [64B, 256B, 1500B]}\n'
                    % os.path.join(ROOT, 'topologies', 's004_amd_gen3x8.yaml'))
        rc, _, err = self.go('adapter.yaml', 'adapter')
        self.assertEqual(rc, 0, err)
        own = {p['point']['workloads.0.size']: p['metrics']['burst.elapsed_us'] * 1000 for p in self.points('adapter')}
        generic = self.points('generic')
        self.assertEqual(len(generic), 3)
        for p in generic:
            size = int(p['point']['workloads.0.values.size'])
            m = p['metrics']
            took = m['burst.done_ns'] - m['burst.start_ns']
            self.assertGreater(took, own[f'{size}B'], size)
            self.assertLess(took, own[f'{size}B'] + 500, size)  # the BURST write's trip: a few hundred ns

    def test_a_packet_that_comes_back_changed_is_counted(self):
        # The script sends the packet back from the wrong place in the ring
        # (the packet before it): the design counts the beats that differ.
        with open(GENERIC_FHF) as f:
            study = f.read()
        text = study.replace('from: ring+stride*i, bytes: size', 'from: ring+stride*i+64, bytes: size')
        self.assertNotEqual(text, study)
        text = text.split('\nsweep:')[0] + '\n'  # one point: 64 B
        with open(os.path.join(self.d, 'fhf.yaml'), 'w') as f:
            f.write(text.replace('../topologies/', os.path.join(ROOT, 'topologies') + '/').replace('../models/', os.path.join(ROOT, 'models') + '/'))
        rc, _, err = self.go('fhf.yaml', 'bad', '--set', 'workloads.0.values.reps=2')
        self.assertEqual(rc, 3, err)
        self.assertRegex(err, r'mmio_read: register 0x2018 reads 0x[1-9a-f][0-9a-f]*, expected 0x0')

    def test_waves_are_written_for_every_point(self):
        rc, _, err = self.go(GENERIC, 'w', '--set', 'workloads.0.values.reps=2', '--set', 'topology.nodes.card.rtl.wave=card.vcd')
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(f for f in os.listdir(self.d) if f.endswith('.vcd')), [f'card.{k}.vcd' for k in range(7)])
        with open(os.path.join(self.d, 'card.0.vcd')) as f:
            vcd = f.read()
        for signal in ('tx_req_valid', 'u_dma', 'cq_ready', 'h2f_valid'):
            self.assertIn(signal, vcd)
        self.assertGreater(vcd.count('\n#'), 100)

    def test_a_corrupted_completion_byte_is_caught(self):
        rc, _, err = self.go(GENERIC, 'bad', '--set', 'workloads.0.values.reps=1', '--set',
                             'topology.nodes.card.rtl.inject_completion_error=true')
        self.assertEqual(rc, 3, err)
        self.assertIn('payload check failed on an MMIO read completion', err)


if __name__ == '__main__':
    unittest.main()
