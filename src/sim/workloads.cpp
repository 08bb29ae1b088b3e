#include "src/sim/workloads.h"

#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "models/core/error.h"
#include "src/sim/coherent_bandwidth.h"
#include "src/sim/coherent_latency.h"
#include "src/sim/nic_loop.h"
#include "src/sim/rtl_script.h"
#include "src/sim/workload_kinds.h"

namespace hx::sim {

using cfg::Cursor;

void Results::metric(const std::string& name, double v, const std::string& unit) {
  metrics[name] = v;
  units[name] = unit;
}

void Results::hist(const std::string& name, const Histogram& h, const std::string& unit) {
  histograms[name] = {{"unit", unit},   {"count", h.count()},         {"min", h.min()},
                      {"p1", h.percentile(1)}, {"p50", h.percentile(50)}, {"p80", h.percentile(80)},
                      {"p99", h.percentile(99)}, {"max", h.max()},       {"mean", h.mean()}};
}

void Results::breakdown(const std::string& name, const Breakdown& b, double scale) {
  // Every stage, in the order a transaction meets them (a figure stacks
  // them so, and keeps one colour per stage across points).
  nlohmann::json stages = nlohmann::json::array();
  for (int i = 0; i < kStages; ++i) {
    const auto s = static_cast<Stage>(i);
    stages.push_back({{"stage", stage_name(s)}, {"mean_ns", scale * b.mean_ns(s)}});
  }
  breakdowns[name] = {{"transactions", b.count}, {"mean_ns", scale * b.mean_latency_ns()}, {"stages", stages}};
}

std::vector<std::unique_ptr<Workload>> make_workloads(const Cursor& list, const topo::Topology& p) {
  std::vector<std::unique_ptr<Workload>> out;
  std::set<std::string> names;
  std::map<std::string, std::string> owner;  // device -> workload driving it
  for (std::size_t i = 0; i < list.node.size(); ++i) {
    const Cursor c = list.item(i);
    if (!c.is_map()) c.fail("a workload is a map with a type");
    const std::string type =
        c.child("type").choice({"rosta_dma", "rosta_peer", "rosta_echo", "calypte_loopback", "bench_lat", "bench_bw", "coyote_perf",
                                 "calypte_burst", "ccix_lat", "ccix_share", "ccix_locks", "rtl_script", "coh_lat", "coh_bw", "home_lat", "mmio_lat", "nic_loop"});
    std::unique_ptr<Workload> w;
    if (type == "rosta_dma") w = make_rosta_dma(c, p);
    if (type == "rosta_peer") w = make_rosta_peer(c, p);
    if (type == "rosta_echo") w = make_rosta_echo(c, p);
    if (type == "calypte_loopback") w = make_calypte_loopback(c, p);
    if (type == "bench_lat") w = make_bench_dma(c, p, true);
    if (type == "bench_bw") w = make_bench_dma(c, p, false);
    if (type == "coyote_perf") w = make_coyote_perf(c, p);
    if (type == "calypte_burst") w = make_calypte_burst(c, p);
    if (type == "ccix_lat") w = make_ccix_lat(c, p);
    if (type == "ccix_share") w = make_ccix_share(c, p);
    if (type == "ccix_locks") w = make_ccix_locks(c, p);
    if (type == "rtl_script") w = make_rtl_script(c, p);
    if (type == "coh_lat") w = make_coherent_latency(c, p);
    if (type == "coh_bw") w = make_coherent_bandwidth(c, p);
    if (type == "home_lat") w = make_home_latency(c, p);
    if (type == "mmio_lat") w = make_mmio_lat(c, p);
    if (type == "nic_loop") w = make_nic_loop(c, p);
    w->set_type(type);
    if (!names.insert(w->name()).second) c.fail("two workloads named '" + w->name() + "'; give one a name:");
    for (const auto& d : w->exclusive_devices()) {
      auto [it, fresh] = owner.emplace(d, w->name());
      if (!fresh) c.fail("'" + d + "' is already driven by workload '" + it->second + "' (its DMA engine runs one job at a time)");
    }
    out.push_back(std::move(w));
  }
  // Every workload's buffers, taken in order from the host's memory as the
  // platform will: one that does not fit is this study's error, not a
  // point's at run time.
  HostHeap heap(p);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (const BufferNeed& b : out[i]->buffers()) {
      try {
        heap.alloc(b);
      } catch (const InputError& e) {
        list.item(i).fail(std::string("its buffers do not fit in host memory (rc.dram_size): ") + e.what());
      }
    }
  return out;
}

const std::vector<MetricDoc>& metric_docs() {
  static const std::vector<MetricDoc> docs = {
      {"rosta_dma", "<device>.<op>_hw_MiB_per_s", "MiB/s", "one device's bytes over its DMA job's hardware time (first TLP out to last write sent or last completion in); `<op>` is write or read"},
      {"rosta_dma", "<device>.<op>_app_MiB_per_s", "MiB/s", "one device's bytes over its driver call (syscall entry to return)"},
      {"rosta_dma", "<device>.syscall_us", "us", "the driver call, entry to return"},
      {"rosta_dma", "<device>.setup_us", "us", "the driver call up to the doorbell (syscall, pinning, descriptor writes)"},
      {"rosta_dma", "devices", "1", "devices transferring at once"},
      {"rosta_dma", "<op>_hw_MiB_per_s_per_device", "MiB/s", "the mean of the devices' hardware speeds"},
      {"rosta_dma", "<op>_hw_MiB_per_s_aggregate", "MiB/s", "all devices' bytes over the first job's start to the last job's end"},
      {"rosta_dma", "<op>_app_MiB_per_s_aggregate", "MiB/s", "all devices' bytes over the first call's entry to the last call's return"},
      {"rosta_peer", "<src>_to_<dst>.rx_MiB_per_s", "MiB/s", "a transfer's bytes over the time they arrive: first byte of its first TLP to the last byte of its last, at the receiver"},
      {"rosta_peer", "<src>_to_<dst>.tx_MiB_per_s", "MiB/s", "a transfer's bytes over the time they leave: start of its first TLP to the end of its last, at the sender"},
      {"rosta_peer", "transfers", "1", "transfers at once"},
      {"rosta_peer", "aggregate_MiB_per_s", "MiB/s", "all transfers' bytes over the first byte received to the last"},
      {"rosta_peer", "per_transfer_MiB_per_s", "MiB/s", "the mean of the transfers' receive speeds"},
      {"rosta_echo", "one_way_ns", "ns", "median of half the echo round trip"},
      {"rosta_echo", "one_way_ns", "ns", "half the echo round trip, per repetition", true},
      {"calypte_burst", "f2h_MBps", "MB/s", "the packets' bytes over the first send to the marker's arrival"},
      {"calypte_burst", "elapsed_us", "us", "first send to the marker's arrival"},
      {"calypte_loopback", "<mode>_min_us", "us", "the round trip's minimum; `<mode>` is fhf or hfh"},
      {"calypte_loopback", "<mode>_p1_us", "us", "its 1st percentile"},
      {"calypte_loopback", "<mode>_p50_us", "us", "its median"},
      {"calypte_loopback", "<mode>_p80_us", "us", "its 80th percentile"},
      {"calypte_loopback", "<mode>_p99_us", "us", "its 99th percentile"},
      {"calypte_loopback", "<mode>_max_us", "us", "its maximum"},
      {"calypte_loopback", "<mode>_us", "us", "the round trip, per repetition", true},
      {"rtl_script", "elapsed_ns", "ns", "the script, first step to last"},
      {"rtl_script", "<mark>_ns", "ns", "when the script reached `mark: <mark>` (the last time, inside a loop), from its start"},
      {"rtl_script", "<timer>_min_ns", "ns", "the shortest run of the steps of `time: {name: <timer>}`"},
      {"rtl_script", "<timer>_p50_ns", "ns", "their median run"},
      {"rtl_script", "<timer>_p99_ns", "ns", "their 99th percentile"},
      {"rtl_script", "<timer>_max_ns", "ns", "their longest run"},
      {"rtl_script", "<timer>_mean_ns", "ns", "their mean run"},
      {"rtl_script", "<timer>_ns", "ns", "each run of a timer's steps", true},
      {"rtl_script", "checked_bytes", "B", "bytes its check_mem steps compared"},
      {"rtl_script", "mmio_reads", "1", "register reads the design answered"},
      {"ccix_lat", "size_B", "B", "bytes per transfer"},
      {"ccix_lat", "median_ns", "ns", "median transfer latency (issue to all data arrived, or to the write response)"},
      {"ccix_lat", "min_ns", "ns", "minimum transfer latency"},
      {"ccix_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"ccix_lat", "mean_ns", "ns", "mean latency"},
      {"ccix_lat", "MB_per_s", "MB/s", "one transfer's bytes over its median latency"},
      {"ccix_lat", "<test>_ns", "ns", "the latency per transfer; `<test>` is ccix_rd, ccix_wr, ccix_cas, dma_rd or dma_wr", true},
      {"ccix_share", "<side>_median_ns", "ns", "median read-modify-write latency of a side; `<side>` is host (all its cores) or device"},
      {"ccix_share", "<side>_p99_ns", "ns", "its 99th percentile"},
      {"ccix_share", "<side>_mean_ns", "ns", "its mean"},
      {"ccix_share", "<side>_p<q>_ns", "ns", "its deciles, q = 10 .. 90 (the distribution's shape)"},
      {"ccix_share", "<side>_ns", "ns", "the latency per read-modify-write", true},
      {"ccix_locks", "<side>_median_ns", "ns", "median lock latency of a side (first CAS to owning the lock); `<side>` is host (all its cores) or device"},
      {"ccix_locks", "<side>_p99_ns", "ns", "its 99th percentile"},
      {"ccix_locks", "<side>_mean_ns", "ns", "its mean"},
      {"ccix_locks", "<side>_lock_ns", "ns", "the latency per lock taken", true},
      {"ccix_locks", "cas_retries", "1", "compare-and-swaps that found another value than expected (joining or releasing)"},
      {"ccix_locks", "queued", "1", "locks that had to wait in a queue"},
      {"ccix_locks", "<side>_starved", "1", "of a side's timed locks, those given up after `patience` (its CASes kept finding the word changed)"},
      {"ccix_lat", "swapped", "1", "op cas: compare-and-swaps that succeeded (each expects the value the last one on its line saw)"},
      {"ccix_lat", "ats_rtt_ns", "ns", "median ATS translation round trip at the ATS switch (runs with ATC misses)"},
      {"ccix_lat", "atc_ns", "ns", "median time a missed request spends in the ATS switch besides that round trip"},
      {"mmio_lat", "size_B", "B", "bytes per load"},
      {"mmio_lat", "median_ns", "ns", "median MMIO read round trip (the load issued to its data at the core)"},
      {"mmio_lat", "min_ns", "ns", "minimum round trip"},
      {"mmio_lat", "p99_ns", "ns", "99th percentile of the round trip"},
      {"mmio_lat", "read_ns", "ns", "the round trip per load", true},
      {"nic_loop", "median_ns", "ns", "median packet latency (due at the sender to read by the receiving core)"},
      {"nic_loop", "p99_ns", "ns", "99th percentile of the latency"},
      {"nic_loop", "min_ns", "ns", "minimum latency"},
      {"nic_loop", "mean_ns", "ns", "mean latency"},
      {"nic_loop", "Mpps", "Mpps", "packets received per second, all queues (first timed packet due to last received)"},
      {"nic_loop", "Gbps", "Gb/s", "the packets' bytes per second"},
      {"nic_loop", "messages_per_packet", "1", "nic: ccnic and e810_upi: coherence messages per packet (warm-up included)"},
      {"nic_loop", "link_messages_per_packet", "1", "of them on the socket links"},
      {"nic_loop", "host_batch", "1", "nic: ccnic and e810_upi: packets per batch the host's TX cores wrote, mean (warm-up included)"},
      {"nic_loop", "nic_batch", "1", "nic: ccnic and e810_upi: packets per batch the NIC's cores wrote back, mean (warm-up included)"},
      {"nic_loop", "tlps_per_packet", "1", "nic: pcie: TLPs the NIC sent per packet (reads, writes, MSIs; warm-up included)"},
      {"nic_loop", "doorbells_per_packet", "1", "nic: pcie: doorbell and descriptor-push stores per packet (warm-up included)"},
      {"nic_loop", "drop_rate", "1", "nic: pcie: the share of packets sent that the NIC dropped, finding no room in its rx_buffer "
                                     "(warm-up included; latencies and Mpps are of the packets received)"},
      {"nic_loop", "latency_ns", "ns", "the latency per packet", true},
      {"coh_lat", "median_ns", "ns", "median access latency (issue at the core to the access done)"},
      {"coh_lat", "min_ns", "ns", "minimum access latency"},
      {"coh_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"coh_lat", "mean_ns", "ns", "mean latency"},
      {"coh_lat", "<op>_ns", "ns", "the latency per access; `<op>` is rd or wr", true},
      {"coh_bw", "GBps", "GB/s", "the lines' bytes over the time from the start to the last access done"},
      {"coh_bw", "mean_ns", "ns", "mean access latency (issue at the core to the access done)"},
      {"coh_bw", "median_ns", "ns", "median access latency"},
      {"coh_bw", "p99_ns", "ns", "99th percentile of the latency"},
      {"coh_bw", "link_messages_per_line", "1", "coherence messages sent on socket links per line accessed (a message crossing two links counts twice)"},
      {"coh_bw", "<op>_ns", "ns", "the latency per access; `<op>` is rd or wr", true},
      {"home_lat", "median_ns", "ns", "median access latency (issue at the core to the access done)"},
      {"home_lat", "min_ns", "ns", "minimum access latency"},
      {"home_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"home_lat", "mean_ns", "ns", "mean latency"},
      {"home_lat", "swapped", "1", "op cas: compare-and-swaps that succeeded (each expects the value the last one saw)"},
      {"home_lat", "<op>_ns", "ns", "the latency per access; `<op>` is rd, wr or cas", true},
      {"bench_lat", "size_B", "B", "bytes per transaction"},
      {"bench_lat", "median_ns", "ns", "median transaction latency (command to completion)"},
      {"bench_lat", "min_ns", "ns", "minimum transaction latency"},
      {"bench_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"bench_lat", "mean_ns", "ns", "mean latency"},
      {"bench_lat", "<test>_ns", "ns", "the latency per transaction; `<test>` is LAT_DMA_RD or LAT_DMA_WRRD", true},
      {"bench_lat", "ats_rtt_ns", "ns", "median ATS translation round trip of a missed access (with an ATC)"},
      {"bench_lat", "atc_ns", "ns", "median time a missed access spends in the ATC and its miss handling"},
      {"bench_bw", "size_B", "B", "bytes per transaction"},
      {"bench_bw", "gbit_per_s", "Gb/s",
       "all transactions' bytes over the first command to the last completion; op rw: half of them, one direction's, as "
       "pcie-bench reports BW_DMA_RW"},
      {"bench_bw", "transactions_per_s", "1/s", "transactions over the same interval (op rw: half of them)"},
      {"bench_bw", "total_gbit_per_s", "Gb/s", "op rw: the bytes of both directions over the same interval"},
      {"coyote_perf", "size_B", "B", "bytes per transfer"},
      {"coyote_perf", "throughput_MBps", "MB/s", "mode thr: all transfers' bytes over the first invoke to the last writeback seen"},
      {"coyote_perf", "throughput_MiBps", "MiB/s", "the same in MiB/s, as perf_local prints it"},
      {"coyote_perf", "latency_us", "us", "mode lat: mean of one transfer's invoke to its writeback"},
      {"coyote_perf", "latency_p50_us", "us", "its median"},
      {"coyote_perf", "latency_us", "us", "one transfer's latency, per repetition", true},
  };
  return docs;
}

namespace {
// A declared name as a pattern: each <placeholder> one name or choice.
bool matches(const std::string& pattern, const std::string& s) {
  std::size_t p = 0, i = 0;
  while (p < pattern.size()) {
    if (pattern[p] == '<') {
      const std::size_t close = pattern.find('>', p);
      p = close + 1;
      // As few characters as leave the rest matching (names hold no '.').
      const std::size_t start = i;
      for (std::size_t end = s.size(); end > start; --end) {
        bool word = true;
        for (std::size_t k = start; k < end && word; ++k) word = std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_' || s[k] == '-';
        if (word && matches(pattern.substr(p), s.substr(end))) return true;
      }
      return false;
    }
    if (i >= s.size() || s[i] != pattern[p]) return false;
    ++i;
    ++p;
  }
  return i == s.size();
}
}  // namespace

void check_metrics(const Workload& w, const Results& r) {
  auto check = [&](const nlohmann::json& set, bool hist) {
    for (const auto& [key, v] : set.items()) {
      const std::string prefix = w.name() + ".";
      const std::string unit = hist ? v.value("unit", "") : r.units.value(key, "");
      bool ok = key.rfind(prefix, 0) == 0;
      if (ok) {
        ok = false;
        for (const MetricDoc& d : metric_docs())
          if (d.histogram == hist && w.type() == d.type && unit == d.unit && matches(d.name, key.substr(prefix.size()))) ok = true;
      }
      if (!ok)
        throw SimError("workload " + w.name() + " (" + w.type() + ") wrote " + (hist ? "histogram " : "metric ") + key + " [" +
                       unit + "], which metric_docs() does not declare: a simulator bug");
    }
  };
  check(r.metrics, false);
  check(r.histograms, true);
  for (const auto& [key, v] : r.breakdowns.items())
    if (!r.histograms.contains(key))
      throw SimError("workload " + w.name() + " (" + w.type() + ") broke down " + key +
                     ", which is not one of its latency histograms: a simulator bug");
}

namespace {
// Whether some text matches both patterns, `*` in either standing for any
// text: one of them gives up its next character, or both when those match.
bool globs_meet(const std::string& a, const std::string& b) {
  std::vector<std::vector<char>> seen(a.size() + 1, std::vector<char>(b.size() + 1, -1));
  std::function<bool(std::size_t, std::size_t)> meet = [&](std::size_t i, std::size_t j) -> bool {
    char& m = seen[i][j];
    if (m >= 0) return m;
    bool r;
    if (i == a.size() && j == b.size()) r = true;
    else if (i < a.size() && a[i] == '*') r = meet(i + 1, j) || (j < b.size() && meet(i, j + 1));
    else if (j < b.size() && b[j] == '*') r = meet(i, j + 1) || (i < a.size() && meet(i + 1, j));
    else r = i < a.size() && j < b.size() && a[i] == b[j] && meet(i + 1, j + 1);
    m = r;
    return r;
  };
  return meet(0, 0);
}
}  // namespace

bool metric_glob_matches(const std::string& glob, const std::string& name) { return globs_meet(glob, name); }

void check_metric_globs(const std::vector<std::pair<std::string, cfg::Cursor>>& globs,
                        const std::vector<std::unique_ptr<Workload>>& workloads) {
  for (const auto& [glob, where] : globs) {
    std::string could;
    bool met = false;
    for (const auto& w : workloads)
      for (const MetricDoc& d : metric_docs()) {
        if (d.histogram || w->type() != d.type) continue;
        std::string name = w->name() + "." + d.name;
        for (std::size_t lt; (lt = name.find('<')) != std::string::npos;) name.replace(lt, name.find('>', lt) + 1 - lt, "*");
        met = met || globs_meet(glob, name);
        if (could.size() < 600) could += (could.empty() ? "" : ", ") + name;
      }
    if (!met) where.fail("no metric of this study's workloads matches '" + glob + "'; they write " + could);
  }
}

std::string metrics_reference() {
  std::ostringstream os;
  os << "# Metrics\n\nEvery metric a workload writes to `results.json` (`metrics`, with `units`; histograms under "
        "`histograms`), named `<workload name>.` and then as below. `<device>`, `<src>`, `<dst>` stand for endpoint "
        "names, `<op>`, `<mode>` and `<test>` for the workload's choices.\n";
  std::string type;
  for (const MetricDoc& d : metric_docs()) {
    if (type != d.type) {
      type = d.type;
      os << "\n## " << type << "\n\n| name | unit | kind | what |\n|---|---|---|---|\n";
    }
    os << "| `" << d.name << "` | " << d.unit << " | " << (d.histogram ? "histogram" : "metric") << " | " << d.what << " |\n";
  }
  return os.str();
}

std::string workloads_reference() {
  return R"(# Workload types

| type | keys | what it runs |
|---|---|---|
| `rosta_dma` | `op` (write, read), `devices`, `count`, `bytes`, `payload`, `desc_mmio_writes` | S001 host DMA: per device a driver call on its own core (syscall, page pinning, UC descriptor writes, doorbell, MSI); hardware-timer and application speeds |
| `rosta_peer` | `pairs` ([src, dst] list), `bytes`, `payload`, `vc` | S001 FPGA-to-FPGA peer writes, all started together |
| `rosta_echo` | `from`, `to`, `bytes`, `reps` | S001 latency: echo round trip / 2 |
| `calypte_burst` | `device`, `channels`, `size`, `packets`, `core` | F2H packets back to back over several channels, then a marker; the F2H rate |
| `calypte_loopback` | `mode` (fhf, hfh), `device`, `channel`, `size`, `reps`, `core` | S004 round-trip latency distribution |
| `ccix_lat` | `device` (a ccix_ra endpoint; by default the topology's only one), `path` (ccix: the request agent's system cache; dma: the device's DMA engine), `op` (rd, wr; cas: an AtomicCompare of one word, ccix path), `size`, `reps`, `pattern` (fresh: lines and a page never touched; warm: lines flushed from the system cache, on translated pages; hit: lines already in the system cache), `window` (warm: the bytes the transfers cycle through), `allocate` (rd, wr on the ccix path; false: the system cache keeps no copy, each line not held a ReadOnce or a whole-line WriteUnique; true by default), `snoop` (rd, wr on the ccix path; false: the buffer is memory no agent caches, each line a ReadNoSnp or a whole-line WriteNoSnp, not with allocate: true or pattern: hit; true by default), `page_size`, `node` | S000 experiments 1-3 and 5 |
| `ccix_share` | `device` (a ccix_ra endpoint; by default the only one), `buffer` (the shared buffer's size), `accesses` (per side: each host core and the device), `cores` (host cores at the CCIX home; 0: the device alone), `fpga` (false: the host alone), `page_size` (2 MiB by default), `node` | S000 experiment 4 |
| `ccix_locks` | `device` (a ccix_ra endpoint; by default the only one), `lock` (queue: a queue of lockers joined by compare-and-swap, the default; ticket: a ticket lock, a ticket taken by an atomic add), `buckets` (fewer: more contention), `locks` (per locker), `cores` (host cores at the CCIX home), `fpga`, `hold` (in the critical section), `think` (between locks), `retry` (the device's polling interval, and anyone's wait on a full queue), `patience` (how long a locker tries to join a queue before giving the lock up), `page_size`, `node` | S000 experiment 6 |
| `bench_lat` | `device`, `op` (rd, wrrd), `size`, `window`, `reps`, `pattern` (seq, rand, fresh: every access on pages never touched before), `page_size`, `node` (near, far, or a socket's number), `invalidate` (ATS invalidation of the pages before each access), `host_cache` (warm: the window starts in the host's LLC as far as it fits; cold), `host_node` (near, far: the socket whose core warmed the window, pcie-bench's control socket; default the buffer's `node`), `untimed` (transactions before the timed ones whose writes reach the host's caches, untimed: a long run's steady state; pcie-bench runs 2 M) | S011 LAT_DMA_RD / LAT_DMA_WRRD |
| `bench_bw` | `device`, `op` (rd, wr, rw), `size`, `window`, `transactions`, `pattern`, `page_size`, `node`, `host_cache`, `host_node` | S011 BW_DMA_RD / WR / RW |
| `coyote_perf` | `device`, `mode` (lat, thr), `size`, `reps`, `page_size`, `node`, `core`, `driver_core`, `mapped` | S003 Coyote perf_local: host -> FPGA -> host through the FPGA MMU; mean latency of `reps` single transfers, or throughput of `reps` transfers invoked back to back and waited for; `mapped` (default true): the driver installs the buffers' translations in the TLBs up front, false: each first touch of a page misses |
| `rtl_script` | `device` (an endpoint with `device: rtl`), `core`, `buffers` (names to sizes), `values` (names to integers a sweep can set), `steps` | a scripted host driver for a design of your own; its steps are below |
)" + coherent_latency_reference() + coherent_bandwidth_reference() + nic_loop_reference() + R"(| `mmio_lat` | `device` (any endpoint), `offset` (into its BAR), `size` (1-64 B, an aligned uncached load), `reps`, `core` | S002 MMIO read latency: one uncached load at a time, its round trip |

`page_size` is the OS page backing the buffer (4KiB default; 64KiB, 2MiB, 32MiB, 1GiB huge pages): it bounds the IOMMU's mapping and the device MMU's TLB choice. `node: far` places the buffer on socket 1 (its root complex's memory); `node: n`, on socket n (a root complex on each of several sockets).
)" + std::string("\n## Steps of `rtl_script`\n\n") + rtl_script_reference();
}

}  // namespace hx::sim
