// A user's design as the device logic of an endpoint (`device: rtl`): the
// Verilated model (rtl_model.h) behind the TLP-stream shim (tlp_stream.h).
// TLPs reach the design with their real bytes and leave it with the bytes
// it drove: host MMIO writes and reads of its BARs arrive on rx_req and
// are answered on tx_cpl; the design's DMA reads and writes leave on
// tx_req and its read completions come back on rx_cpl; msi_valid raises
// an MSI.
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
// offered and not taken stays offered and unchanged; sop on the first beat,
// eop exactly on the beat with the last payload DW, strobes contiguous from
// lane 0; requests of a valid type, with valid byte enables, within MPS or
// MRRS and never across 4 KiB; completions only for a read that is
// outstanding, with its tag, and no more bytes than it asked. A violation
// is a simulation error naming the stream and the cycle.
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
#include "models/rtl/tlp_stream.h"

namespace hx::rtl {

struct RtlDeviceConfig {
  std::string library;            // the built design (src/rtl/build.h)
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

  Counter rtl_cycles, rx_tlps, tx_tlps, msis;

 private:
  struct Stream {
    const RtlPort *hdr = nullptr, *data = nullptr, *strb = nullptr, *sop = nullptr, *eop = nullptr, *valid = nullptr,
                  *ready = nullptr;
    bool present() const { return valid != nullptr; }
  };
  // A TLP on its way into the design: header and DW-aligned data.
  struct RxTlp {
    std::array<std::uint8_t, 16> hdr{};
    std::vector<std::uint8_t> data;
    std::uint32_t beats = 1, next = 0;
  };
  // A TLP the design is driving out, beat by beat.
  struct TxAsm {
    bool open = false;
    TlpHeader h;
    std::vector<std::uint8_t> data;
    std::uint32_t dws_left = 0;
  };
  // What the checker keeps of a stream's last cycle.
  struct Held {
    bool stalled = false;
    std::uint64_t sum = 0;
  };
  struct HostRead {  // a host read of a BAR, waiting for the design's completion
    bool open = false;
    pcie::Tlp req;   // its fields (no pooled parts)
    std::uint32_t left = 0;
  };
  struct DevRead {   // the design's read, waiting for completions
    bool open = false;
    std::uint64_t next = 0;  // the next byte expected
    std::uint32_t left = 0;
  };
  Stream bind(const std::string& prefix) const;
  void wake();
  void tick();
  void drive_rx(const Stream& s, std::deque<RxTlp>& q);
  void queue_rx(std::deque<RxTlp>& q, const TlpHeader& h, const std::uint8_t* payload, std::uint32_t lead, std::uint32_t n);
  // Checks one cycle of a transmit stream; returns whether a beat moved.
  bool check_tx(const Stream& s, Held& held, TxAsm& a, bool is_cpl, const char* name);
  void finish_tx_req(TxAsm& a);
  void finish_tx_cpl(TxAsm& a);
  [[noreturn]] void fail(const char* stream, const std::string& what) const;

  std::string m_name;
  RtlDeviceConfig m_cfg;
  GatedClock m_clock;
  std::uint32_t m_beat_B;
  std::unique_ptr<RtlModel> m_model;
  const RtlPort *m_clk = nullptr, *m_rst = nullptr, *m_msi_valid = nullptr, *m_msi_vector = nullptr, *m_msi_ready = nullptr;
  bool m_rst_active_low = true;
  Stream m_rx_req, m_rx_cpl, m_tx_req, m_tx_cpl;
  std::deque<RxTlp> m_rxq_req, m_rxq_cpl;
  TxAsm m_asm_req, m_asm_cpl;
  Held m_held_req, m_held_cpl;
  std::array<HostRead, 256> m_host_reads{};
  std::array<DevRead, 256> m_dev_reads{};
  int m_host_open = 0, m_dev_open = 0;
  int m_s_req = -1;
  std::vector<std::uint8_t> m_beat;  // scratch: one data beat
  std::uint64_t m_cycle = 0;
  bool m_quiesced = false;
  bool m_corrupt = false;
};

}  // namespace hx::rtl
