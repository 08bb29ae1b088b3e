// A pcie-bench style DMA engine (the NFP-6000 of S011): DMA commands issued
// by device firmware, each a read or write of `size` bytes at a host address.
// Mechanisms: a command issue interval (the engine's command rate), a fixed
// command latency before the first TLP and a completion latency after the
// last data (the engine's internal memory path); a write command also waits
// for its data to be fetched (per byte) and for the write path's own command
// period (one TLP's, and a further one for each TLP after the first: the
// path forms one TLP at a time); a read whose length ends in part of a
// 4-byte word holds the command path longer (its last word is stored with
// a byte mask); reads are split at MRRS and 4 KiB, writes at MPS (or the
// engine's smaller write payload) and 4 KiB; at most `max_outstanding` commands and
// `tags` read requests in flight. Commands leave in issue order on one TX
// queue: a read issued after a write never overtakes it (LAT_DMA_WRRD).
// With ATS on, the engine works on untranslated (virtual) addresses behind
// an ATS switch holding an ATC (S000's extended XDMA): a command starts once
// every page it touches has a translation; a missed page sends one ATS
// translation request (PCIe sec. 10.2) for it and `atc_prefetch` following
// pages, and the command (and every younger one: the engine is in order)
// waits for the completion plus the ATC's own miss handling (`atc_miss`:
// request formation, fill, replay). Requests then carry translated
// addresses (AT=10b) and bypass the IOMMU.
// With `retire_in_order`, a command's completion is signalled only once
// every older command's has been (the NFP engine retires its DMA queue in
// issue order): one slow read, e.g. an IOMMU miss, then holds back every
// younger command and the firmware contexts waiting on them.
#pragma once
#include <deque>
#include <memory>
#include <functional>
#include <string>
#include <vector>

#include <map>

#include "models/ats/tlb.h"
#include "models/core/scheduler.h"
#include "models/dma/dma_util.h"
#include "models/pcie/endpoint.h"

namespace hx::dma {

struct BenchDmaConfig {
  Tick issue_interval = 20 * kNs;
  Tick cmd_latency = 100 * kNs;
  Tick done_latency = 50 * kNs;
  Tick read_byte_time = 0;  // per-byte cost of moving read data into device memory
  Tick read_partial_interval = 0;  // minimum time between read commands that end in part of a 4-byte word
  Tick write_byte_time = 0; // per-byte cost of fetching write data before a write command issues
  Tick write_interval = 0;  // minimum time between write commands, however small
  Tick write_tlp_interval = 0;  // added to that minimum for each TLP of a write after its first
  std::uint32_t write_payload = 0;  // largest write TLP payload the engine forms (0: MPS)
  int max_outstanding = 64;
  bool retire_in_order = false;  // completions signalled in issue order
  bool ats = false;
  ats::TlbConfig atc{32, 0, 0};
  Tick atc_miss = 0;      // ATS-switch time on a miss besides the translation round trip
  int atc_prefetch = 0;   // following pages asked for with each miss
};

class BenchDma final : public pcie::Device, public Actor {
 public:
  using Done = std::function<void(Tick)>;
  BenchDma(const std::string& name, const BenchDmaConfig& cfg);
  void attach(pcie::Endpoint& ep) override;
  // Queue a command; `done` runs when it completes. A read names what the
  // buffer holds (pattern `stream` from offset `off`), and every completion
  // is checked against it.
  // A timed command passes its ledger (models/core/ledger.h), opened when
  // the command was given: on `done` it holds where the time went, along
  // the path of the command's last data, up to the done time.
  void read(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off, Done done, Ledger* led = nullptr);
  void write(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off, Done done, Ledger* led = nullptr);
  // A stream of commands made as the engine takes them: `next` fills in the
  // next command and returns true, or returns false when there are no more.
  // It is asked only when the engine has room for one (one command is held
  // ahead of its issue time), so a long run holds no queue of commands.
  // Commands queued by read/write go first.
  struct Command {
    bool write = false;
    std::uint64_t addr = 0;
    std::uint32_t len = 0;
    std::uint64_t stream = 0, off = 0;
    Done done;
    Ledger* led = nullptr;
  };
  void feed(std::function<bool(Command&)> next);
  std::size_t in_flight() const { return m_active; }

  void on_write(const pcie::Tlp& t) override;
  ats::Tlb* atc() { return m_atc.get(); }
  // The ATS switch serves another requester of the device too (S000's CCIX
  // request agent): `ready` runs with the time the translation of `va`'s
  // page is usable, at once on an ATC hit, else when its ATS completion
  // (shared with any command waiting for the page) has been handled.
  using Ready = std::function<void(Tick)>;
  void translate_page(std::uint64_t va, Ready ready);
  // false: the engine's own commands use physical addresses (AT=00b) even
  // though the device has an ATS switch (S000's TaPaSCo DMA).
  void set_translate_commands(bool on) { m_translate = on; }
  Histogram ats_rtt, xlate_wait;  // per ATS request; per command that waited for translation
  Counter retire_waits;           // commands done before an older one, held back (retire_in_order)
  void on_completion(const pcie::Tlp& t) override;
  void on_tx_space(int stream) override;
  void on_sent(const pcie::Tlp& t, Tick start, Tick end) override;
  bool busy() const override { return m_active > 0 || !m_queue.empty() || m_source; }
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

 private:
  struct Cmd {
    bool write;
    std::uint64_t addr;
    std::uint32_t len;
    std::uint64_t stream, off;
    Done done;
    Ledger* led = nullptr;        // the caller's, when the command is timed
    std::uint32_t left = 0;       // bytes not yet received (read) / TLPs not yet sent (write)
    std::uint64_t next = 0;       // next byte offset to request/send
    Tick data_done = 0;
    std::uint64_t seq = 0;
    Tick start = 0;  // when the engine begins emitting its TLPs
    int xlate_pending = 0;  // pages without a translation yet
    Tick xlate_from = 0;
    // A ledger for a TLP of the command made now, charged up to now.
    Ledger* fork(Tick now) const;
  };
  void translate(std::size_t slot);
  void on_translation(const pcie::Tlp& t);
  void send_ats(std::uint64_t page, Tick at);
  struct AtsReq {
    std::uint64_t page;
    int pages;
    Tick sent;
  };
  std::unique_ptr<ats::Tlb> m_atc;
  bool m_translate = true;
  static constexpr std::size_t kOther = std::size_t{1} << 62;  // a waiter that is not a command slot
  std::vector<Ready> m_other;                                     // those waiters' callbacks
  std::vector<std::size_t> m_other_free;
  std::map<std::uint64_t, std::vector<std::size_t>> m_xlate_wait;  // page -> slots waiting for it
  std::map<std::uint16_t, AtsReq> m_ats_inflight;                   // tag -> request
  Counter m_ats_requests, m_invalidations;
  int m_s_ats = -1;
  std::uint32_t m_ats_tag = 0;
  void pump();
  void progress(std::size_t slot);
  std::uint32_t write_tlp_max() const;          // a write TLP's largest payload: MPS, or write_payload if smaller
  std::uint64_t write_tlps(const Cmd& c) const;  // the TLPs a write command is cut into
  void complete(std::size_t slot, Tick when);
  std::string m_name;
  BenchDmaConfig m_cfg;
  int m_s_cmd = -1;
  std::deque<Cmd> m_queue;
  std::function<bool(Command&)> m_source;  // empty once it has no more
  bool has_next();  // a command is at the front of m_queue (pulled from m_source if need be)
  std::vector<Cmd> m_slots;
  std::vector<bool> m_slot_used;
  std::size_t m_active = 0;
  Occupancy m_contexts;   // the same count, integrated over time (busy context-time)
  Tick m_issue_busy = 0;  // the issue stage's busy time
  Tick m_next_issue = 0;
  Tick m_pump_at = kNever;  // a pump already scheduled for then
  std::uint64_t m_cmd_seq = 0;
  std::map<std::uint64_t, std::pair<std::size_t, Tick>> m_retire;  // seq -> slot, data done (retire_in_order)
  std::uint64_t m_next_retire = 0;  // seq of the oldest command not yet retired
  Tick m_last_retire = 0;
  struct Tag {
    bool used = false;
    std::size_t slot = 0;
    std::uint64_t addr = 0;
    std::uint32_t len = 0, got = 0;
  };
  std::vector<Tag> m_tags;
  // Slots with TLPs left to generate, in issue order: TLPs leave in command
  // order, so only the front one advances, and it leaves once done.
  std::deque<std::size_t> m_ready;
};

}  // namespace hx::dma
