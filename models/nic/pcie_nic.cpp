#include "models/nic/pcie_nic.h"

#include <algorithm>
#include <cstring>

#include "models/core/error.h"
#include "models/dma/dma_util.h"

namespace hx::nic {

using pcie::Tlp;
using pcie::TlpKind;

namespace {

enum : std::uint32_t { kRxArrive, kMsi };
enum : int { kTxDesc, kRxDesc, kData };

void put_le(std::uint8_t* p, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint64_t get_le(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// Descriptor and completion layout (little-endian): a buffer's address
// (8 B), its length (4 B), the low 32 bits of its number in the ring's
// sequence (4 B); a completion: the packet's number plus one (8 B), its
// length (4 B). The rest of each is padding.
void put_desc(std::uint8_t* d, std::uint64_t addr, std::uint32_t len, std::uint64_t seq) {
  put_le(d, addr, 8);
  put_le(d + 8, len, 4);
  put_le(d + 12, seq & 0xffffffffu, 4);
}

std::uint64_t packet_off(std::uint64_t k) { return k << 16; }

}  // namespace

// A request in flight: what it fetches, and the bytes it has so far.
struct PcieNic::Req {
  bool used = false;
  int kind = kData;
  int q = 0;
  std::uint64_t first = 0;  // the first descriptor's number, or the packet's
  std::uint32_t n = 0;      // descriptors
  std::uint64_t addr = 0;
  std::uint32_t len = 0, got = 0, pkt_off = 0;
  std::vector<std::uint8_t> buf;  // a descriptor read's bytes
  bool timed = false;             // a TX descriptor read for timed packets: it carries a ledger of its own
};

// A packet on its way back to the receiver, with a timed packet's ledger.
struct PcieNic::Looped {
  std::uint64_t k;
  std::uint32_t len;
  Ledger* led;
};

// A ring's descriptors as the NIC knows them: announced (tail), requested
// (fetched), parsed in order (known); per slot whether it holds a parsed
// descriptor, and its buffer.
struct PcieNic::Ring {
  std::uint64_t tail = 0, fetched = 0, known = 0;
  std::vector<std::uint8_t> valid;
  std::vector<std::uint64_t> addr;
  std::vector<std::uint32_t> len;
  void reset(std::uint32_t n) {
    valid.assign(n, 0);
    addr.assign(n, 0);
    len.assign(n, 0);
  }
};

struct PcieNic::Queue {
  int index = 0;
  NicQueueSetup s;
  bool ready = false;
  Ring tx, rx;
  // TX: packets whose reads are issued (next, and bytes of it), their bytes
  // in, done in order.
  std::uint64_t tx_issue = 0, tx_done = 0, tx_told = 0;
  std::uint32_t tx_issue_off = 0;
  std::vector<std::uint32_t> tx_got;
  // Per TX slot, a timed packet's ledger: from its doorbell or push on, the
  // critical path of its descriptor and data reads.
  std::vector<Ledger*> tx_led;
  Tick tx_engine = 0;
  std::deque<Looped> wire;  // packets on their way back
  // RX: descriptors used.
  std::uint64_t rx_used = 0;
  std::deque<Looped> rx_wait;  // received, waiting for a descriptor
  Tick rx_engine = 0;
  bool msi_pending = false;
  Tick last_msi = 0;
  bool has_msi = false;
  std::uint64_t dropped = 0;  // the RX drop counter
};

PcieNic::PcieNic(const std::string& name, const PcieNicConfig& cfg) : m_name(name), m_cfg(cfg) {
  if (cfg.tx_desc_B < 16 || cfg.tx_desc_B > 64 || (cfg.tx_desc_B & (cfg.tx_desc_B - 1)))
    sim_fail(name, "a TX descriptor of 16, 32 or 64 B");
  if (cfg.rx_desc_B < 16 || cfg.rx_desc_B > 64 || (cfg.rx_desc_B & (cfg.rx_desc_B - 1)))
    sim_fail(name, "an RX descriptor of 16, 32 or 64 B");
  if (cfg.cqe_B < 16 || cfg.cqe_B > 64 || (cfg.cqe_B & (cfg.cqe_B - 1))) sim_fail(name, "a completion of 16, 32 or 64 B");
  if (cfg.desc_fetch < 1 || cfg.max_reads < 1 || cfg.tx_wb_every < 1 || cfg.rx_cache < 1 || !(cfg.line_Gbps > 0))
    sim_fail(name, "desc_fetch, max_reads, tx_wb_every, rx_cache and the line rate must be positive");
  m_reqs.resize(static_cast<std::size_t>(cfg.max_reads));
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".tlps_out", &tlps_out, "TLP", "TLPs the NIC sent (reads, writes, MSIs)");
  reg.add_counter(name + ".doorbells", &doorbells, "1", "doorbell and push writes taken");
  reg.add_counter(name + ".msis", &msis, "1", "MSIs sent");
  reg.add_counter(name + ".rx_waits", &rx_waits, "1", "packets that found no RX descriptor fetched");
  if (cfg.rx_buffer) reg.add_counter(name + ".rx_drops", &rx_drops, "1", "packets dropped: no room in the RX buffer");
}

PcieNic::~PcieNic() {
  for (auto& o : m_out) pcie::TlpPool::instance().put(o.first);
  for (auto& q : m_q) {
    for (Ledger*& l : q->tx_led) drop_ledger(l);
    for (auto* d : {&q->wire, &q->rx_wait})
      for (Looped& p : *d) drop_ledger(p.led);
  }
}

void PcieNic::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_read = ep.add_stream(m_name + ".reads", static_cast<std::size_t>(m_cfg.max_reads));
  m_s_write = ep.add_stream(m_name + ".writes", 64);
}

void PcieNic::setup(int q, const NicQueueSetup& s) {
  if (q < 0 || q >= kNicMaxQueues) sim_fail(m_name, "no queue " + std::to_string(q));
  if (s.ring < 2) sim_fail(m_name, "a ring of at least two descriptors");
  while (static_cast<int>(m_q.size()) <= q) {
    m_q.push_back(std::make_unique<Queue>());
    m_q.back()->index = static_cast<int>(m_q.size() - 1);
  }
  Queue& x = *m_q[static_cast<std::size_t>(q)];
  x.s = s;
  x.ready = true;
  x.tx.reset(s.ring);
  x.rx.reset(s.ring);
  x.tx_got.assign(s.ring, 0);
  x.tx_led.assign(s.ring, nullptr);
}

bool PcieNic::busy() const {
  if (m_in_flight || !m_out.empty()) return true;
  for (const auto& q : m_q)
    if (q->tx_done < q->tx.tail || !q->wire.empty() || !q->rx_wait.empty()) return true;
  return false;
}

std::string PcieNic::status() const {
  std::string s = std::to_string(m_in_flight) + " reads in flight";
  for (const auto& q : m_q)
    s += "; queue " + std::to_string(q->index) + ": TX tail " + std::to_string(q->tx.tail) + ", done " + std::to_string(q->tx_done) +
         ", RX posted " + std::to_string(q->rx.tail) + ", used " + std::to_string(q->rx_used) + ", " +
         std::to_string(q->rx_wait.size()) + " packets waiting for a descriptor";
  return s;
}

void PcieNic::on_write(const Tlp& t) {
  const std::uint64_t bar = m_ep->config().bars.empty() ? 0 : m_ep->config().bars[0].base;
  const std::uint64_t off = t.addr - bar;
  std::uint8_t b[PayloadBytes::kMax];
  t.payload(b);
  ++doorbells;
  if (off >= kNicPush) {
    const std::uint64_t qi = (off - kNicPush) >> 12;
    if (qi >= m_q.size() || !m_q[qi]->ready) sim_fail(m_name, "a push to queue " + std::to_string(qi) + ", which is not set up");
    Queue& q = *m_q[qi];
    if (t.len % m_cfg.tx_desc_B) sim_fail(m_name, "a push of " + std::to_string(t.len) + " B: not whole descriptors");
    for (std::uint32_t o = 0; o < t.len; o += m_cfg.tx_desc_B) {
      const std::uint64_t i = q.tx.tail;
      if (i - q.tx_done >= q.s.ring) sim_fail(m_name, "a descriptor pushed into a full ring");
      q.tx.tail = q.tx.fetched = i + 1;
      parsed(q, q.tx, "TX", i, b + o);
      Ledger*& l = q.tx_led[i % q.s.ring];
      drop_ledger(l);
      l = fork_ledger(t.ledger);
    }
  } else {
    const std::uint64_t qi = off >> 8, reg = off & 0xff;
    if (qi >= m_q.size() || !m_q[qi]->ready || (reg != 0 && reg != 8) || t.len != 4)
      sim_fail(m_name, "a write of " + std::to_string(t.len) + " B to register offset " + hex(off) + ", which is no queue's tail");
    Queue& q = *m_q[qi];
    const std::uint64_t v = get_le(b, 4);
    // A tail register holds the ring position (modulo 2^32): the count since the start.
    std::uint64_t& tail = reg == 0 ? q.tx.tail : q.rx.tail;
    const std::uint64_t next = (tail & ~0xffffffffull) | v;
    const std::uint64_t now_tail = next < tail ? next + (1ull << 32) : next;
    const std::uint64_t floor = reg == 0 ? q.tx_done : q.rx_used;
    if (now_tail - floor > q.s.ring) sim_fail(m_name, "a tail " + std::to_string(now_tail) + " more than a ring ahead");
    if (reg == 0 && t.ledger)  // a timed doorbell: each packet it announces goes on from it
      for (std::uint64_t i = tail; i < now_tail; ++i) {
        Ledger*& l = q.tx_led[i % q.s.ring];
        drop_ledger(l);
        l = fork_ledger(t.ledger);
      }
    tail = now_tail;
  }
  pump();
}

void PcieNic::parsed(Queue& q, Ring& r, const char* what, std::uint64_t i, const std::uint8_t* d) {
  const std::size_t s = i % q.s.ring;
  if (get_le(d + 12, 4) != (i & 0xffffffffu))
    sim_fail(m_name, std::string(what) + " descriptor " + std::to_string(i) + " of queue " + std::to_string(q.index) +
                         " holds number " + std::to_string(get_le(d + 12, 4)) + ": the ring is out of step");
  r.addr[s] = get_le(d, 8);
  r.len[s] = static_cast<std::uint32_t>(get_le(d + 8, 4));
  if (r.len[s] == 0 || (&r == &q.tx && r.len[s] > 9216))
    sim_fail(m_name, std::string("a ") + what + " descriptor of " + std::to_string(r.len[s]) + " B");
  if (&r == &q.tx) q.tx_got[s] = 0;
  r.valid[s] = 1;
  while (r.known < r.fetched && r.valid[r.known % q.s.ring]) ++r.known;
}

bool PcieNic::issue_read(Queue& q, int kind, std::uint64_t first, std::uint32_t n, std::uint64_t addr, std::uint32_t len) {
  if (m_in_flight >= m_cfg.max_reads || m_ep->stream_full(m_s_read)) return false;
  std::size_t tag = 0;
  while (m_reqs[tag].used) ++tag;
  Req& r = m_reqs[tag];
  r.used = true;
  r.kind = kind;
  r.q = q.index;
  r.first = first;
  r.n = n;
  r.addr = addr;
  r.len = len;
  r.got = 0;
  r.pkt_off = kind == kData ? q.tx_issue_off : 0;
  if (kind != kData) r.buf.assign(len, 0);
  // A timed packet's wait for a read ends now. A packet's data read carries
  // its ledger on; a descriptor read, shared by the packets it fetches, one
  // of its own that they extend theirs with when it is back.
  r.timed = false;
  Ledger* led = nullptr;
  const Tick now = now_tick();
  if (kind == kData) {
    if (Ledger* l = q.tx_led[first % q.s.ring]) {
      l->charge(Stage::Device, now);
      led = fork_ledger(l);
    }
  } else if (kind == kTxDesc) {
    for (std::uint64_t i = first; i < first + n; ++i)
      if (Ledger* l = q.tx_led[i % q.s.ring]) {
        l->charge(Stage::Device, now);
        r.timed = true;
      }
    if (r.timed) {
      led = LedgerPool::instance().get();
      led->open(now);
    }
  }
  Tlp* t = m_ep->make(TlpKind::MemRd);
  t->ledger = led;
  t->addr = addr;
  t->addr64 = pcie::needs_addr64(addr);
  t->req_len = len;
  t->tag = static_cast<std::uint16_t>(tag);
  t->want_bytes = kind != kData;
  m_ep->push(m_s_read, t, now_tick());
  ++m_in_flight;
  ++tlps_out;
  return true;
}

// Reads to issue, queue by queue from a rotating start: descriptor reads
// first (TX, then RX), then packet reads in ring order.
void PcieNic::pump() {
  const std::size_t nq = m_q.size();
  for (std::size_t k = 0; k < nq; ++k) {
    Queue& q = *m_q[(m_rr + k) % nq];
    if (!q.ready) continue;
    const std::uint64_t ring = q.s.ring;
    while (!m_cfg.push_desc && q.tx.fetched < q.tx.tail) {
      const std::uint64_t n = std::min<std::uint64_t>({static_cast<std::uint64_t>(m_cfg.desc_fetch), q.tx.tail - q.tx.fetched,
                                                       ring - q.tx.fetched % ring});
      const std::uint64_t at = q.s.tx_ring + (q.tx.fetched % ring) * m_cfg.tx_desc_B;
      if (!issue_read(q, kTxDesc, q.tx.fetched, static_cast<std::uint32_t>(n), at, static_cast<std::uint32_t>(n * m_cfg.tx_desc_B)))
        return;
      for (std::uint64_t i = q.tx.fetched; i < q.tx.fetched + n; ++i) q.tx.valid[i % ring] = 0;
      q.tx.fetched += n;
    }
    // RX descriptors are fetched a whole read at a time: once the cache has
    // room for desc_fetch of them (or for all the driver has posted).
    const auto cache = static_cast<std::uint64_t>(m_cfg.rx_cache), batch = static_cast<std::uint64_t>(m_cfg.desc_fetch);
    while (q.rx.fetched < q.rx.tail && cache - (q.rx.fetched - q.rx_used) >= std::min(batch, q.rx.tail - q.rx.fetched)) {
      const std::uint64_t n = std::min<std::uint64_t>({batch, q.rx.tail - q.rx.fetched, ring - q.rx.fetched % ring,
                                                       cache - (q.rx.fetched - q.rx_used)});
      const std::uint64_t at = q.s.rx_ring + (q.rx.fetched % ring) * m_cfg.rx_desc_B;
      if (!issue_read(q, kRxDesc, q.rx.fetched, static_cast<std::uint32_t>(n), at, static_cast<std::uint32_t>(n * m_cfg.rx_desc_B)))
        return;
      for (std::uint64_t i = q.rx.fetched; i < q.rx.fetched + n; ++i) q.rx.valid[i % ring] = 0;
      q.rx.fetched += n;
    }
  }
  const auto mrrs = static_cast<std::uint32_t>(m_ep->config().mrrs);
  for (std::size_t k = 0; k < nq; ++k) {
    Queue& q = *m_q[(m_rr + k) % nq];
    while (q.ready && q.tx_issue < q.tx.known) {
      const std::size_t s = q.tx_issue % q.s.ring;
      const std::uint64_t addr = q.tx.addr[s] + q.tx_issue_off;
      const std::uint32_t len = dma::next_chunk(addr, q.tx.len[s] - q.tx_issue_off, mrrs);
      if (!issue_read(q, kData, q.tx_issue, 0, addr, len)) {
        m_rr = (m_rr + k) % nq;  // this queue goes first when reads free up
        return;
      }
      q.tx_issue_off += len;
      if (q.tx_issue_off == q.tx.len[s]) {
        q.tx_issue_off = 0;
        ++q.tx_issue;
      }
    }
  }
  if (nq) m_rr = (m_rr + 1) % nq;
}

void PcieNic::on_completion(const Tlp& t) {
  if (t.tag >= m_reqs.size() || !m_reqs[t.tag].used) sim_fail(m_name, "a completion for tag " + std::to_string(t.tag) + ", which is not in flight");
  Req& r = m_reqs[t.tag];
  if (t.addr != r.addr + r.got || r.got + t.len > r.len) sim_fail(m_name, "a completion out of its request's order or size");
  Queue& q = *m_q[static_cast<std::size_t>(r.q)];
  if (r.kind == kData) {
    // The packet's bytes are the ones its driver wrote.
    const std::uint64_t off = packet_off(r.first) + r.pkt_off + r.got;
    if (t.checksum != pattern_checksum(kPacketStream + static_cast<std::uint64_t>(r.q), off, t.len))
      sim_fail(m_name, "packet " + std::to_string(r.first) + " of queue " + std::to_string(r.q) + " read back wrong at " + hex(t.addr));
  } else {
    t.payload(r.buf.data() + r.got);
  }
  r.got += t.len;
  if (r.got < r.len) return;
  r.used = false;
  --m_in_flight;
  if ((r.timed || (r.kind == kData && q.tx_led[r.first % q.s.ring])) && !t.ledger)
    sim_fail(m_name, "a timed packet's read came back without its ledger");
  if (r.kind == kTxDesc) {
    for (std::uint32_t i = 0; i < r.n; ++i) {
      parsed(q, q.tx, "TX", r.first + i, r.buf.data() + i * m_cfg.tx_desc_B);
      if (Ledger* l = q.tx_led[(r.first + i) % q.s.ring]) l->extend(*t.ledger);
    }
  } else if (r.kind == kRxDesc) {
    for (std::uint32_t i = 0; i < r.n; ++i) parsed(q, q.rx, "RX", r.first + i, r.buf.data() + i * m_cfg.rx_desc_B);
    receive(q);
  } else {
    const std::size_t s = r.first % q.s.ring;
    q.tx_got[s] += r.len;
    if (q.tx_got[s] == q.tx.len[s] && q.tx_led[s]) q.tx_led[s]->copy_from(*t.ledger);  // its last bytes' read
    transmit(q);
  }
  pump();
}

// Packets whose bytes are all in leave in ring order.
void PcieNic::transmit(Queue& q) {
  while (q.tx_done < q.tx_issue) {
    const std::size_t s = q.tx_done % q.s.ring;
    if (!q.tx.valid[s] || q.tx_got[s] < q.tx.len[s]) return;
    const std::uint32_t len = q.tx.len[s];
    const Tick now = now_tick();
    const Tick start = std::max(now, q.tx_engine);
    q.tx_engine = start + m_cfg.per_packet;
    // Preamble and start delimiter 8 B, FCS 4 B, gap 12 B; a frame is at least 64 B with its FCS.
    const std::uint64_t wire_B = std::max<std::uint64_t>(len, 60) + 24;
    const Tick frame = static_cast<Tick>(static_cast<double>(wire_B) * 8000.0 / m_cfg.line_Gbps);
    const Tick on_wire = std::max(q.tx_engine + m_cfg.tx_pipeline, m_wire_free);
    m_wire_free = on_wire + frame;
    const Tick back = m_wire_free + m_cfg.loopback + m_cfg.rx_pipeline;
    // The NIC's own from here: its TX engine and pipeline, the port, the
    // loopback and the RX pipeline.
    if (Ledger* l = q.tx_led[s]) l->charge(Stage::Device, back);
    q.wire.push_back(Looped{q.tx_done, len, q.tx_led[s]});
    q.tx_led[s] = nullptr;
    m_ep->scheduler().at(back, this, kRxArrive, static_cast<std::uint64_t>(q.index));
    q.tx.valid[s] = 0;
    ++q.tx_done;
    if (q.tx_done - q.tx_told >= static_cast<std::uint64_t>(m_cfg.tx_wb_every)) {
      q.tx_told = q.tx_done;
      std::uint8_t b[8];
      put_le(b, q.tx_done, 8);
      emit(write_bytes(q.s.tx_wb, b, 8), now);
    }
  }
}

// Received packets take the next RX descriptors, in order.
void PcieNic::receive(Queue& q) {
  const auto mps = static_cast<std::uint32_t>(m_ep->mps());
  while (!q.rx_wait.empty() && q.rx_used < q.rx.known) {
    const auto [k, len, led] = q.rx_wait.front();
    q.rx_wait.pop_front();
    const std::uint64_t i = q.rx_used++;
    const std::size_t s = i % q.s.ring;
    if (len > q.rx.len[s]) sim_fail(m_name, "a packet of " + std::to_string(len) + " B for an RX buffer of " + std::to_string(q.rx.len[s]) + " B");
    const Tick start = std::max(now_tick(), q.rx_engine);
    q.rx_engine = start + m_cfg.per_packet;
    const Tick at = q.rx_engine;
    const std::uint64_t stream = kPacketStream + static_cast<std::uint64_t>(q.index);
    for (std::uint32_t o = 0; o < len;) {
      const std::uint64_t a = q.rx.addr[s] + o;
      const std::uint32_t n = dma::next_chunk(a, len - o, mps);
      Tlp* t = m_ep->make(TlpKind::MemWr);
      t->addr = a;
      t->addr64 = pcie::needs_addr64(a);
      t->len = n;
      t->data_stream = stream;
      t->data_off = packet_off(k) + o;
      t->checksum = pattern_checksum(stream, t->data_off, n);
      emit(t, at);
      o += n;
    }
    std::uint8_t c[64] = {};
    put_le(c, k + 1, 8);
    put_le(c + 8, len, 4);
    Tlp* cqe = write_bytes(q.s.rx_cq + s * m_cfg.cqe_B, c, m_cfg.cqe_B);
    if ((cqe->ledger = led)) led->charge(Stage::Device, at);  // a descriptor, the RX engine; the completion, written last, carries it on
    if (m_cfg.rx_buffer) m_rx_leaving.emplace_back(cqe, len);
    emit(cqe, at);
    if (q.s.irq && !q.msi_pending) {
      const Tick when = q.has_msi ? std::max(at, q.last_msi + m_cfg.irq_interval) : at;
      q.msi_pending = true;
      m_ep->scheduler().at(when, this, kMsi, static_cast<std::uint64_t>(q.index));
    }
  }
}

void PcieNic::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  Queue& q = *m_q.at(static_cast<std::size_t>(arg));
  if (kind == kRxArrive) {
    if (q.wire.empty()) sim_fail(m_name, "a packet arrived that was never sent");
    const Looped p = q.wire.front();
    q.wire.pop_front();
    // Into the RX buffer if it fits, else dropped.
    if (m_cfg.rx_buffer && m_rx_held + p.len > m_cfg.rx_buffer) {
      ++rx_drops;
      ++q.dropped;
      Ledger* l = p.led;
      drop_ledger(l);
      return;
    }
    if (q.rx_used >= q.rx.known) ++rx_waits;
    q.rx_wait.push_back(p);
    if (m_cfg.rx_buffer) m_rx_held += p.len;
    receive(q);
    pump();
  } else if (kind == kMsi) {
    q.msi_pending = false;
    q.has_msi = true;
    q.last_msi = now_tick();
    ++msis;
    emit(m_ep->make_msi(static_cast<std::uint32_t>(q.index)), now_tick());
  }
}

// A packet's completion leaving frees its bytes of the RX buffer (its data
// writes left before it, in the one write stream's order).
void PcieNic::on_sent(const Tlp& t, Tick, Tick) {
  if (!m_rx_leaving.empty() && m_rx_leaving.front().first == &t) {
    m_rx_held -= m_rx_leaving.front().second;
    m_rx_leaving.pop_front();
  }
}

bool PcieNic::register_bytes(std::uint64_t addr, std::uint32_t len, std::uint8_t* out) const {
  const std::uint64_t bar = m_ep->config().bars.empty() ? 0 : m_ep->config().bars[0].base;
  if (addr < bar || addr - bar >= kNicPush) return false;
  const std::uint64_t qi = (addr - bar) >> 8, reg = (addr - bar) & 0xff;
  if (qi >= m_q.size() || reg < kNicRxDrops || reg + len > kNicRxDrops + 8) return false;
  std::uint8_t b[8];
  put_le(b, m_q[qi]->dropped, 8);
  std::memcpy(out, b + (reg - kNicRxDrops), len);
  return true;
}

Tlp* PcieNic::write_bytes(std::uint64_t addr, const std::uint8_t* b, std::uint32_t n) {
  Tlp* t = m_ep->make(TlpKind::MemWr);
  t->addr = addr;
  t->addr64 = pcie::needs_addr64(addr);
  t->set_bytes(b, n);
  return t;
}

// Writes leave in the order made; those the stream has no room for wait here.
void PcieNic::emit(Tlp* t, Tick at) {
  ++tlps_out;
  if (m_out.empty() && !m_ep->stream_full(m_s_write)) m_ep->push(m_s_write, t, at);
  else m_out.emplace_back(t, at);
}

void PcieNic::on_tx_space(int stream) {
  if (stream == m_s_write)
    while (!m_out.empty() && !m_ep->stream_full(m_s_write)) {
      Tlp* t = m_out.front().first;
      const Tick at = std::max(now_tick(), m_out.front().second);
      if (t->ledger) t->ledger->charge(Stage::Arbitration, at);  // behind older writes for room in the stream
      m_ep->push(m_s_write, t, at);
      m_out.pop_front();
    }
  if (stream == m_s_read) pump();
}

// ---------------------------------------------------------------------------
// The driver.

struct PcieNicDriver::Queue : LoopQueue {
  int index = 0;
  // The timed packets sent and not yet received, in order: each one's
  // ledger from when it was due to its doorbell (or push).
  std::deque<Ledger> pre;
  std::vector<Ledger> seen;  // the RX core's batch: its packets' ledgers as the completions brought them
  std::vector<std::uint64_t> packet;  // ... and their numbers
  bool tx_all = false;  // the TX core has sent every packet (and kicked the RX core)
  std::uint64_t tx_ring = 0, tx_buf = 0, tx_wb = 0, rx_ring = 0, rx_buf = 0, rx_cq = 0, db = 0;
  int wb_ring = -1, cq_ring = -1;
};

namespace {
constexpr std::uint64_t kLine = 64;
// Once every packet is sent, how long the RX core waits for a completion
// before it reads the queue's drop counter (the test's end, not a measured
// time: at least a packet's round trip through the NIC, so the counter is
// read once the last packets are in).
constexpr Tick kRxQuiet = 10 * kUs;
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
// A buffer per descriptor: at least 2 KiB (a driver's usual buffer), whole lines.
std::uint64_t stride(const Traffic& t) { return std::max<std::uint64_t>(2048, round_up(t.packet_B, kLine)); }

// Where a queue's pieces lie, as offsets from its memory's start, and the bytes it takes.
struct QueueLayout {
  std::uint64_t tx_ring, tx_buf, tx_wb, db, rx_ring, rx_buf, rx_cq, bytes;
};
QueueLayout layout(const PcieNicConfig& c, const Traffic& t) {
  const auto ring = static_cast<std::uint64_t>(t.ring);
  std::uint64_t a = 0;
  auto take = [&](std::uint64_t bytes) {
    const std::uint64_t at = a;
    a += bytes;
    return at;
  };
  QueueLayout l{};
  l.tx_ring = take(round_up(ring * c.tx_desc_B, 4096));
  l.tx_buf = take(ring * stride(t));
  l.tx_wb = take(kLine);
  l.db = take(4096 - kLine);  // the doorbell's value, for a WC store of it
  l.rx_ring = take(round_up(ring * c.rx_desc_B, 4096));
  l.rx_buf = take(ring * stride(t));
  l.rx_cq = take(round_up(ring * c.cqe_B, 4096));
  l.bytes = a;
  return l;
}
}  // namespace

std::uint64_t PcieNicDriver::queue_bytes(const PcieNicConfig& c, const Traffic& t) { return layout(c, t).bytes; }

PcieNicDriver::PcieNicDriver(const std::string& name, const PcieNicConfig& cfg, const Traffic& t, bool irq, PcieNic& nic,
                             host::HostCpu& cpu, std::uint64_t bar, const std::vector<std::uint64_t>& base)
    : m_name(name), m_cfg(cfg), m_t(t), m_irq(irq), m_cpu(cpu), m_bar(bar) {
  if (t.queues < 1 || t.queues > kNicMaxQueues || static_cast<std::size_t>(t.queues) != base.size())
    sim_fail(name, "one to 32 queues, each with its memory");
  if (2 * t.queues > cpu.config().cores) sim_fail(name, "each queue takes two host cores");
  if (t.ring < 2 || t.batch < 1 || t.batch > t.ring / 2) sim_fail(name, "a batch is at most half a ring");
  if (t.ring < 2 * cfg.tx_wb_every) sim_fail(name, "a ring of at least twice tx_wb_every descriptors (the driver waits for write-backs)");
  if (t.packet_B < 1 || t.packet_B > 9216) sim_fail(name, "packets of 1 B to 9216 B");
  // A buffer that holds a packet never drops the one packet of a ping-pong,
  // which the sender waits for.
  if (cfg.rx_buffer && cfg.rx_buffer < t.packet_B) sim_fail(name, "an RX buffer that holds at least one packet");
  const auto ring = static_cast<std::uint64_t>(t.ring);
  const QueueLayout l = layout(cfg, t);
  for (int i = 0; i < t.queues; ++i) {
    auto q = std::make_unique<Queue>();
    q->index = i;
    const std::uint64_t a = base[static_cast<std::size_t>(i)];
    q->tx_ring = a + l.tx_ring;
    q->tx_buf = a + l.tx_buf;
    q->tx_wb = a + l.tx_wb;
    q->db = a + l.db;
    q->rx_ring = a + l.rx_ring;
    q->rx_buf = a + l.rx_buf;
    q->rx_cq = a + l.rx_cq;
    q->wb_ring = cpu.arm_ring(q->tx_wb, 8, 1, 2 * i);
    q->cq_ring = cpu.arm_ring(q->rx_cq, cfg.cqe_B, static_cast<std::uint32_t>(ring), 2 * i + 1);
    q->due.assign(t.warmup + t.packets, 0);
    nic.setup(i, NicQueueSetup{q->tx_ring, q->tx_wb, q->rx_ring, q->rx_cq, static_cast<std::uint32_t>(ring), irq});
    m_q.push_back(std::move(q));
  }
}

PcieNicDriver::~PcieNicDriver() = default;

void PcieNicDriver::start() {
  for (auto& q : m_q) {
    Queue* x = q.get();
    std::string n = m_name + "_q" + std::to_string(x->index);
    std::replace(n.begin(), n.end(), '.', '_');  // SystemC process names take no dots
    m_cpu.spawn(n + "_tx", 2 * x->index, [this, x](int core) { tx(*x, core); });
    m_cpu.spawn(n + "_rx", 2 * x->index + 1, [this, x](int core) { rx(*x, core); });
  }
}

bool PcieNicDriver::done() const { return all_finished(m_q); }

double PcieNicDriver::progress() const { return mean_progress(m_q); }

// A tail register's new value (modulo 2^32), by UC store or by WC store and fence.
void PcieNicDriver::doorbell(Queue& q, int core, std::uint64_t reg, std::uint32_t value, Ledger* led) {
  std::uint8_t b[4];
  put_le(b, value, 4);
  const std::uint64_t addr = m_bar + kNicTail + 0x100ull * static_cast<std::uint64_t>(q.index) + reg;
  ++m_doorbells;
  if (m_cfg.doorbell_wc) {
    m_cpu.port(core).store(q.db, b, 4);
    m_cpu.mmio_copy_wc(core, addr, q.db, 4, led);
    m_cpu.fence(core);
  } else {
    m_cpu.mmio_write_bytes(core, addr, b, 4, led);
  }
}

void PcieNicDriver::tx(Queue& q, int core) {
  host::MemoryPort& mem = m_cpu.port(core);
  const auto ring = static_cast<std::uint64_t>(m_t.ring);
  const std::uint64_t stream = kPacketStream + static_cast<std::uint64_t>(q.index);
  std::uint64_t reclaimed = 0;
  Pacer pace(m_t, q.due, q.received, q.rx_ev);
  std::uint8_t d[64] = {};
  for (std::uint64_t k = 0; k < q.due.size();) {
    const std::uint64_t n = pace.next(k);
    while (k + n - reclaimed > ring) {
      m_cpu.wait_ring(q.wb_ring, 0);
      std::uint8_t b[8];
      mem.load(q.tx_wb, b, 8);
      reclaimed = get_le(b, 8);
      m_cpu.clear_ring(q.wb_ring, 0);
    }
    // The driver's work on the batch: each packet and its descriptor.
    mem.begin_stretch();
    for (std::uint64_t i = k; i < k + n; ++i) {
      const std::uint64_t buf = q.tx_buf + (i % ring) * stride(m_t);
      mem.copy_pattern(buf, stream, packet_off(i), m_t.packet_B);
      put_desc(d, buf, m_t.packet_B, i);
      mem.store(q.tx_ring + (i % ring) * m_cfg.tx_desc_B, d, m_cfg.tx_desc_B);
    }
    mem.end_stretch(static_cast<Tick>(n) * m_cfg.driver_per_packet);
    // A batch with timed packets: each one's time so far is the driver's;
    // the doorbell (or the pushes) carries one ledger for them all on.
    Ledger seg;
    Ledger* led = nullptr;
    if (k + n > m_t.warmup) {
      const Tick now = now_tick();
      for (std::uint64_t i = std::max(k, m_t.warmup); i < k + n; ++i) {
        q.pre.emplace_back();
        q.pre.back().open(q.due[i]);
        q.pre.back().charge(Stage::Software, now);
      }
      seg.open(now);
      led = &seg;
    }
    if (m_cfg.push_desc) {
      // The descriptors go into the queue's push window with WC stores.
      const std::uint64_t win = m_bar + kNicPush + 0x1000ull * static_cast<std::uint64_t>(q.index);
      const std::uint64_t per = 4096 / m_cfg.tx_desc_B;
      for (std::uint64_t i = k; i < k + n; ++i)
        m_cpu.mmio_copy_wc(core, win + (i % per) * m_cfg.tx_desc_B, q.tx_ring + (i % ring) * m_cfg.tx_desc_B, m_cfg.tx_desc_B, led);
      m_cpu.fence(core);
      ++m_doorbells;
    } else {
      doorbell(q, core, 0, static_cast<std::uint32_t>(k + n), led);
    }
    k += n;
  }
  // With drops, the RX core may wait for a completion that never comes: wake it.
  q.tx_all = true;
  if (m_cfg.rx_buffer) {
    if (m_irq) m_cpu.kick_msi(static_cast<std::uint32_t>(q.index));
    else m_cpu.kick_ring(q.cq_ring);
  }
}

void PcieNicDriver::rx(Queue& q, int core) {
  host::MemoryPort& mem = m_cpu.port(core);
  const auto ring = static_cast<std::uint64_t>(m_t.ring);
  const std::uint64_t stream = kPacketStream + static_cast<std::uint64_t>(q.index);
  const std::uint64_t total = q.due.size();
  const std::uint64_t thresh = std::min<std::uint64_t>(32, ring / 4);
  std::uint8_t d[64] = {};
  auto post = [&](std::uint64_t i) {
    put_desc(d, q.rx_buf + (i % ring) * stride(m_t), static_cast<std::uint32_t>(stride(m_t)), i);
    mem.store(q.rx_ring + (i % ring) * m_cfg.rx_desc_B, d, m_cfg.rx_desc_B);
  };
  for (std::uint64_t i = 0; i < ring; ++i) post(i);
  std::uint64_t posted = ring, told = ring;
  doorbell(q, core, 8, static_cast<std::uint32_t>(ring));
  const bool drops = m_cfg.rx_buffer > 0;
  const std::uint64_t drop_reg = m_bar + kNicTail + 0x100ull * static_cast<std::uint64_t>(q.index) + kNicRxDrops;
  const auto slot = [&](std::uint64_t i) { return static_cast<std::uint32_t>(i % ring); };
  const auto msi = static_cast<std::uint32_t>(q.index);  // the queue's interrupt vector
  // When completion i may be taken: polled, when seen; asleep, when its write committed (kNever: not yet written).
  const auto ready = [&](std::uint64_t i) {
    return m_irq ? m_cpu.ring_commit(q.cq_ring, slot(i)) : m_cpu.ring_seen(q.cq_ring, slot(i));
  };
  std::uint64_t read = 0;      // completions taken: the RX descriptors used
  std::uint64_t next = 0;      // the next packet expected: each one before it received or dropped
  std::uint64_t pre_next = 0;  // the packet q.pre's front belongs to (when timed)
  // Waits for completion `read` (polled: until seen; asleep: until an
  // interrupt, and its write committed); false when none will come: every
  // packet the TX core sent was received or, as the drop counter says,
  // dropped.
  const auto wait_next = [&]() -> bool {
    for (;;) {
      if (drops && q.tx_all) {
        const Tick c = ready(read);
        if (c != kNever) {
          wait_for(c > now_tick() ? c - now_tick() : 0);
          return true;
        }
        // Nothing yet: wait a while for more before asking the NIC what it dropped.
        const Tick until = now_tick() + kRxQuiet;
        if (m_irq ? m_cpu.wait_msi(core, msi, until) : m_cpu.wait_ring_until(q.cq_ring, slot(read), until))
          continue;
        std::uint8_t b[8];
        m_cpu.mmio_read(core, drop_reg, 8, b);
        const std::uint64_t dropped = get_le(b, 8);
        if (read + dropped > total)
          sim_fail(m_name, "queue " + std::to_string(q.index) + " received " + std::to_string(read) + " packets and dropped " +
                               std::to_string(dropped) + " of " + std::to_string(total) + " sent");
        if (read + dropped < total) continue;
        return false;
      }
      if (m_irq) {
        // An interrupt follows its completion's write, which may commit a little after it arrives.
        Tick c;
        while ((c = ready(read)) > now_tick()) {
          if (c != kNever) wait_for(c - now_tick());
          else if (!m_cpu.wait_msi(core, msi)) break;  // kicked: every packet is sent
        }
        if (c <= now_tick()) return true;
      } else if (m_cpu.wait_ring_until(q.cq_ring, slot(read))) {  // false only when kicked
        return true;
      }
    }
  };
  while (next < total && wait_next()) {
    std::uint64_t n = 1;
    while (n < static_cast<std::uint64_t>(m_t.batch) && read + n < total && ready(read + n) <= now_tick()) ++n;
    // Each completion names its packet: those it skips were dropped. The
    // timed packets' ledgers run from their doorbell to their completion's
    // commit (asleep: the interrupt's delivery and the wake-up are then
    // software) or to when the poll saw it.
    if (q.seen.size() < n) {
      q.seen.resize(n);
      q.packet.resize(n);
    }
    for (std::uint64_t i = read; i < read + n; ++i) {
      std::uint8_t c[12];
      mem.load(q.rx_cq + slot(i) * m_cfg.cqe_B, c, 12);
      const std::uint64_t k = get_le(c, 8) - 1, len = get_le(c + 8, 4);
      if (k < next || k >= total || (!drops && k != next) || len != m_t.packet_B)
        sim_fail(m_name, "completion " + std::to_string(i) + " of queue " + std::to_string(q.index) + " says packet " +
                             std::to_string(k) + " of " + std::to_string(len) + " B: packets " + (drops ? "" : "lost, ") +
                             "reordered or cut");
      next = k + 1;
      q.packet[i - read] = k;
      if (k >= m_t.warmup && !m_cpu.ring_ledger(q.cq_ring, slot(i), !m_irq, q.seen[i - read]))
        sim_fail(m_name, "timed packet " + std::to_string(k) + " of queue " + std::to_string(q.index) + " completed without its ledger");
      if (!mem.holds_pattern(q.rx_buf + slot(i) * stride(m_t), stream, packet_off(k), m_t.packet_B))
        sim_fail(m_name, "packet " + std::to_string(k) + " of queue " + std::to_string(q.index) + " arrived with wrong bytes");
      m_cpu.clear_ring(q.cq_ring, slot(i));
    }
    // The driver's work on the batch: each packet, and its copy of the packet's bytes.
    mem.begin_stretch();
    for (std::uint64_t i = read; i < read + n; ++i) mem.copy_out(q.rx_buf + slot(i) * stride(m_t), m_t.packet_B);
    mem.end_stretch(static_cast<Tick>(n) * m_cfg.driver_per_packet);
    for (std::uint64_t i = read; i < read + n; ++i) {
      const std::uint64_t k = q.packet[i - read];
      m_timing.received(k, q.due[k], m_t.warmup);
      for (; pre_next < k; ++pre_next)  // dropped before it
        if (pre_next >= m_t.warmup) q.pre.pop_front();
      pre_next = k + 1;
      if (k < m_t.warmup) continue;
      Ledger& l = q.pre.front();
      l.extend(q.seen[i - read]);
      l.charge(Stage::Software, now_tick());  // the driver's work on the batch up to this packet's reception
      m_breakdown.add(l, q.due[k], now_tick());
      q.pre.pop_front();
    }
    read += n;
    q.received = next;
    q.rx_ev.notify(sc_core::SC_ZERO_TIME);
    // The buffers go back to the NIC.
    for (; posted < read + ring; ++posted) post(posted);
    if (posted - told >= thresh) {
      told = posted;
      doorbell(q, core, 8, static_cast<std::uint32_t>(posted));
    }
  }
  q.pre.clear();  // the last packets', dropped
  q.received = total;
  m_dropped += total - read;
  q.finished = true;
}

}  // namespace hx::nic
