#include "models/core/ledger.h"

#include <algorithm>
#include <string>

#include "models/core/error.h"

namespace hx {

namespace {
struct StageDoc {
  const char* name;
  const char* what;
};
constexpr StageDoc kDocs[kStages] = {
    {"device", "the device's engine: command handling, TLP formation, data handling after arrival"},
    {"hard_block", "PCIe hard-block TX and RX pipelines"},
    {"arbitration", "queued for a transmitter: its wire busy or older units ahead"},
    {"credit", "queued with the receiver out of flow-control credits"},
    {"serialisation", "bytes on the wire until the receiver acts"},
    {"propagation", "link latency (PHY, SerDes, flight; an idle transmitter's exit from ASPM L0s)"},
    {"switch", "switch forwarding pipelines"},
    {"root_complex", "root-complex pipelines, line-pipeline slots, read trackers, completion formation"},
    {"translation", "IOMMU lookups and walks, ATS round trips"},
    {"ordering", "waits for older posted writes (PCIe ordering)"},
    {"coherence", "coherent agents' look-ups, hazard queue and protocol layers (CCIX), atomics at the home"},
    {"memory", "LLC, DRAM and the socket link"},
    {"software", "a host core's software between the transactions timed: polls, retry intervals, waits for a lock's holder"},
};
}  // namespace

const char* stage_name(Stage s) { return kDocs[static_cast<int>(s)].name; }
const char* stage_what(Stage s) { return kDocs[static_cast<int>(s)].what; }

void Ledger::charge(Stage s, Tick to) {
  if (to < mark)
    sim_fail("latency ledger", std::string("a charge to ") + stage_name(s) + " ends at " + std::to_string(to) +
                                   " ps, before the time already accounted for (" + std::to_string(mark) + " ps)");
  spent[static_cast<int>(s)] += to - mark;
  mark = to;
}

void Ledger::on_wire(Tick start, Tick pipeline, Tick link_latency) {
  if (start < mark)
    sim_fail("latency ledger", "transmitted at " + std::to_string(start) + " ps, before the time already accounted for (" +
                                   std::to_string(mark) + " ps)");
  had_credits(start);
  const Tick wait = start - mark;
  const Tick credit = std::min(credit_wait, wait);
  spent[static_cast<int>(Stage::Credit)] += credit;
  spent[static_cast<int>(Stage::Arbitration)] += wait - credit;
  mark = start;
  credit_wait = 0;
  tx_pipeline = pipeline;
  latency = link_latency;
}

void Ledger::land(Tick at) {
  if (at < mark) sim_fail("latency ledger", "a unit received before it was sent");
  const Tick span = at - mark;
  const Tick pipe = std::min(tx_pipeline, span);
  const Tick flight = std::min(latency, span - pipe);
  spent[static_cast<int>(Stage::HardBlock)] += pipe;
  spent[static_cast<int>(Stage::Propagation)] += flight;
  spent[static_cast<int>(Stage::Serialisation)] += span - pipe - flight;
  mark = at;
}

void Ledger::extend(const Ledger& seg) {
  if (seg.mark < mark || seg.mark - seg.total() != mark)
    sim_fail("latency ledger", "a stretch opened at " + std::to_string(seg.mark - seg.total()) +
                                   " ps appended to a transaction accounted for up to " + std::to_string(mark) + " ps");
  for (int i = 0; i < kStages; ++i) spent[static_cast<std::size_t>(i)] += seg.spent[static_cast<std::size_t>(i)];
  mark = seg.mark;
}

void Breakdown::add(const Ledger& l, Tick opened, Tick done) {
  if (l.mark != done)
    sim_fail("latency ledger", "a transaction done at " + std::to_string(done) + " ps was accounted for up to " +
                                   std::to_string(l.mark) + " ps");
  if (done < opened || l.total() != done - opened)
    sim_fail("latency ledger", "a transaction's stages add up to " + std::to_string(l.total()) + " ps, its latency is " +
                                   std::to_string(done - opened) + " ps");
  ++count;
  latency += done - opened;
  for (int i = 0; i < kStages; ++i) spent[static_cast<std::size_t>(i)] += l.spent[static_cast<std::size_t>(i)];
}

double Breakdown::mean_ns(Stage s) const {
  return count ? to_ns(spent[static_cast<std::size_t>(s)]) / static_cast<double>(count) : 0.0;
}

double Breakdown::mean_latency_ns() const { return count ? to_ns(latency) / static_cast<double>(count) : 0.0; }

Tick Ledger::total() const {
  Tick t = 0;
  for (Tick s : spent) t += s;
  return t;
}

}  // namespace hx
