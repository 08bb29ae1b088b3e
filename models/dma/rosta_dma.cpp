#include "models/dma/rosta_dma.h"

#include <algorithm>
#include <sstream>

#include "models/core/error.h"

namespace hx::dma {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kIssueReads };
constexpr int kBeatB = 8;  // 64-bit AXI-Stream datapath
}  // namespace

RostaDma::RostaDma(const std::string& name, const RostaConfig& cfg)
    : m_name(name), m_cfg(cfg), m_cycle(clock_period(cfg.clock_mhz)) {
  StatsRegistry::instance().add_resource(name + ".datapath", [this] { return m_gen_busy; }, 1,
                                         "DMA engine datapath: TLP beats formed and descriptor gaps (desc_gap_cycles)");
}

void RostaDma::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  const std::size_t depth = static_cast<std::size_t>(std::max(1, m_cfg.fifo_tlps));
  m_s_write = ep.add_stream("dma_write", depth);
  m_s_read = ep.add_stream("dma_read", depth);
  m_s_peer = ep.add_stream("peer_write", depth);
  m_s_echo = ep.add_stream("echo", 1u << 20);
}

bool RostaDma::busy() const { return m_job != nullptr || m_pending != nullptr; }

std::string RostaDma::status() const {
  std::ostringstream os;
  if (m_job) os << "job at descriptor " << m_desc << "/" << m_job->descs.size() << ", " << m_outstanding << " reads outstanding";
  if (m_rx_expect && m_rx_bytes < m_rx_expect) os << " peer bytes " << m_rx_bytes << "/" << m_rx_expect;
  return os.str();
}

void RostaDma::start(Job* job) {
  if (m_job) sim_fail(m_name, "a DMA job started while another is running");
  m_job = job;
  m_desc = 0;
  m_desc_off = m_job_off = 0;
  m_job_bytes = 0;
  for (const auto& d : job->descs) m_job_bytes += d.len;
  m_next_gen = now_tick();
  if (job->kind == Kind::HostRead) {
    m_read_received = 0;
    m_outstanding = 0;
    m_reqs.assign(static_cast<std::size_t>(std::max(1, m_cfg.max_reads)), Req{});
    issue_reads();
  } else {
    m_tlps_left = 0;
    refill();
  }
}

// Write / peer jobs: the engine builds TLPs at its datapath rate (one 8-byte
// beat per cycle, header included), pausing desc_gap cycles between
// descriptors; the bounded stream FIFO back-pressures it.
void RostaDma::refill() {
  Job* j = m_job;
  if (!j || j->kind == Kind::HostRead) return;
  const int s = j->kind == Kind::Peer ? m_s_peer : m_s_write;
  const std::uint32_t max_len = std::min<std::uint32_t>(j->payload, static_cast<std::uint32_t>(m_ep->mps()));
  while (m_desc < j->descs.size() && !m_ep->stream_full(s)) {
    const Segment& seg = j->descs[m_desc];
    const std::uint64_t addr = seg.addr + m_desc_off;
    const std::uint32_t len = next_chunk(addr, seg.len - m_desc_off, max_len);
    Tlp* t = m_ep->make(TlpKind::MemWr);
    t->vc = j->vc;
    t->addr = addr;
    t->addr64 = pcie::needs_addr64(addr);
    t->len = len;
    t->data_stream = j->stream;
    t->data_off = m_job_off;
    t->checksum = pattern_checksum(j->stream, m_job_off, len);
    const Tick at = std::max(now_tick(), m_next_gen);
    if ((t->ledger = fork_ledger(j->led))) t->ledger->charge(Stage::Device, at);  // formed at the datapath rate
    m_ep->push(s, t, at);
    ++m_tlps_left;
    const Tick beats = static_cast<Tick>((t->header_B() + static_cast<int>(len) + kBeatB - 1) / kBeatB);
    m_next_gen = at + beats * m_cycle;
    m_gen_busy += beats * m_cycle;
    m_desc_off += len;
    m_job_off += len;
    if (m_desc_off == seg.len) {
      ++m_desc;
      m_desc_off = 0;
      // Host jobs walk the descriptor list; a peer command is one transfer.
      if (j->kind == Kind::HostWrite) {
        const Tick gap = static_cast<Tick>(m_cfg.desc_gap_cycles) * m_cycle;
        m_next_gen += gap;
        m_gen_busy += gap;
      }
    }
  }
}

void RostaDma::issue_reads() {
  Job* j = m_job;
  if (!j || j->kind != Kind::HostRead) return;
  const Tick now = now_tick();
  if (m_next_gen > now) {
    if (m_reads_at != m_next_gen) {
      m_reads_at = m_next_gen;
      m_ep->scheduler().at(m_next_gen, this, kIssueReads);
    }
    return;
  }
  const std::uint32_t mrrs = static_cast<std::uint32_t>(m_ep->config().mrrs);
  while (m_desc < j->descs.size() && m_outstanding < m_cfg.max_reads && !m_ep->stream_full(m_s_read)) {
    const Segment& seg = j->descs[m_desc];
    const std::uint64_t addr = seg.addr + m_desc_off;
    const std::uint32_t len = next_chunk(addr, seg.len - m_desc_off, mrrs);
    std::size_t tag = 0;
    while (m_reqs[tag].used) ++tag;
    m_reqs[tag] = Req{addr, len, 0, true};
    Tlp* t = m_ep->make(TlpKind::MemRd);
    t->addr = addr;
    t->addr64 = pcie::needs_addr64(addr);
    t->req_len = len;
    t->tag = static_cast<std::uint16_t>(tag);
    m_ep->push(m_s_read, t, now);
    ++m_outstanding;
    m_desc_off += len;
    if (m_desc_off == seg.len) {
      ++m_desc;
      m_desc_off = 0;
      m_next_gen = now + static_cast<Tick>(m_cfg.desc_gap_cycles) * m_cycle;
      m_gen_busy += m_next_gen - now;
      if (m_next_gen > now) {
        m_reads_at = m_next_gen;
        m_ep->scheduler().at(m_next_gen, this, kIssueReads);
        return;
      }
    }
  }
}

void RostaDma::on_action(std::uint32_t kind, std::uint64_t, void*) {
  if (kind == kIssueReads) {
    if (now_tick() == m_reads_at) m_reads_at = kNever;
    issue_reads();
  }
}

void RostaDma::on_tx_space(int stream) {
  if (stream == m_s_write || stream == m_s_peer) refill();
  if (stream == m_s_read) issue_reads();
}

void RostaDma::on_sent(const Tlp& t, Tick start, Tick end) {
  if (!m_job || t.kind == TlpKind::CplD) return;
  if (t.addr == m_ep->config().msi_addr) return;
  if (m_job->first == kNever) m_job->first = start;
  if (m_job->kind == Kind::HostRead) return;
  if (t.kind != TlpKind::MemWr || m_tlps_left == 0) return;
  --m_tlps_left;
  m_job->last = end;
  m_job->bytes += t.len;
  if (m_tlps_left == 0 && m_desc == m_job->descs.size()) finish();
}

void RostaDma::finish() {
  Job* j = m_job;
  j->done = true;
  m_job = nullptr;
  if (j->bytes != m_job_bytes) sim_fail(m_name, "DMA job moved " + std::to_string(j->bytes) + " of " + std::to_string(m_job_bytes) + " B");
  if (j->msi && j->kind != Kind::Peer) {
    m_ep->push(m_s_write, m_ep->make_msi(j->msi_vector), now_tick());
  }
  if (j->on_done) j->on_done();
}

void RostaDma::on_completion(const Tlp& t) {
  if (!m_job || m_job->kind != Kind::HostRead) sim_fail(m_name, "completion without a read job");
  if (t.tag >= m_reqs.size() || !m_reqs[t.tag].used) sim_fail(m_name, "completion for unknown tag " + std::to_string(t.tag));
  Req& r = m_reqs[t.tag];
  // The host buffer holds memory's initial pattern: check the bytes.
  if (t.addr != r.addr + r.got) sim_fail(m_name, "completion out of order within a request");
  if (t.checksum != pattern_checksum(kMemoryStream, t.addr, t.len))
    sim_fail(m_name, "read data check failed at 0x" + std::to_string(t.addr));
  r.got += t.len;
  m_read_received += t.len;
  m_job->bytes += t.len;
  m_job->last = now_tick();
  if (r.got == r.len) {
    r.used = false;
    --m_outstanding;
    if (m_read_received == m_job_bytes) {
      finish();
      return;
    }
    issue_reads();
  } else if (r.got > r.len) {
    sim_fail(m_name, "more completion data than requested");
  }
}

void RostaDma::on_write(const Tlp& t) {
  const std::uint64_t bar = m_ep->config().bars.empty() ? 0 : m_ep->config().bars[0].base;
  const std::uint64_t off = t.addr - bar;
  if (off == kRostaDoorbell) {
    if (!m_pending) sim_fail(m_name, "doorbell without a loaded job");
    Job* j = m_pending;
    m_pending = nullptr;
    start(j);
    return;
  }
  if (off < kRostaDoorbell) return;  // descriptor registers
  if (off >= kRostaEpRx) {
    if (t.checksum != pattern_checksum(t.data_stream, t.data_off, t.len) ||
        (m_rx_stream && t.data_stream != m_rx_stream))
      sim_fail(m_name, "peer write data check failed");
    if (m_rx_expect && m_rx_bytes + t.len > m_rx_expect)
      sim_fail(m_name, "conservation: more peer bytes arrived than were sent");
    const Tick now = now_tick();
    // The received bytes occupy [first byte of the first TLP, last byte of
    // the last]: a transfer of n TLPs is n wire times long, not n - 1.
    if (m_rx_first == kNever) m_rx_first = t.rx_start + m_ep->config().rx_latency;
    if (on_rx) on_rx(now, t.ledger);
    m_rx_last = now;
    m_rx_bytes += t.len;
    if (m_echo) {
      Tlp* e = m_ep->make(TlpKind::MemWr);
      e->addr = m_echo_to + (t.data_off % (1u << 20));
      e->addr64 = pcie::needs_addr64(e->addr);
      e->len = t.len;
      e->data_stream = t.data_stream;
      e->data_off = t.data_off;
      e->checksum = t.checksum;
      e->ledger = fork_ledger(t.ledger);  // the echo goes on with the same transaction
      m_ep->push(m_s_echo, e, now);
    }
  }
}

}  // namespace hx::dma
