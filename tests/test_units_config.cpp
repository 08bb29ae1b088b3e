// Unit tier: no simulation kernel runs here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "models/core/action_queue.h"
#include "models/core/divisor.h"
#include "models/core/error.h"
#include "models/core/fifo.h"
#include "models/core/line_holds.h"
#include "models/core/line_map.h"
#include "models/core/slot_calendar.h"
#include "models/core/stable_hash.h"
#include "models/core/stats.h"
#include "models/memory/memory.h"
#include "models/pcie/tlp.h"
#include "src/config/params.h"
#include "src/config/params/declare.h"
#include "src/config/units.h"
#include "src/config/yaml_util.h"
#include "src/sim/analytic.h"
#include "src/sim/driver.h"
#include "src/sim/study.h"
#include "src/sim/workloads.h"
#include "src/topology/topology.h"

using namespace hx;

// Parameter defaults are parsed from nodes made once and shared (the point
// checks read them from two threads): parsing one must not change it.
template <class C>
void expect_defaults_unchanged(const cfg::ParamTable<C>& table) {
  for (const auto& p : table) {
    const std::string before = YAML::Dump(p.def.node);
    C c{};
    p.set(c, p.def);
    p.set(c, p.def);
    EXPECT_EQ(YAML::Dump(p.def.node), before) << p.decl.name;
  }
}

TEST(Params, ParsingADefaultLeavesItUnchanged) {
  expect_defaults_unchanged(cfg::link_params());
  expect_defaults_unchanged(cfg::port_params());
  expect_defaults_unchanged(cfg::switch_params());
  expect_defaults_unchanged(cfg::rc_params());
  expect_defaults_unchanged(cfg::memory_params());
  expect_defaults_unchanged(cfg::iommu_params());
  expect_defaults_unchanged(cfg::cpu_params());
  expect_defaults_unchanged(cfg::endpoint_params());
  expect_defaults_unchanged(cfg::rosta_params());
  expect_defaults_unchanged(cfg::calypte_params());
  expect_defaults_unchanged(cfg::bench_params());
  expect_defaults_unchanged(cfg::coyote_params());
}

// Every parameter says what values it takes (`hxsim params` prints it), and
// the range a whole number declares is the one its setter holds to: each
// end, or each value of a set, is taken, and one past it refused.
template <class C>
void expect_ranges_held(const char* table_name, const cfg::ParamTable<C>& table) {
  const auto value = [](long long x) { return cfg::root_cursor(YAML::Node(std::to_string(x)), "t.yaml"); };
  for (const auto& p : table) {
    const std::string what = std::string(table_name) + "." + p.decl.name;
    EXPECT_FALSE(p.decl.range.empty()) << what << " declares no range";
    if (p.decl.type != "int") continue;
    std::vector<long long> ok;
    long long lo = 0, hi = 0;
    if (std::sscanf(p.decl.range.c_str(), "%lld to %lld", &lo, &hi) == 2 && p.decl.range.find(',') == std::string::npos) {
      ok = {lo, hi};
    } else {
      std::string r = p.decl.range;
      for (char& ch : r)
        if (ch == ',') ch = ' ';
      std::istringstream is(r);
      for (std::string w; is >> w;)
        if (w != "or") ok.push_back(std::stoll(w));
      ASSERT_FALSE(ok.empty()) << what << ": " << p.decl.range;
      lo = ok.front(), hi = ok.back();
    }
    for (long long x : ok) {
      C c{};
      EXPECT_NO_THROW(p.set(c, value(x))) << what << " = " << x;
    }
    for (long long x : {lo - 1, hi + 1}) {
      C c{};
      EXPECT_THROW(p.set(c, value(x)), InputError) << what << " = " << x << " outside " << p.decl.range;
    }
  }
}

TEST(Params, EveryParameterHoldsToTheRangeItDeclares) {
  expect_ranges_held("link", cfg::link_params());
  expect_ranges_held("port", cfg::port_params());
  expect_ranges_held("switch", cfg::switch_params());
  expect_ranges_held("rc", cfg::rc_params());
  expect_ranges_held("memory", cfg::memory_params());
  expect_ranges_held("iommu", cfg::iommu_params());
  expect_ranges_held("cpu", cfg::cpu_params());
  expect_ranges_held("endpoint", cfg::endpoint_params());
  expect_ranges_held("rosta", cfg::rosta_params());
  expect_ranges_held("calypte", cfg::calypte_params());
  expect_ranges_held("bench", cfg::bench_params());
  expect_ranges_held("coyote", cfg::coyote_params());
  expect_ranges_held("rtl", cfg::rtl_params());
  expect_ranges_held("ccix_ra", cfg::ccix_ra_params());
  expect_ranges_held("ccix", cfg::ccix_home_params());
  expect_ranges_held("sockets", cfg::socket_params());
  expect_ranges_held("socket_link", cfg::socket_link_params());
  expect_ranges_held("coherent_nic", cfg::coherent_nic_params());
  expect_ranges_held("nic", cfg::pcie_nic_params());
}

TEST(Units, TimeSizeBandwidth) {
  std::string why;
  EXPECT_EQ(*cfg::parse_time("150ns", why), 150000u);
  EXPECT_EQ(*cfg::parse_time("1.5us", why), 1500000u);
  EXPECT_EQ(*cfg::parse_size("4KiB", why), 4096u);
  EXPECT_EQ(*cfg::parse_size("4KB", why), 4000u);
  EXPECT_EQ(*cfg::parse_size("1MiB", why), 1048576u);
  EXPECT_DOUBLE_EQ(*cfg::parse_bandwidth("12.5GB/s", why), 12.5e9);
  EXPECT_DOUBLE_EQ(*cfg::parse_bandwidth("16Gb/s", why), 2e9);
  EXPECT_DOUBLE_EQ(*cfg::parse_bandwidth("1MiB/s", why), 1048576.0);
  EXPECT_DOUBLE_EQ(*cfg::parse_rate_gts("8GT/s", why), 8.0);
  EXPECT_DOUBLE_EQ(*cfg::parse_freq_mhz("250MHz", why), 250.0);
}

TEST(Units, RejectsWithReasons) {
  std::string why;
  EXPECT_FALSE(cfg::parse_time("150", why));
  EXPECT_NE(why.find("a unit is required"), std::string::npos);
  EXPECT_FALSE(cfg::parse_time("150 furlongs", why));
  EXPECT_NE(why.find("units: ps ns us ms s"), std::string::npos);
  EXPECT_FALSE(cfg::parse_size("1.5B", why));
  EXPECT_FALSE(cfg::parse_size("-4KiB", why));
  EXPECT_FALSE(cfg::parse_bandwidth("fast", why));
}

TEST(Histogram, NearestRankPercentiles) {
  Histogram h;
  for (int i = 1; i <= 100; ++i) h.add(i);
  EXPECT_EQ(h.min(), 1);
  EXPECT_EQ(h.max(), 100);
  EXPECT_EQ(h.percentile(50), 50);
  EXPECT_EQ(h.percentile(99), 99);
  EXPECT_EQ(h.percentile(1), 1);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

// The switch's queues: the same order as std::deque through every growth
// and wrap of the ring, holding nothing until the first push.
TEST(Fifo, KeepsOrderThroughGrowthAndWrap) {
  hx::Fifo<int> f;
  std::deque<int> ref;
  EXPECT_TRUE(f.empty());
  std::mt19937 rng(7);
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    // Mostly pushes early, mostly pops late: the ring grows to 64+ and wraps often.
    const bool push = ref.empty() || rng() % 100 < (step < 10000 ? 60u : 40u);
    if (push) {
      f.push_back(next);
      ref.push_back(next++);
    } else {
      ASSERT_EQ(f.front(), ref.front()) << "step " << step;
      f.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(f.size(), ref.size());
    ASSERT_EQ(f.empty(), ref.empty());
  }
  while (!ref.empty()) {
    ASSERT_EQ(f.front(), ref.front());
    f.pop_front();
    ref.pop_front();
  }
  EXPECT_TRUE(f.empty());
}

TEST(SlotCalendar, KeepsGapsForLaterRequests) {
  SlotCalendar c(10);
  EXPECT_EQ(c.reserve(100, 0), 100u);   // slot 10
  EXPECT_EQ(c.reserve(100, 0), 110u);   // slot 11: 10 is taken
  EXPECT_EQ(c.reserve(0, 0), 0u);       // an earlier gap is still free
  EXPECT_EQ(c.reserve(95, 0, 2), 120u); // two consecutive slots: 12-13
  EXPECT_EQ(c.reserve(0, 0, 3), 10u);   // 1-3 free
}

// The dispatcher's queue pops in (time, posting order), whatever the mix of
// pushes and pops, with payload slots reused: times close together (many
// equal, one bucket of its wheel), spread over several windows of the
// wheel (wrapping it, and into its heap), and now and then before the last
// action popped (as the SystemC side may post).
TEST(ActionQueue, PopsInTimeThenPostingOrder) {
  for (const Tick spread : {Tick{50}, Tick{3'000'000}, Tick{100'000'000}}) {
    ActionQueue<int> q;
    std::set<std::tuple<Tick, int>> ref;  // (time, posting number)
    std::mt19937_64 rng(11);
    int posted = 0;
    Tick now = 5'000'000;
    for (int r = 0; r < 100000; ++r) {
      if (q.empty() || rng() % 3 != 0) {
        Tick t = now + rng() % spread;
        if (rng() % 50 == 0) t = now - rng() % 4000;  // in the past
        q.push(t) = posted;
        ref.insert({t, posted});
        ++posted;
      } else {
        ASSERT_EQ(q.top_time(), std::get<0>(*ref.begin())) << "spread " << spread << " step " << r;
        Tick t = 0;
        const int p = q.pop(t);
        ASSERT_EQ(std::make_tuple(t, p), *ref.begin()) << "spread " << spread << " pop " << r;
        ref.erase(ref.begin());
        now = t;
      }
      ASSERT_EQ(q.size(), ref.size());
    }
  }
}

// Per-line records against std::map: the same record for every key through
// many table growths, a reference taken early still the record after them,
// find() of an absent key null, records visited in first-seen order.
TEST(LineMap, AgreesWithAMapAndKeepsReferences) {
  LineMap<std::uint64_t> m;
  std::map<std::uint64_t, std::uint64_t> ref;
  std::vector<std::uint64_t> order;
  std::mt19937_64 rng(5);
  m[7] = 70;
  std::uint64_t& early = m[7];
  ref[7] = 70;
  order.push_back(7);
  for (int r = 0; r < 200000; ++r) {
    // Lines of a few regions far apart, as agents see them, and some colliding strides.
    const std::uint64_t key = (rng() % 4) * (std::uint64_t{1} << 40) + (rng() % 3000) * (r % 2 ? 1 : 4096);
    if (rng() % 4 == 0) {
      const std::uint64_t* f = m.find(key);
      const auto it = ref.find(key);
      ASSERT_EQ(f == nullptr, it == ref.end()) << key;
      if (f) {
        ASSERT_EQ(*f, it->second);
      }
      continue;
    }
    if (!ref.count(key)) order.push_back(key);
    m[key] += key + 1;
    ref[key] += key + 1;
  }
  EXPECT_EQ(&early, &m[7]);
  EXPECT_EQ(early, ref[7]);
  ASSERT_EQ(m.size(), ref.size());
  std::size_t i = 0;
  m.for_each([&](std::uint64_t k, const std::uint64_t& v) {
    ASSERT_LT(i, order.size());
    EXPECT_EQ(k, order[i++]);
    EXPECT_EQ(v, ref[k]);
  });
  EXPECT_EQ(i, order.size());
  m.clear();
  EXPECT_EQ(m.find(7), nullptr);
  EXPECT_EQ(m[7], 0u);
}

// Against a plain record of every hold ever made: a line is free from a
// tick on exactly when no hold of it lasts beyond; and the table reuses
// what has ended, so it stays as large as what is in flight.
TEST(LineHolds, AgreesWithEveryHoldEverMadeAndStaysAsLargeAsWhatRuns) {
  LineHolds h;
  EXPECT_EQ(h.free_at(0, 7), 7u);
  std::map<std::uint64_t, Tick> ever;  // line -> latest end of any hold
  std::mt19937_64 rng(11);
  Tick now = 0;
  std::size_t most = 0;
  for (int r = 0; r < 100000; ++r) {
    now += rng() % 20;
    // Half the lines from a few that meet often, half from a wide footprint.
    const std::uint64_t line = (rng() % 2 ? rng() % 64 : rng() % 1000000) * 64;
    if (rng() % 2) {
      const Tick until = now + rng() % 300;
      h.hold(line, until, now);
      ever[line] = std::max(ever[line], until);
    } else {
      const Tick at = now + rng() % 100;
      const auto it = ever.find(line);
      const Tick want = it == ever.end() ? at : std::max(at, it->second);
      ASSERT_EQ(h.free_at(line, at), want) << r;
    }
    most = std::max(most, h.capacity());
  }
  // Holds last under 300 ticks and a step advances ~10: some 15 run at a
  // time, where a table that kept every line held would need ~100000 slots.
  EXPECT_LE(most, 512u);
  h.hold(0, now + 5, now);
  EXPECT_EQ(h.free_at(0, now), now + 5);
  EXPECT_EQ(h.free_at(0, now + 6), now + 6);
}

// Quotient and remainder as the plain operators give them, for powers of
// two, three and other divisors, over small, large and boundary values.
TEST(Divisor, AgreesWithTheOperators) {
  std::mt19937_64 rng(3);
  for (const std::uint64_t d : {1ull, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull, 64ull, 1000ull, 1ull << 30, (1ull << 30) + 1,
                                ~0ull}) {
    const Divisor v(d);
    EXPECT_EQ(v.value(), d);
    for (int r = 0; r < 20000; ++r) {
      const std::uint64_t x = r < 100 ? static_cast<std::uint64_t>(r) : r < 200 ? ~0ull - static_cast<std::uint64_t>(r) : rng() >> (rng() % 64);
      ASSERT_EQ(v.div(x), x / d) << x << " / " << d;
      ASSERT_EQ(v.mod(x), x % d) << x << " % " << d;
    }
  }
  EXPECT_THROW(Divisor(0), SimError);
}

// Against a plain set of busy slots, over enough random requests to wrap and
// grow the calendar's ring many times: the same start for every request.
TEST(SlotCalendar, SlotArithmeticIsExact) {
  std::mt19937_64 rng(9);
  for (const Tick iv : {Tick{1}, Tick{3}, Tick{333}, Tick{781}, Tick{4000}, Tick{999983}}) {
    const SlotCalendar c(iv);
    for (int r = 0; r < 20000; ++r) {
      const Tick k = rng() % (1ull << 44);
      for (const Tick x : {k * iv - (k ? 1 : 0), k * iv, k * iv + 1}) ASSERT_EQ(c.slot_of(x), x / iv) << iv << " " << x;
    }
  }
}

TEST(SlotCalendar, AgreesWithASetOfBusySlots) {
  // Small times, and times near 10^15 ps with an odd interval (slot
  // arithmetic by reciprocal must still be exact there).
  for (const auto& [iv, start] : {std::pair<Tick, Tick>{10, 0}, {333, 987654321987654ull}}) {
    SlotCalendar c(iv);
    std::set<Tick> busy;
    std::mt19937_64 rng(5);
    Tick now = start;
    for (int r = 0; r < 50000; ++r) {
      // About 4 slots per request of 2.5 on average; now and then a long idle gap.
      now += rng() % 100 == 0 ? rng() % (300 * iv) : rng() % (8 * iv);
      busy.erase(busy.begin(), busy.lower_bound(now / iv));
      const Tick earliest = now + (rng() % 8 == 0 ? rng() % (2000 * iv) : rng() % (30 * iv));
      // Mostly short runs; now and then a long one (up to 150 slots).
      const unsigned n = 1 + static_cast<unsigned>(rng() % 400 == 0 ? rng() % 150 : rng() % 4);
      Tick s = std::max((earliest + iv - 1) / iv, now / iv);
      for (;;) {
        unsigned k = 0;
        while (k < n && !busy.count(s + k)) ++k;
        if (k == n) break;
        s += k + 1;
      }
      for (unsigned k = 0; k < n; ++k) busy.insert(s + k);
      ASSERT_EQ(c.reserve(earliest, now, n), s * iv) << "interval " << iv << " request " << r;
    }
  }
}

TEST(Checksum, PatternAndStoredBytesAgree) {
  // The producer sums the pattern, the consumer sums stored bytes: for every
  // alignment and length they must agree.
  for (std::uint64_t off = 0; off < 16; ++off)
    for (std::uint32_t len = 0; len < 70; ++len) {
      std::vector<std::uint8_t> b(len);
      pattern_fill(9, off, b.data(), len);
      ASSERT_EQ(bytes_checksum(b.data(), len), pattern_checksum(9, off, len)) << off << " " << len;
      for (std::uint32_t i = 0; i < len; ++i) ASSERT_EQ(b[i], pattern_byte(9, off + i));
    }
  std::vector<std::uint8_t> b(64);
  pattern_fill(9, 0, b.data(), 64);
  const auto sum = bytes_checksum(b.data(), 64);
  std::swap(b[3], b[40]);
  EXPECT_NE(bytes_checksum(b.data(), 64), sum);
  std::swap(b[3], b[40]);
  // Whole words swapped, far apart (0 and 4) and neighbours (1 and 2).
  for (const auto& [x, y] : {std::pair<int, int>{0, 4}, {1, 2}}) {
    std::vector<std::uint8_t> c = b;
    std::swap_ranges(c.begin() + 8 * x, c.begin() + 8 * x + 8, c.begin() + 8 * y);
    EXPECT_NE(bytes_checksum(c.data(), 64), sum) << x << " " << y;
  }
}

// pattern_checksum keeps recent results: asked again, and asked of many
// keys that share its slots, it still answers the sum of the bytes.
TEST(Checksum, KeptResultsAreTheSums) {
  std::mt19937_64 rng(17);
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>> keys;
  for (int i = 0; i < 5000; ++i)
    keys.emplace_back(rng() % 4, rng() % 100000, static_cast<std::uint32_t>(rng() % 300));
  for (int pass = 0; pass < 3; ++pass)
    for (std::size_t i = 0; i < keys.size(); i += pass + 1) {
      const auto [stream, off, len] = keys[i];
      std::vector<std::uint8_t> b(len);
      pattern_fill(stream, off, b.data(), len);
      ASSERT_EQ(pattern_checksum(stream, off, len), bytes_checksum(b.data(), len)) << pass << " " << i;
    }
}

TEST(Checksum, DetectsShiftedData) {
  EXPECT_EQ(pattern_checksum(7, 100, 64), pattern_checksum(7, 100, 64));
  EXPECT_NE(pattern_checksum(7, 100, 64), pattern_checksum(7, 101, 64));
  EXPECT_NE(pattern_checksum(7, 100, 64), pattern_checksum(8, 100, 64));
}

TEST(Analytic, MatchesHandComputation) {
  // Gen2 x4, MPS 128, 128 B payload, 3DW header: 148 B per TLP plus
  // 2 x 8 B DLLPs per 124 B (pcie-bench ACK limit) -> 167.1 B.
  auto bw = sim::pcie_write_bw(2, 4, 128, 128, 12);
  ASSERT_TRUE(bw);
  EXPECT_NEAR(*bw, 2e9 * 128.0 / (148.0 + 16.0 * 148.0 / 124.0), 1.0);
  EXPECT_FALSE(sim::pcie_write_bw(2, 3, 128, 128, 12));
}

TEST(Analytic, ReadsAreBoundByTheSlowerDirection) {
  // Gen3 x8 (985 MB/s a lane), MPS 256 (ACK limit 203 B), 512 B reads in
  // one request, completions of 64 B: downstream 8 x (64 + 12 + 8) = 672 B
  // plus 2 x 8 B per 203 B; upstream one 16 B-header request (24 B).
  const double raw = 8e9 * 128.0 / 130.0;
  auto bw = sim::pcie_read_bw(3, 8, 256, 512, 64, 512, 16);
  ASSERT_TRUE(bw);
  EXPECT_NEAR(*bw, raw * 512.0 / (672.0 + 16.0 * 672.0 / 203.0), 1.0);
  // Completions of 256 B: 2 x 276 B downstream.
  EXPECT_NEAR(*sim::pcie_read_bw(3, 8, 256, 512, 256, 512, 16), raw * 512.0 / (552.0 + 16.0 * 552.0 / 203.0), 1.0);
  // 16 B reads: 16 + 20 B down against a 24 B request up: the downstream
  // direction still bounds (36 B > 24 B).
  EXPECT_NEAR(*sim::pcie_read_bw(3, 8, 256, 512, 64, 16, 16), raw * 16.0 / (36.0 + 16.0 * 36.0 / 203.0), 1.0);
  EXPECT_FALSE(sim::pcie_read_bw(3, 8, 256, 0, 64, 512, 16));
}

TEST(Analytic, ALoopbackSharesTheUpstreamBetweenRequestsAndWrites) {
  // Gen3 x8, MPS 256, 512 B read in one request and written back in two
  // TLPs: upstream 512 + 3 x (16 + 8) = 584 B, downstream two 256 B
  // completions, 552 B: the upstream bounds, below a read alone.
  const double raw = 8e9 * 128.0 / 130.0;
  auto bw = sim::pcie_loopback_bw(3, 8, 256, 512, 256, 512, 16);
  ASSERT_TRUE(bw);
  EXPECT_NEAR(*bw, raw * 512.0 / (584.0 + 16.0 * 584.0 / 203.0), 1.0);
  EXPECT_LT(*bw, *sim::pcie_read_bw(3, 8, 256, 512, 256, 512, 16));
  EXPECT_FALSE(sim::pcie_loopback_bw(3, 8, 256, 512, 0, 512, 16));
}

namespace {
std::string error_of(const std::string& yaml) {
  try {
    const YAML::Node n = YAML::Load(yaml);
    topo::load_topology(cfg::root_cursor(n, "t.yaml"), "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
const char* kTree = R"(platform: t
nodes:
  host: {type: root_complex}
  sw: {type: switch}
  a: {type: endpoint}
  b: {type: endpoint}
links:
  - {up: host, down: sw, gen: 3, width: 8}
  - {up: sw, down: a, gen: 3, width: 4}
  - {up: sw, down: b, gen: 3, width: 4}
)";
}  // namespace

TEST(Topology, EnumeratesBusesBarsAndWindows) {
  const YAML::Node n = YAML::Load(kTree);
  const auto t = topo::load_topology(cfg::root_cursor(n, "t.yaml"), "t.yaml");
  const auto& sw = t.node("sw");
  const auto& a = t.node("a");
  const auto& b = t.node("b");
  EXPECT_EQ(sw.rid >> 8, 1);
  EXPECT_EQ(a.rid >> 8, 3);   // bus 2 is the switch's internal bus
  EXPECT_EQ(b.rid >> 8, 4);
  EXPECT_TRUE(sw.routes[1].claims_id(pcie::make_rid(0, 3)));
  EXPECT_FALSE(sw.routes[1].claims_id(pcie::make_rid(0, 4)));
  EXPECT_TRUE(sw.routes[1].claims_addr(a.bar.base));
  EXPECT_FALSE(sw.routes[1].claims_addr(b.bar.base));
  EXPECT_TRUE(sw.routes[2].claims_addr(b.bar.base + b.bar.size - 1));
  EXPECT_EQ(t.path(t.find("a"), t.find("b")).size(), 3u);
  EXPECT_EQ(a.mps, 256);  // firmware: the largest MPS all devices support (default 256)
}

// 256 buses per PCI segment: a host with more endpoints than that needs a
// segment per root port; IDs then carry the segment, and routing by ID
// tells apart equal bus numbers of different segments.
TEST(Topology, SegmentPerRootPortLiftsTheBusLimit) {
  auto tree = [](bool segments) {
    std::string s = "platform: big\nnodes:\n  host: {type: root_complex, root_ports: 2";
    s += segments ? ", segment_per_root_port: true}\n" : "}\n";
    std::string links = "links:\n";
    for (int r = 0; r < 2; ++r) {
      s += "  sw" + std::to_string(r) + ": {type: switch, ports: 3}\n";
      links += "  - {up: host, down: sw" + std::to_string(r) + "}\n";
      for (int l = 0; l < 2; ++l) {
        const std::string leaf = "l" + std::to_string(r) + std::to_string(l);
        s += "  " + leaf + ": {type: switch, ports: 91}\n";
        links += "  - {up: sw" + std::to_string(r) + ", down: " + leaf + "}\n";
        for (int e = 0; e < 90; ++e) {
          const std::string ep = "e" + std::to_string(r) + std::to_string(l) + "_" + std::to_string(e);
          s += "  " + ep + ": {type: endpoint, endpoint: {bar_size: 64KiB}}\n";
          links += "  - {up: " + leaf + ", down: " + ep + "}\n";
        }
      }
    }
    return s + links;
  };
  const std::string one = tree(false);
  const YAML::Node n1 = YAML::Load(one);
  try {
    topo::load_topology(cfg::root_cursor(n1, "t.yaml"), "t.yaml");
    FAIL() << "360 endpoints fitted in one segment";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("segment_per_root_port"), std::string::npos) << e.what();
  }
  const YAML::Node n2 = YAML::Load(tree(true));
  const auto t = topo::load_topology(cfg::root_cursor(n2, "t.yaml"), "t.yaml");
  const auto& a = t.node("e00_0");
  const auto& b = t.node("e10_0");
  EXPECT_EQ(pcie::segment_of(a.rid), 0);
  EXPECT_EQ(pcie::segment_of(b.rid), 1);
  EXPECT_EQ(pcie::bus_of(a.rid), pcie::bus_of(b.rid));  // same bus number, different segments
  const auto& host = t.node("host");
  EXPECT_TRUE(host.routes[0].claims_id(a.rid));
  EXPECT_FALSE(host.routes[0].claims_id(b.rid));
  EXPECT_TRUE(host.routes[1].claims_id(b.rid));
}

TEST(Topology, RejectsBadHierarchiesWithLocations) {
  std::string s = kTree;
  EXPECT_NE(error_of(s + "  - {up: a, down: b}\n").find("endpoint 'a' has no downstream ports"), std::string::npos);
  EXPECT_NE(error_of(s + "  - {up: host, down: b}\n").find("already has an upstream link"), std::string::npos);
  std::string bad = s;
  bad.replace(bad.find("width: 8"), 8, "width: 24");
  const std::string e = error_of(bad);
  EXPECT_NE(e.find("t.yaml:8:"), std::string::npos) << e;
  EXPECT_NE(e.find("not a PCIe link width"), std::string::npos) << e;
  std::string lone = s.substr(0, s.find("links:")) + "  c: {type: endpoint}\n" + s.substr(s.find("links:"));
  EXPECT_NE(error_of(lone).find("not connected"), std::string::npos);
  std::string typo = s;
  typo.replace(typo.find("{type: switch}"), 14, "{type: switch, latncy: 1ns}");
  EXPECT_NE(error_of(typo).find("unknown key 'latncy'"), std::string::npos);
  std::string mps = s;
  mps.replace(mps.find("a: {type: endpoint}"), 19, "a: {type: endpoint, mps: 512B}");
  EXPECT_NE(error_of(mps).find("above what the device supports"), std::string::npos);
  std::string pm = s;
  pm.replace(pm.find("{type: switch}"), 14, "{type: switch, port_mps: {down7: 128B}}");
  EXPECT_NE(error_of(pm).find("no port 'down7'"), std::string::npos);
}

namespace {
// A study held in memory, as the tests build it.
sim::StudyFiles study_in_memory(const char* yaml) {
  sim::StudyFiles f;
  f.study_file = "s.yaml";
  f.study = YAML::Load(yaml);
  return f;
}
}  // namespace

TEST(Sweep, CartesianAndZipped) {
  sim::StudyFiles f = study_in_memory(R"(study: s
sweep:
  - {path: a, values: [1, 2, 3]}
  - zip: [{path: b, values: [x, y]}, {path: c, values: [10, 20]}]
)");
  const auto pts = sim::expand_sweep(f);
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[0].point["a"], 1.0);
  EXPECT_EQ(pts[1].point["b"], "y");
  EXPECT_EQ(pts[1].point["c"], 20.0);
  EXPECT_EQ(pts[5].point["a"], 3.0);
  f.study = YAML::Load("study: s\nsweep:\n  - zip: [{path: b, values: [x, y]}, {path: c, values: [10]}]\n");
  EXPECT_THROW(sim::expand_sweep(f), InputError);
}

// A point process builds its own point alone; it must be the point the
// driver's whole list has at that index, to the last bit of a range value.
TEST(Sweep, OnePointIsThatPointOfTheWholeList) {
  const sim::StudyFiles f = study_in_memory(R"(study: s
sweep:
  - {path: a, values: [1, 2, 3]}
  - {path: r, range: {from: 0.1, to: 1.0, step: 0.1}}
  - zip: [{path: b, values: [x, y]}, {path: c, range: {from: 10, to: 20, step: 10}}]
)");
  const auto all = sim::expand_sweep(f);
  ASSERT_EQ(all.size(), 3u * 10u * 2u);
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto [one, count] = sim::sweep_point(f, k);
    EXPECT_EQ(count, all.size());
    EXPECT_EQ(one.point.dump(), all[k].point.dump()) << k;
    ASSERT_EQ(one.sets.size(), all[k].sets.size());
    for (std::size_t i = 0; i < one.sets.size(); ++i) {
      EXPECT_EQ(one.sets[i].path, all[k].sets[i].path);
      EXPECT_EQ(sim::emit(one.sets[i].value), sim::emit(all[k].sets[i].value));
      EXPECT_EQ(one.sets[i].where, all[k].sets[i].where);
    }
  }
  // The last axis varies fastest: point 7 is a=1, the fourth value of r, b=y, c=20.
  EXPECT_EQ(all[7].point["a"], 1.0);
  EXPECT_EQ(all[7].point["r"], 0.1 + 0.1 + 0.1 + 0.1);
  EXPECT_EQ(all[7].point["b"], "y");
  EXPECT_EQ(all[7].point["c"], 20.0);
  EXPECT_EQ(sim::sweep_point(f, all.size()).second, all.size());
}

// A copy made to check or run one point is the point's alone: overriding
// it leaves the study it came from as it was (yaml-cpp assignment into a
// shared root node would make the original an alias of the copy).
TEST(Sweep, APointsCopyLeavesTheStudyAlone) {
  sim::StudyFiles f = study_in_memory("study: s\nworkloads: [{type: bench_bw, size: 64B}]\n");
  f.topo = YAML::Load("nodes: {host: {type: root_complex, rc: {posted_buffer: 64}}}\n");
  for (int k = 0; k < 3; ++k) {
    sim::StudyFiles c = sim::copy_without_positions(f);
    sim::apply_set(c, "workloads.0.size", std::to_string(128 << k) + "B", "--set");
    sim::apply_set(c, "topology.nodes.host.rc.posted_buffer", std::to_string(k + 1), "--set");
    EXPECT_EQ(c.study["workloads"][0]["size"].as<std::string>(), std::to_string(128 << k) + "B");
    EXPECT_EQ(c.topo["nodes"]["host"]["rc"]["posted_buffer"].as<int>(), k + 1);
    EXPECT_EQ(f.study["workloads"][0]["size"].as<std::string>(), "64B");
    EXPECT_EQ(f.topo["nodes"]["host"]["rc"]["posted_buffer"].as<int>(), 64);
  }
}

// A point server is sent each point as text: what it reads back must be
// the point the driver made, value for value (as apply_point applies
// them), place for place, and the same results key.
TEST(Sweep, APointSentAsTextIsThePoint) {
  const sim::StudyFiles f = study_in_memory(R"(study: s
sweep:
  - {path: a, values: [1, '010', 'null', '', ~, 'true', "a: b", '#x', "two\nlines", {k: [1, 'y']}, 64KiB, ' lead', 'é']}
  - {path: r, range: {from: 0.1, to: 0.3, step: 0.1}}
  - zip: [{path: topology.nodes.x.y, values: [[1, 2], {m: n}]}, {path: c, values: [-0, 1e3]}]
)");
  const sim::Sweep sweep(f);
  ASSERT_EQ(sweep.size(), 13u * 3u * 2u);
  for (std::size_t k = 0; k < sweep.size(); ++k) {
    const sim::SweepPoint p = sweep.at(k);
    const sim::SweepPoint back = sim::point_from_text(sim::point_text(p));
    EXPECT_EQ(back.point.dump(), p.point.dump()) << k;
    ASSERT_EQ(back.sets.size(), p.sets.size());
    for (std::size_t i = 0; i < p.sets.size(); ++i) {
      EXPECT_EQ(back.sets[i].path, p.sets[i].path);
      EXPECT_EQ(sim::emit(back.sets[i].value), sim::emit(p.sets[i].value)) << k;
      EXPECT_EQ(back.sets[i].value.Type(), p.sets[i].value.Type()) << k;
      EXPECT_EQ(back.sets[i].where, p.sets[i].where);
    }
  }
  EXPECT_THROW(sim::point_from_text(sim::point_text(sweep.at(0)).substr(0, 9)), SimError);
}

namespace {
std::string write_study(const std::string& text) {
  // One file per process: ctest runs these tests in parallel processes.
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_hxsim_study.yaml";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}
}  // namespace

// A point server reads the study without its sweep: every other value as
// the whole study has it, at the same file:line:col, and the --set
// overrides of the sweep left out; a study in which that text is not the
// study without its sweep is read whole.
TEST(Sweep, TheStudyWithoutItsSweepKeepsEveryOtherPlace) {
  const std::string path = write_study(R"(study: s   # a comment
topology: {nodes: {host: {type: root_complex}}}
sweep:
  # the axes
  - path: seed
    values:
      - 1
      - 2
  - {path: workloads.0.bytes, values: [64B,
        128B]}
workloads: [{type: bench_bw, bytes: 1KiB}]
set: {topology.nodes.host.rc.posted_buffer: 8}
)");
  sim::StudyFiles f = sim::load_study_files(path);
  for (const auto& [p, v] : std::vector<std::pair<std::string, std::string>>{{"sweep.0.values", "[5]"}, {"seed", "7"}}) {
    sim::apply_set(f, p, v, "--set " + p);
    f.sets.emplace_back(p, v);
  }
  const auto light = sim::study_without_sweep(f);
  ASSERT_TRUE(light.has_value());
  EXPECT_FALSE(light->files.study["sweep"].IsDefined());
  EXPECT_EQ(sim::emit(light->files.study), sim::emit(sim::copy_without_sweep(f).study));
  EXPECT_EQ(sim::emit(light->files.topo), sim::emit(f.topo));
  const YAML::Mark whole = f.study["workloads"][0]["bytes"].Mark(), part = light->files.study["workloads"][0]["bytes"].Mark();
  EXPECT_EQ(part.line, whole.line);
  EXPECT_EQ(part.column, whole.column);
  EXPECT_EQ(part.line, 10);
  // What a point server loads from the span is that study.
  const sim::StudyFiles again = sim::load_study_files(path, light->sweep);
  EXPECT_FALSE(again.study["sweep"].IsDefined());
  EXPECT_EQ(again.study["workloads"][0]["bytes"].Mark().line, 10);

  // A byte-order mark: positions count from after it.
  const std::string bom = write_study("\xEF\xBB\xBFstudy: s\ntopology: {nodes: {}}\nsweep: [{path: seed, values: [1, 2]}]\nseed: 3\n");
  const auto after_bom = sim::study_without_sweep(sim::load_study_files(bom));
  ASSERT_TRUE(after_bom.has_value());
  EXPECT_EQ(after_bom->files.study["seed"].as<int>(), 3);
  EXPECT_FALSE(after_bom->files.study["sweep"].IsDefined());

  // A flow map, an alias into the sweep, no sweep: none.
  for (const char* text : {"{study: s, topology: {nodes: {}}, sweep: [{path: seed, values: [1, 2]}]}\n",
                           "study: s\ntopology: {nodes: {}}\nsweep: [{path: seed, values: [&one 1, 2]}]\ndescription: *one\n",
                           "study: s\ntopology: {nodes: {}}\n"}) {
    const sim::StudyFiles g = sim::load_study_files(write_study(text));
    EXPECT_FALSE(sim::study_without_sweep(g).has_value()) << text;
  }
  std::remove(path.c_str());
}

TEST(Overrides, CreateSectionsAndRejectBadIndices) {
  YAML::Node n = YAML::Load("a: {b: 1}\nl: [1, 2]\n");
  cfg::apply_override(n, "a.c.d", "5ns", "--set");
  EXPECT_EQ(n["a"]["c"]["d"].as<std::string>(), "5ns");
  cfg::apply_override(n, "l.1", "7", "--set");
  EXPECT_EQ(n["l"][1].as<int>(), 7);
  EXPECT_THROW(cfg::apply_override(n, "l.5", "7", "--set"), InputError);
}

// results.json is put together from the points' own text; it must be what
// printing the whole study would give, byte for byte.
TEST(Results, StudyJsonFromPointTextsIsTheWholeDump) {
  std::mt19937_64 rng(5);
  for (const std::size_t n : {0, 1, 3}) {
    nlohmann::json pts = nlohmann::json::array();
    std::vector<std::string> texts;
    for (std::size_t k = 0; k < n; ++k) {
      nlohmann::json p = {{"point", {{"size", "64B"}, {"odd \"key\"\n", k}}},
                          {"metrics", {{"bw.gbit_per_s", static_cast<double>(rng() % 100000) / 7.0}, {"neg", -1e-9}}},
                          {"histograms", nlohmann::json::object()},
                          {"links", nlohmann::json::array()},
                          {"point_index", k}};
      texts.push_back(p.dump(2) + "\n");
      pts.push_back(p);
    }
    const nlohmann::json whole = {{"study", "name \"quoted\""}, {"points", pts}, {"failed", n}};
    EXPECT_EQ(sim::results_json("name \"quoted\"", n, texts), whole.dump(2) + "\n") << n;
  }
}

// ---- Strict input (issue "results you can trust") ----

namespace {
// The message of the InputError that loading `text` as a --set value throws
// ("" if none).
std::string value_error(const std::string& text) {
  try {
    cfg::load_value(text, "--set x");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string file_error(const std::string& text) {
  // One file per process: ctest runs these tests in parallel processes.
  const std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "_hxsim_strict.yaml";
  {
    std::ofstream(path, std::ios::binary) << text;
  }
  std::string err;
  try {
    cfg::load_file(path);
  } catch (const InputError& e) {
    err = e.what();
  }
  std::remove(path.c_str());
  return err;
}
}  // namespace

TEST(StrictYaml, DuplicateKeysNameBothPlaces) {
  const std::string e = file_error("a: 1\nb:\n  c: 2\n  c: 3\n");
  EXPECT_NE(e.find("hxsim_strict.yaml:4:3: key 'c' is given twice in this map (first at line 3, column 3)"), std::string::npos) << e;
  EXPECT_NE(value_error("{a: 1, a: 2}").find("key 'a' is given twice"), std::string::npos);
  // The same key in two different maps is fine.
  EXPECT_EQ(file_error("a: {x: 1}\nb: {x: 1}\n"), "");
}

TEST(StrictYaml, OneDocumentNoMergeKeysPlainKeys) {
  EXPECT_NE(file_error("a: 1\n---\nb: 2\n").find(":2:1: a second YAML document"), std::string::npos);
  EXPECT_NE(file_error("x: &d {a: 1}\ny:\n  <<: *d\n").find(":3:3: YAML merge keys"), std::string::npos);
  EXPECT_NE(file_error("? [a, b]\n: 1\n").find("a key must be a plain name"), std::string::npos);
  EXPECT_NE(file_error("~: 1\n").find("a key must be a plain name"), std::string::npos);
  // A quoted "<<" is an ordinary key (left to the key checks of its section).
  EXPECT_EQ(file_error("\"<<\": 1\n"), "");
}

TEST(StrictYaml, InvalidUtf8IsLocated) {
  EXPECT_NE(file_error("a: ok\nb: \"x\xff\"\n").find("hxsim_strict.yaml:2:6: invalid UTF-8 (byte 0xFF)"), std::string::npos);
  EXPECT_NE(file_error("a: \xc0\xaf\n").find("invalid UTF-8"), std::string::npos);         // overlong '/'
  EXPECT_NE(file_error("a: \xed\xa0\x80\n").find("invalid UTF-8"), std::string::npos);     // a surrogate
  EXPECT_EQ(file_error("a: \"gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x99\x82\"\n"), "");   // real UTF-8
}

TEST(StrictYaml, AliasBombIsRefusedQuickly) {
  // Nine levels of nine aliases: 9^9 (387 million) values once expanded,
  // from 300 bytes.
  std::string s = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    const char p = static_cast<char>(c - 1);
    s += std::string(1, c) + ": &" + c + " [";
    for (int k = 0; k < 9; ++k) s += std::string(k ? ", " : "") + "*" + p;
    s += "]\n";
  }
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(file_error(s).find("once its aliases are expanded"), std::string::npos);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  // A few aliases are fine.
  EXPECT_EQ(file_error("a: &x {b: 1}\nc: *x\n"), "");
}

TEST(StrictYaml, IntegersAreDecimalNeverOctal) {
  const YAML::Node n = YAML::Load("a: 010\nb: 0x10\nc: -007\nd: 08\ne: 1e3\n");
  const cfg::Cursor c = cfg::root_cursor(n, "t.yaml");
  EXPECT_EQ(c.child("a").integer(0, 100), 10);
  EXPECT_EQ(c.child("b").integer(0, 100), 16);
  EXPECT_EQ(c.child("c").integer(-100, 100), -7);
  EXPECT_EQ(c.child("d").integer(0, 100), 8);
  EXPECT_THROW(c.child("e").integer(0, 10000), InputError);
}

TEST(StrictYaml, AnEmptyValueIsNotTheDefault) {
  const YAML::Node n = YAML::Load("a:\nb: 1\n");
  const cfg::Cursor c = cfg::root_cursor(n, "t.yaml");
  EXPECT_TRUE(c.has("a"));
  EXPECT_FALSE(c.has("z"));
  try {
    c.child("a").integer(0, 9);
    ADD_FAILURE() << "an empty value was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:1:1: a: a value is required"), std::string::npos) << e.what();
  }
}

TEST(StrictYaml, OverridesThroughAValueAreRefused) {
  YAML::Node root = YAML::Load("seed: 1\nl: [1, 2]\n");
  try {
    cfg::apply_override(root, "seed.x", "1", "--set seed.x");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--set seed.x: 'seed.x': 'seed' is a value, not a section"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cfg::apply_override(root, "l.0.x", "1", "--set l.0.x"), InputError);
  EXPECT_THROW(cfg::apply_override(root, "l.99999999999999999999", "1", "--set l"), InputError);
  // A section created by an override is located at the override.
  cfg::Origins origins;
  cfg::apply_override(root, "new.x", "1", "--set new.x", &origins);
  const cfg::Cursor c = cfg::root_cursor(root, "t.yaml", &origins);
  try {
    c.child("new").scalar();
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--set new.x: new:", 0), 0u) << e.what();
  }
}

TEST(Units, ValuesThatWouldStopTimeAreRefused) {
  const YAML::Node n = YAML::Load("f1: 1e7MHz\nf2: 1e-300MHz\nf3: 250MHz\nb1: 1e-300GB/s\nb2: 0GB/s\nb3: 12.8GB/s\nb4: 1e30GB/s\n");
  const cfg::Cursor c = cfg::root_cursor(n, "t.yaml");
  EXPECT_THROW(c.child("f1").freq_mhz(), InputError);
  EXPECT_THROW(c.child("f2").freq_mhz(), InputError);
  EXPECT_DOUBLE_EQ(c.child("f3").freq_mhz(), 250.0);
  EXPECT_THROW(c.child("b1").bandwidth(), InputError);
  EXPECT_EQ(c.child("b2").bandwidth(), 0.0);  // "no limit" where a parameter allows it
  EXPECT_DOUBLE_EQ(c.child("b3").bandwidth(), 12.8e9);
  EXPECT_THROW(c.child("b4").bandwidth(), InputError);
}

TEST(StableHash, Fnv1a128TestVectors) {
  // The published FNV-1a 128-bit values of "" and "a".
  EXPECT_EQ(StableHash().hex(), "6c62272e07bb014262b821756295c58d");
  EXPECT_EQ(StableHash().add("a").hex(), "d228cb696f1a8caf78912b704e4a8964");
  EXPECT_NE(StableHash().field("ab").field("c").hex(), StableHash().field("a").field("bc").hex());
}

namespace {
struct FakeWorkload final : sim::Workload {
  FakeWorkload() : Workload("p") { set_type("rosta_peer"); }
  void start(sim::Platform&) override {}
  bool done() const override { return true; }
  void report(sim::Results&) const override {}
};
}  // namespace

// A metric is written only as its type declares it (name pattern and unit):
// the generated reference cannot fall behind the code.
TEST(Metrics, OnlyDeclaredMetricsMayBeWritten) {
  const FakeWorkload w;
  sim::Results ok;
  ok.metric("p.fpga0_to_fpga1.rx_MiB_per_s", 1, "MiB/s");
  ok.metric("p.aggregate_MiB_per_s", 1, "MiB/s");
  EXPECT_NO_THROW(sim::check_metrics(w, ok));
  sim::Results wrong_unit;
  wrong_unit.metric("p.aggregate_MiB_per_s", 1, "MB/s");
  EXPECT_THROW(sim::check_metrics(w, wrong_unit), SimError);
  sim::Results undeclared;
  undeclared.metric("p.speed", 1, "MiB/s");
  EXPECT_THROW(sim::check_metrics(w, undeclared), SimError);
  sim::Results other_name;
  other_name.metric("q.aggregate_MiB_per_s", 1, "MiB/s");
  EXPECT_THROW(sim::check_metrics(w, other_name), SimError);
  // Every workload type has its metrics in the reference.
  const std::string ref = sim::metrics_reference();
  for (const char* t : {"rosta_dma", "rosta_peer", "rosta_echo", "calypte_loopback", "bench_lat", "bench_bw", "coyote_perf",
                        "calypte_burst", "ccix_lat", "ccix_share", "ccix_locks", "rtl_script", "coh_lat", "coh_bw", "home_lat",
                        "mmio_lat", "nic_loop"})
    EXPECT_NE(ref.find(std::string("## ") + t + "\n"), std::string::npos) << t;
}

namespace {
// A default-constructed config in zeroed storage, so that its bytes
// (padding included) can be compared before and after a change.
template <class C>
struct Zeroed {
  alignas(C) unsigned char buf[sizeof(C)];
  Zeroed() {
    std::memset(buf, 0, sizeof buf);
    new (buf) C();
  }
  ~Zeroed() { get().~C(); }
  C& get() { return *reinterpret_cast<C*>(buf); }
};

// The parameters whose shown default (`hxsim params`, and what YAML runs
// parse when a key is absent) does not read back as the model struct's
// own member default (the one a model test with a hand-made config gets).
template <class C>
std::vector<std::string> default_mismatches(const hx::cfg::ParamTable<C>& table) {
  std::vector<std::string> bad;
  for (const auto& p : table) {
    // One object, compared with its own bytes before: members that point
    // into the object (a std::string's short buffer) stay where they were.
    Zeroed<C> a;
    unsigned char before[sizeof(C)];
    std::memcpy(before, a.buf, sizeof(C));
    p.set(a.get(), p.def);
    if (std::memcmp(before, a.buf, sizeof(C)) != 0) bad.push_back(p.decl.name + " (shown " + p.decl.def + ")");
  }
  return bad;
}
}  // namespace

// One default per parameter (STYLE.md rule 5): a declaration shows its
// model struct's member default, and the text it shows parses back into
// exactly that value, so a model built from a hand-made config behaves as
// the same model built from YAML.
TEST(Params, ShownDefaultsReadBackAsTheModelStructs) {
  using namespace hx;
  const std::vector<std::pair<const char*, std::vector<std::string>>> tables = {
      {"link", default_mismatches(cfg::link_params())},       {"port", default_mismatches(cfg::port_params())},
      {"root_complex", default_mismatches(cfg::rc_params())}, {"memory", default_mismatches(cfg::memory_params())},
      {"iommu", default_mismatches(cfg::iommu_params())},     {"cpu", default_mismatches(cfg::cpu_params())},
      {"rosta", default_mismatches(cfg::rosta_params())},     {"calypte", default_mismatches(cfg::calypte_params())},
      {"coyote", default_mismatches(cfg::coyote_params())},   {"bench", default_mismatches(cfg::bench_params())},
      {"ccix_ra", default_mismatches(cfg::ccix_ra_params())}, {"ccix", default_mismatches(cfg::ccix_home_params())},
      {"switch", default_mismatches(cfg::switch_params())},   {"endpoint", default_mismatches(cfg::endpoint_params())},
      {"sockets", default_mismatches(cfg::socket_params())}, {"coherent_nic", default_mismatches(cfg::coherent_nic_params())},
      {"nic", default_mismatches(cfg::pcie_nic_params())},  {"socket_link", default_mismatches(cfg::socket_link_params())},
      {"rtl", default_mismatches(cfg::rtl_params())},
  };
  for (const auto& [name, bad] : tables)
    for (const std::string& b : bad) ADD_FAILURE() << name << "." << b << " does not read back as the model struct's default";
}

namespace {
struct ShownProbe {
  hx::Tick wait = 53 * hx::kNs;
  std::uint64_t window = 64ull << 30;
  double clock_mhz = 250;
  double GBps = 12.8;
  bool on = true;
  int depth = 16;
};
}  // namespace

// A declaration's default is its struct's member value (or a function of
// the struct), written in the parameter's type.
TEST(Params, ADeclarationShowsItsStructsDefault) {
  using namespace hx;
  using namespace hx::cfg;
  using C = ShownProbe;
  const auto noop = [](C&, const Cursor&) {};
  EXPECT_EQ(P<C>("wait", "time", &C::wait, {}, "", noop).decl.def, "53ns");
  EXPECT_EQ(P<C>("window", "size", &C::window, {}, "", noop).decl.def, "64GiB");
  EXPECT_EQ(P<C>("clock", "frequency", &C::clock_mhz, {}, "", noop).decl.def, "250MHz");
  EXPECT_EQ(P<C>("bw", "bandwidth", [](const C& c) { return c.GBps * 1e9; }, {}, "", noop).decl.def, "12.8GB/s");
  EXPECT_EQ(P<C>("on", "bool", &C::on, {}, "", noop).decl.def, "true");
  EXPECT_EQ(P<C>("depth", "int", &C::depth, ints(1, 64), "", noop).decl.def, "16");
  EXPECT_EQ(P<C>("mode", "choice", [](const C& c) { return c.on ? "on" : "off"; }, options({"on", "off"}), "", noop)
                .decl.def,
            "on");
  // A value the type cannot show is a declaration error, not a silent text.
  EXPECT_THROW(shown("size", 1.5), std::logic_error);
  EXPECT_THROW(shown("time", -1LL), std::logic_error);
  EXPECT_EQ(shown("time", static_cast<long long>(4 * kMs)), "4ms");
  EXPECT_EQ(shown("time", 1500LL), "1500ps");
}
