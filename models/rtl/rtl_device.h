// A user's design as the device logic of an endpoint (`device: rtl`): the
// Verilated model (rtl_model.h) behind the shim of its interface (shim.h:
// the generic TLP stream of tlp_stream.h or the UltraScale+ interfaces of
// usp.h). TLPs reach the design with their real bytes and leave it with
// the bytes it drove: host MMIO writes and reads of its BARs arrive on the
// request way in (rx_req, CQ) and are answered on the completion way out
// (tx_cpl, CC); the design's DMA reads and writes leave on the request way
// out (tx_req, RQ) and its read completions come back on the completion
// way in (rx_cpl, RC); an MSI input of the interface raises an MSI.
//
// Clocking contract. The shim clocks the design at its own frequency on the
// kernel's time grid, but only while something happens: while a TLP waits
// for the design or the design offers one, and for idle_cycles cycles
// after the last handshake; then it stops, and it starts again when an
// input changes (a TLP for the design, transmit space, a completion). A
// design whose state changes on its own while all its inputs are still and
// nothing is offered (a timer, a delay counter longer than idle_cycles)
// needs free_running: the clock then runs from reset until its driver is
// done with it (quiesce()). The two give the same results for every design
// that keeps the contract; tests hold them equal.
//
// Protocol checkers watch what the design drives, every cycle: a beat
// offered and not taken stays offered and unchanged, and the framing of
// the interface (the shim's checks); requests of a valid type, with valid
// byte enables, within MPS or MRRS and never across 4 KiB; completions only
// for a read that is outstanding, from its requester, with its tag, byte
// count and lower address, and no more bytes than it asked. A violation is
// a simulation error naming the stream and the cycle.
//
// Simplifications (docs/rtl.md, "Not yet"): one clock domain per design;
// the UltraScale+ interfaces without straddling, address-aligned data, the
// hard block's own tag management or its flow-control and tag-availability
// ports; no AtomicOps, messages or configuration requests through the
// design's interfaces.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/core/scheduler.h"
#include "models/core/stats.h"
#include "models/pcie/endpoint.h"
#include "models/rtl/gated_clock.h"
#include "models/rtl/rtl_model.h"
#include "models/rtl/shim.h"

namespace hx::rtl {

struct RtlDeviceConfig {
  std::string library;            // the built design (src/rtl/build.h)
  std::string interface = "tlp_stream";  // tlp_stream or usp (interfaces.h)
  int data_width = 256;           // bits of each stream's data bus
  double clock_mhz = 250.0;
  int reset_cycles = 8;
  int idle_cycles = 16;           // quiet cycles before the clock stops
  bool free_running = false;      // the clock never stops before quiesce()
  std::string wave;               // VCD file of the design's signals ("" = none)
  int tx_depth = 8;               // TLPs the endpoint queues from tx_req before tx_req_ready drops
  bool corrupt_completion = false;  // test hook: change a byte of the first completion after its checksum
};

class RtlDevice final : public pcie::Device, public Actor {
 public:
  RtlDevice(const std::string& name, const RtlDeviceConfig& cfg);
  ~RtlDevice() override;
  void attach(pcie::Endpoint& ep) override;
  void on_write(const pcie::Tlp& t) override;
  bool on_read(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  void on_tx_space(int stream) override;
  bool busy() const override;
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  // The driver is done with the device: a free-running clock may stop.
  void quiesce();
  std::uint64_t cycles() const { return m_cycle; }
  // Verilator's own rate for the design: cycles per wall second of the bare
  // model, clocked by hand after reset with every input held still (hxsim
  // bench). An idle design: with nothing moving, a cycle can cost less than
  // under the work a co-simulation gives it (the in-tree engine's does), so
  // this is no ceiling; the replay below is.
  static double raw_cycles_per_s(const RtlDeviceConfig& cfg, std::uint64_t cycles);
  // The design's rate on the same work: the inputs a co-simulation gave it,
  // cycle by cycle, replayed into a bare model (cycles per wall second, the
  // median of three replays; 0 if the log cannot be read). A device records
  // its inputs when $HXSIM_RTL_RECORD is set, to `$HXSIM_RTL_RECORD.<name>`
  // (hxsim bench).
  static double replay_cycles_per_s(const RtlDeviceConfig& cfg, const std::string& log);

  Counter rtl_cycles, rx_tlps, tx_tlps, msis;

 private:
  // A TLP on its way into the design.
  struct RxTlp {
    Packet p;
    std::uint32_t beats = 1, next = 0;
    std::uint64_t seq = 0;  // its number among the way's TLPs (from 1)
  };
  // What a receive way's ports hold now: TLP `seq` (0: nothing offered) at beat `beat`.
  struct Driven {
    std::uint64_t seq = ~0ull;
    std::uint32_t beat = 0;
  };
  struct HostRead {  // a host read of a BAR, waiting for the design's completion
    bool open = false;
    pcie::Tlp req;   // its fields (no pooled parts)
    std::uint32_t left = 0;
    Ledger* led = nullptr;  // a timed read's: the design's cycles until each completion are the device's
  };
  struct DevRead {   // the design's read, waiting for completions
    bool open = false;
    std::uint64_t next = 0;  // the next byte expected
    std::uint32_t left = 0;
  };
  // The inputs of each cycle, as changes (HXSIM_RTL_RECORD).
  struct InputLog {
    std::string path;
    std::vector<const RtlPort*> ports;  // every input but the clock
    std::vector<std::uint8_t> last, log;
    std::uint64_t cycles = 0;
    void record();
    void write() const;
  };
  void wake();
  bool tick();
  // Puts the front TLP's beat on way w's inputs when it is not there yet
  // (checked here, each cycle; driven out of line, when it changes).
  void drive_rx(Way w, const std::deque<RxTlp>& q) {
    Driven& d = m_driven[static_cast<std::size_t>(w)];
    const Driven now = q.empty() ? Driven{0, 0} : Driven{q.front().seq, q.front().next};
    if (now.seq == d.seq && now.beat == d.beat) return;
    d = now;
    drive_rx_now(w, q);
  }
  void drive_rx_now(Way w, const std::deque<RxTlp>& q);
  void queue_rx(Way w, std::deque<RxTlp>& q, const TlpHeader& h, const std::uint8_t* payload, std::uint32_t lead, std::uint32_t n);
  // The rules of PCIe for a request the design sends.
  void check_request(const TlpHeader& h) const;
  void finish_tx_req(const Packet& p);
  void finish_tx_cpl(const Packet& p);
  [[noreturn]] void fail(Way w, const std::string& what) const;

  std::string m_name;
  RtlDeviceConfig m_cfg;
  GatedClock m_clock;
  std::unique_ptr<RtlModel> m_model;
  std::unique_ptr<Shim> m_shim;
  const RtlPort* m_clk = nullptr;
  std::deque<RxTlp> m_rxq_req, m_rxq_cpl;
  std::array<Driven, 2> m_driven{};
  std::uint64_t m_rx_seq = 0;
  bool m_req_space = true;  // what tx_req's ready says now
  Packet m_tx_req, m_tx_cpl;  // a TLP the design has just sent, kept between cycles (no construction per cycle)
  std::array<HostRead, 256> m_host_reads{};
  std::array<DevRead, 256> m_dev_reads{};
  int m_host_open = 0, m_dev_open = 0;
  int m_s_req = -1;
  std::uint64_t m_cycle = 0;
  bool m_quiesced = false;
  bool m_corrupt = false;
  std::unique_ptr<InputLog> m_log;
};

}  // namespace hx::rtl
