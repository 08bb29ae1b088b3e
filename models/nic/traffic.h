// The packet loop every NIC model runs (the `nic_loop` workload): host
// cores send packets in batches, the NIC returns each one, host cores
// receive them and time each from when it was due. The same traffic and
// the same timing serve the NICs on the socket interconnect
// (coherent_nic.h) and those on PCIe (pcie_nic.h), so their figures are
// comparable by construction.
#pragma once
#include <systemc>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/core/stats.h"
#include "models/core/tick.h"

namespace hx::nic {

struct Traffic {
  int ring = 64;               // a ring's size (descriptor lines, or descriptors: the NIC's)
  int batch = 1;               // packets a sender or the NIC takes at most at once
  int queues = 1;
  std::uint32_t packet_B = 64;
  double offered_Mpps = 0;     // per queue; 0: one packet in flight per queue (ping-pong, the minimum latency)
  bool flood = false;          // as fast as the rings allow (the peak rate); overrides offered_Mpps
  std::uint64_t packets = 1000;  // per queue
  std::uint64_t warmup = 100;    // per queue, not timed
};

inline void wait_for(Tick d) {
  if (d) sc_core::wait(sc_core::sc_time::from_value(d));
}

// A queue's loop as its sender and receiver share it: when each packet was
// due, how many have been received (the receiver notifies rx_ev), and
// whether the receiver is done. Each NIC model's queue extends it.
struct LoopQueue {
  std::vector<Tick> due;
  std::uint64_t received = 0;
  sc_core::sc_event rx_ev;
  bool finished = false;
};

// Whether every queue's receiver is done, and the share of all packets received.
template <class Q>
bool all_finished(const std::vector<std::unique_ptr<Q>>& qs) {
  for (const auto& q : qs)
    if (!q->finished) return false;
  return true;
}
template <class Q>
double mean_progress(const std::vector<std::unique_ptr<Q>>& qs) {
  double sum = 0;
  for (const auto& q : qs) sum += static_cast<double>(q->received) / static_cast<double>(q->due.size());
  return sum / static_cast<double>(qs.size());
}

// A queue's sender: when each batch may go and how many packets it holds.
// Ping-pong: one packet, once the previous one is back; open loop: from
// the first packet's due time, as many as are due (up to a batch); peak:
// a full batch at once.
class Pacer {
 public:
  Pacer(const Traffic& t, std::vector<Tick>& due, const std::uint64_t& received, sc_core::sc_event& rx_ev)
      : m_t(t), m_due(due), m_received(received), m_rx_ev(rx_ev), m_start(now_tick()),
        m_gap(t.offered_Mpps > 0 ? static_cast<Tick>(1e6 / t.offered_Mpps) : 0),
        m_open(!t.flood && m_gap > 0), m_pingpong(!t.flood && !m_open) {}
  // Waits until packet k may go; returns the batch's size (its due times set).
  std::uint64_t next(std::uint64_t k) {
    const std::uint64_t total = m_due.size();
    if (m_pingpong)
      while (m_received < k) sc_core::wait(m_rx_ev);
    if (m_open && due(k) > now_tick()) wait_for(due(k) - now_tick());
    std::uint64_t n = 1;
    if (!m_pingpong)
      while (n < static_cast<std::uint64_t>(m_t.batch) && k + n < total && (m_t.flood || due(k + n) <= now_tick())) ++n;
    for (std::uint64_t i = 0; i < n; ++i) m_due[k + i] = m_open ? due(k + i) : now_tick();
    return n;
  }

 private:
  Tick due(std::uint64_t k) const { return m_start + k * m_gap; }
  const Traffic& m_t;
  std::vector<Tick>& m_due;
  const std::uint64_t& m_received;
  sc_core::sc_event& m_rx_ev;
  Tick m_start, m_gap;
  bool m_open, m_pingpong;
};

// What the receivers measured: each timed packet's latency from when it
// was due, and the span from the first due to the last received.
class LoopTiming {
 public:
  void received(std::uint64_t k, Tick due, std::uint64_t warmup) {
    if (k < warmup) return;
    m_lat.add(to_ns(now_tick() - due));
    m_first_due = std::min(m_first_due, due);
    m_last_rx = std::max(m_last_rx, now_tick());
  }
  const Histogram& latency() const { return m_lat; }
  Tick span() const { return m_last_rx > m_first_due ? m_last_rx - m_first_due : 0; }
  std::uint64_t count() const { return m_lat.count(); }

 private:
  Histogram m_lat;
  Tick m_first_due = kNever, m_last_rx = 0;
};

}  // namespace hx::nic
