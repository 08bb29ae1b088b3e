// A CCIX request agent in an accelerator (S000): the device's coherent
// system cache (SC), a coherence::CachingAgent, behind an AXI bridge, with
// its messages carried by a CCIX link in the endpoint's VC1 TLPs to the
// host's home agent (home_port.h). A traffic generator on the device
// issues AXI reads and writes of whole lines to it.
// Mechanisms:
//  - the generator issues one line per `issue_interval` (the AXI side's
//    beat rate); each line crosses the AXI bridge (`axi_latency`) and looks
//    up the SC (the agent's `lookup`);
//  - a miss allocates a request tracker (the agent's MSHRs: the RA's
//    outstanding requests); a read misses with ReadShared, a write with
//    ReadUnique (the SC allocates on write), or with MakeUnique where the
//    agent is set to (`full_line_writes`: the generator's lines are whole,
//    so no data need be read); a transfer that does not
//    allocate (AXI's AxCACHE allocate bits clear: streaming data the SC
//    must not keep) sends a ReadOnce or a whole-line WriteUnique for each
//    line the SC does not hold, and keeps no copy;
//  - with `ats`, the RA works on virtual addresses: a request passes the
//    device's ATS switch first, the one its DMA engine has (the `bench:`
//    section: ATC size, look-up, miss handling): on an ATC hit it leaves
//    after the look-up, on a miss only once the ATS translation request,
//    sent on VC0 to the host's IOMMU, has been answered and handled; then
//    the CCIX layers;
//  - the device's DMA engine (dma::BenchDma, S000's TaPaSCo baseline) sits
//    behind the same endpoint on VC0, on physical addresses unless
//    `dma_translates`;
//  - a write that misses is done only once the line has arrived and the
//    write has passed the SC's pipeline again to merge into it
//    (`write_fill`); a read's data goes back as it arrives;
//  - a transfer is done when its last line is, plus the response's way
//    back over AXI: read data (`read_return`) or the write response
//    (`write_return`);
//  - an atomic (AtomicCompare and the others) is built from an AXI
//    sequence, as AXI4 has no atomic transactions: the generator writes the
//    operands to the bridge (`axi_latency` there, `write_return` for its
//    response), then reads the result (`axi_latency` again to the SC);
//    the SC sends it to the home unless it holds the line (the agent's
//    `far_atomics`), and the old value returns as read data
//    (`read_return`).
// The SC's capacity is unlimited unless the config sets one (its agent's
// `capacity`, `ways`, `victims`: `ccix_ra.sc_size`, `sc_ways`,
// `sc_victims`): least recently used lines then give way, clean ones
// evicted and dirty ones written back to the home over CCIX.
// Simplifications: the generator's lines are whole and aligned.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/ccix/ccix_link.h"
#include "models/coherence/agents.h"
#include "models/dma/bench_dma.h"
#include "models/pcie/endpoint.h"

namespace hx::ccix {

struct RequestAgentConfig {
  coherence::CachingAgentConfig agent;
  CcixConfig ccix;
  Tick issue_interval = 4 * kNs;  // one line per AXI cycle (250 MHz)
  Tick axi_latency = 0;           // generator -> SC, through the AXI bridge
  bool ats = false;               // requests translated by the ATS switch (virtual addresses)
  bool dma_translates = false;    // the DMA engine's commands too
  dma::BenchDmaConfig dma;        // the DMA engine and the ATS switch (the node's bench: section)
  Tick read_return = 0;           // read data SC -> generator
  Tick write_return = 0;          // write response SC -> generator
  int stream_depth = 2;           // CCIX TLPs queued in the PCIe block at once
};

class RequestAgent final : public pcie::Device,
                           public TlpPort,
                           public coherence::CoreSide,
                           public coherence::Channel,
                           public Actor {
 public:
  using Done = std::function<void(Tick)>;
  using AtomicDone = std::function<void(Tick, std::uint64_t)>;  // when, and the line's old value
  RequestAgent(const std::string& name, const RequestAgentConfig& cfg);
  ~RequestAgent() override;
  void attach(pcie::Endpoint& ep) override;
  CcixLink& link() { return *m_link; }
  bool link_whole() const { return m_link->whole(); }
  std::string credits() const { return m_link->credits(); }
  coherence::CachingAgent& agent() { return *m_agent; }
  dma::BenchDma& dma() { return *m_dma; }
  const RequestAgentConfig& config() const { return m_cfg; }

  // How a transfer's lines that the SC does not hold are taken: kept in
  // the SC (allocating: ReadShared, ReadUnique or MakeUnique), streamed
  // through it with no copy kept (ReadOnce, WriteUnique), or, for a buffer
  // in memory no agent caches, read and written there (ReadNoSnp,
  // WriteNoSnp; a line the SC holds is an error).
  enum class Keep : std::uint8_t { Allocate, Stream, NoSnoop };
  // Read or write `bytes` at `addr` (whole lines); `done` when the last
  // line's response is back at the generator. A timed transfer passes its
  // ledger (models/core/ledger.h), opened now: on `done` it holds where the
  // time went along the path of the line done last.
  void transfer(bool write, std::uint64_t addr, std::uint32_t bytes, Done done, Keep keep = Keep::Allocate,
                Ledger* led = nullptr);
  // Give the lines of [addr, addr+bytes) up (clean ones evicted, dirty ones
  // written back: a cache-maintenance flush); `done` as for a write.
  void flush(std::uint64_t addr, std::uint32_t bytes, Done done);
  // The atomic `rmw` on the line at `addr` (aligned); `done` hears when the
  // old value is back at the generator, and the value.
  void atomic(std::uint64_t addr, const coherence::Rmw& rmw, AtomicDone done, Ledger* led = nullptr);

  // pcie::Device
  void on_write(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  void on_tx_space(int stream) override;
  void on_sent(const pcie::Tlp& t, Tick start, Tick end) override { m_dma->on_sent(t, start, end); }
  bool busy() const override {
    return !m_xfers.empty() || !m_done.empty() || !m_agent->idle() || m_translating > 0 || m_dma->busy();
  }
  // coherence::Channel, between the SC and its CCIX link: requests pass the
  // ATS switch first.
  void send(coherence::Packet* p) override;
  void release(const coherence::Packet& p) override { m_link->release(p); }
  bool pending() const override { return m_translating > 0 || m_link->pending(); }
  std::string status() const override;
  // TlpPort
  pcie::Tlp* new_message() override;
  bool room() const override;
  void transmit(pcie::Tlp* t, Tick ready) override;
  // coherence::CoreSide
  void access_done(std::uint64_t tag, std::uint64_t value, Tick at) override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  Counter transfers, lines, atomics;
  Histogram xlate_wait;  // per request that missed the ATC: ATS switch entry to translation usable

 private:
  enum class Op : std::uint8_t { Read, Write, Flush, Atomic };
  struct Xfer {
    Op op = Op::Read;
    Keep keep = Keep::Allocate;  // Read, Write: how lines not held are taken
    std::uint64_t first = 0;  // line number
    std::uint32_t n = 0, issued = 0, left = 0;
    Done done;
    coherence::Rmw rmw;       // Atomic: the operation
    AtomicDone atomic_done;   // ... and who hears its old value
    Ledger* led = nullptr;    // a timed transfer's (its caller's)
    std::vector<Ledger*> line_led;  // ... and one per line, forked as the line issues
  };
  Xfer& start(Op op, std::uint64_t addr, std::uint32_t bytes, Done done, Ledger* led = nullptr);
  void issue();
  std::string m_name;
  RequestAgentConfig m_cfg;
  std::unique_ptr<dma::BenchDma> m_dma;
  std::unique_ptr<CcixLink> m_link;
  int m_translating = 0;  // requests waiting for their translation
  std::unique_ptr<coherence::CachingAgent> m_agent;
  Scheduler m_sched;
  int m_stream = -1;
  std::deque<Xfer> m_xfers;      // in issue order; front() issues next
  std::uint64_t m_first_id = 0;  // id of m_xfers.front()
  std::size_t m_issuing = 0;     // index in m_xfers of the transfer issuing lines
  Tick m_next_issue = 0;
  bool m_issue_pending = false;
  std::uint64_t m_store_value = 0;
  struct Returning {
    Done done;
    Ledger* led = nullptr;  // a timed transfer's
  };
  std::map<std::uint64_t, Returning> m_done;  // transfers whose response is on its way back
  std::uint64_t m_done_seq = 0;
};

}  // namespace hx::ccix
