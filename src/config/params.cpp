#include "src/config/params.h"

#include <sstream>

#include "models/ats/tlb.h"
#include "models/rtl/interfaces.h"

namespace hx::cfg {

Cursor default_cursor(const ParamDecl& d) {
  Cursor c;
  c.node = YAML::Node(d.def);
  c.path = "default of " + d.name;
  return c;
}

namespace {

template <class C>
Param<C> P(const char* name, const char* type, const char* def, const char* desc,
           std::function<void(C&, const Cursor&)> f) {
  return Param<C>{ParamDecl{name, type, def, desc}, std::move(f)};
}

int pow2(const Cursor& c, long long lo, long long hi) {
  const long long v = static_cast<long long>(c.size());
  if (v < lo || v > hi || (v & (v - 1))) {
    c.fail(c.scalar() + " must be a power of two from " + std::to_string(lo) + "B to " + std::to_string(hi) + "B");
  }
  return static_cast<int>(v);
}

// A cache's capacity in 64 B lines (0: unlimited), from its size.
int cache_lines(const Cursor& v) {
  const std::uint64_t b = v.size();
  if (b % 64 || b / 64 > (1u << 24)) v.fail("a multiple of 64 B, at most 1 GiB");
  return static_cast<int>(b / 64);
}

// A set-associative structure's replacement policy (models/cache).
cache::Policy replacement_policy(const Cursor& v) {
  cache::Policy p = cache::Policy::Lru;
  cache::parse_policy(v.choice({"lru", "plru", "random"}), &p);
  return p;
}

}  // namespace

unsigned page_shift(const Cursor& v) {
  const std::uint64_t s = v.size();
  for (unsigned sh : {12u, 16u, 21u, 25u, 30u})
    if (s == 1ull << sh) return sh;
  v.fail(v.scalar() + " is not a supported page size (4KiB, 64KiB, 2MiB, 32MiB, 1GiB)");
}

namespace {
// The items of a list value; `example` shows its form in errors. A default
// or a --set value comes as a flow list in one scalar: it is parsed here,
// and its items are located at the value.
std::vector<Cursor> list_items(const Cursor& v, const char* what, const char* example) {
  Cursor list = v;
  if (!v.node.IsSequence()) {
    // reset() rebinds the copy; assigning would write the parsed list into
    // the node it shares with `v` (a parameter's default, read by the point
    // checks' threads at once).
    try {
      list.node.reset(YAML::Load(v.scalar()));
    } catch (const YAML::Exception&) {
      v.fail(std::string("expected a list of ") + what);
    }
    if (!list.node.IsSequence()) v.fail(std::string("expected a list of ") + what + ", e.g. " + example);
  }
  std::vector<Cursor> items;
  for (std::size_t i = 0; i < list.node.size(); ++i) {
    Cursor it = list.item(i);
    if (!v.node.IsSequence()) it.src = v.src, it.fallback = v.node.Mark();
    items.push_back(it);
  }
  return items;
}
}  // namespace

void check_tlb(const Cursor& section, const char* ways_key, const ats::TlbConfig& c) {
  const std::string e = ats::geometry_error(c);
  if (!e.empty()) (section.has(ways_key) ? section.child(ways_key) : section).fail(e);
}

std::uint64_t page_size_set(const Cursor& v) {
  std::uint64_t mask = 0;
  for (const Cursor& it : list_items(v, "page sizes", "[4KiB, 2MiB]")) mask |= 1ull << page_shift(it);
  if (!(mask & (1ull << 12))) v.fail("the page sizes must include 4KiB");
  return mask;
}

const ParamTable<pcie::LinkConfig>& link_params() {
  using C = pcie::LinkConfig;
  static const ParamTable<C> t = {
      P<C>("gen", "int", "3", "PCIe generation 1-6 (rate and encoding from the generation table)",
           [](C& c, const Cursor& v) { c.gen = static_cast<int>(v.integer(1, 6)); }),
      P<C>("width", "int", "8", "lanes: 1, 2, 4, 8, 16 or 32",
           [](C& c, const Cursor& v) {
             c.width = static_cast<int>(v.integer(1, 32));
             if (!pcie::valid_width(c.width)) v.fail(v.scalar() + " is not a PCIe link width (1, 2, 4, 8, 16, 32)");
           }),
      P<C>("rate", "rate", "0GT/s", "lane rate if not the generation's (CCIX ESM: 20GT/s or 25GT/s on a gen 4 link); 0 = the generation's",
           [](C& c, const Cursor& v) { c.rate_gts = v.rate_gts(); }),
      P<C>("encoding", "choice", "gen", "line encoding if not the generation's: 8b10b, 128b130b or flit (framing follows it)",
           [](C& c, const Cursor& v) {
             const std::string e = v.choice({"gen", "8b10b", "128b130b", "flit"});
             c.encoding_set = e != "gen" && pcie::parse_encoding(e, &c.encoding);
           }),
      P<C>("latency", "time", "10ns", "PHY/SerDes + propagation per direction (first bit out to first bit in)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("skp", "bool", "true", "account SKP ordered sets (4 B every 1538 B, S010)",
           [](C& c, const Cursor& v) { c.skp = v.boolean(); }),
      P<C>("ack_every", "int", "4", "receiver sends an ACK DLLP after this many TLPs",
           [](C& c, const Cursor& v) { c.ack_every = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("ack_timeout", "time", "200ns", "...or this long after the first un-ACKed TLP",
           [](C& c, const Cursor& v) { c.ack_timeout = v.time(); }),
      P<C>("fc_update_every", "int", "4", "receiver returns credits (UpdateFC DLLP) after this many freed TLPs of a class",
           [](C& c, const Cursor& v) { c.fc_update_every = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("fc_update_timeout", "time", "200ns", "...or this long after the first unreported free (sooner if the partner would starve)",
           [](C& c, const Cursor& v) { c.fc_update_timeout = v.time(); }),
      P<C>("l0s_exit", "time", "0ns",
           "ASPM L0s: a TLP that finds its transmitter in L0s waits this long while it leaves it (0: L0s off)",
           [](C& c, const Cursor& v) { c.idle_exit = v.time(); }),
      P<C>("l0s_entry", "time", "0ns", "ASPM L0s: a transmitter that has sent no TLP for this long enters L0s (with l0s_exit)",
           [](C& c, const Cursor& v) { c.idle_entry = v.time(); }),
  };
  return t;
}

const ParamTable<pcie::PortConfig>& port_params() {
  using C = pcie::PortConfig;
  static const ParamTable<C> t = {
      P<C>("tx_align", "size", "4B", "transmitter datapath beat: each TLP occupies whole beats on the wire",
           [](C& c, const Cursor& v) { c.tx_align_B = pow2(v, 1, 64); }),
      P<C>("vcs", "int", "1", "virtual channels enabled, VC0 up to VC7 (VC0: PCIe and ATS, VC1: CCIX)",
           [](C& c, const Cursor& v) { c.vcs = static_cast<int>(v.integer(1, pcie::kMaxVcs)); }),
      P<C>("vc_credits", "list of credit maps", "[]",
           "per-VC receive buffers where they differ: item k for VC k, a map of p_hdr, p_data, np_hdr, np_data, cpl_hdr, "
           "cpl_data; a key not given takes the port's value",
           [](C& c, const Cursor& v) {
             c.vc_credits.clear();
             const auto items = list_items(v, "credit maps", "[{}, {p_hdr: 16, p_data: 128}]");
             if (items.size() > static_cast<std::size_t>(pcie::kMaxVcs)) v.fail("at most 8 VCs");
             for (const Cursor& it : items) {
               pcie::PortConfig::VcCredits vc;
               if (!it.node.IsNull()) {
                 it.keys({"p_hdr", "p_data", "np_hdr", "np_data", "cpl_hdr", "cpl_data"});
                 const char* names[] = {"p", "np", "cpl"};
                 for (int cls = 0; cls < pcie::kFcClasses; ++cls) {
                   if (it.has(std::string(names[cls]) + "_hdr"))
                     vc.hdr[static_cast<std::size_t>(cls)] = static_cast<int>(it.child(std::string(names[cls]) + "_hdr").integer(0, 127));
                   if (it.has(std::string(names[cls]) + "_data"))
                     vc.data[static_cast<std::size_t>(cls)] = static_cast<int>(it.child(std::string(names[cls]) + "_data").integer(0, 2047));
                 }
               }
               c.vc_credits.push_back(vc);
             }
           }),
      P<C>("vc_arbitration", "choice", "rr", "how this port's egress chooses among VCs (switch, root and endpoint ports; an endpoint's completions go first): rr (round robin), "
           "strict (highest VC first) or weighted (vc_weights TLPs of each VC in turn)",
           [](C& c, const Cursor& v) {
             const std::string a = v.choice({"rr", "strict", "weighted"});
             c.vc_arb.policy = a == "strict" ? pcie::VcArbitration::Strict
                               : a == "weighted" ? pcie::VcArbitration::Weighted : pcie::VcArbitration::RoundRobin;
           }),
      P<C>("vc_weights", "list of int", "[1, 1, 1, 1, 1, 1, 1, 1]", "weighted VC arbitration: TLPs of VC k per turn (1-255)",
           [](C& c, const Cursor& v) {
             const auto items = list_items(v, "weights", "[3, 1]");
             if (items.empty() || items.size() > static_cast<std::size_t>(pcie::kMaxVcs)) v.fail("one weight per VC, 1 to 8 of them");
             c.vc_arb.weights.fill(1);
             for (std::size_t k = 0; k < items.size(); ++k) c.vc_arb.weights[k] = static_cast<int>(items[k].integer(1, 255));
           }),
      P<C>("p_hdr", "int", "32", "posted header credits advertised per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_hdr[0] = static_cast<int>(v.integer(0, 127)); }),
      P<C>("p_data", "int", "256", "posted data credits (16 B each) per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_data[0] = static_cast<int>(v.integer(0, 2047)); }),
      P<C>("np_hdr", "int", "32", "non-posted header credits per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_hdr[1] = static_cast<int>(v.integer(0, 127)); }),
      P<C>("np_data", "int", "0", "non-posted data credits per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_data[1] = static_cast<int>(v.integer(0, 2047)); }),
      P<C>("cpl_hdr", "int", "32", "completion header credits per VC (0 = infinite; endpoints and root ports always advertise infinite)",
           [](C& c, const Cursor& v) { c.credits_hdr[2] = static_cast<int>(v.integer(0, 127)); }),
      P<C>("cpl_data", "int", "256", "completion data credits per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_data[2] = static_cast<int>(v.integer(0, 2047)); }),
  };
  return t;
}

const ParamTable<SwitchParams>& switch_params() {
  using C = SwitchParams;
  static const ParamTable<C> t = {
      P<C>("latency", "time", "150ns", "ingress-to-egress latency (PLX datasheets: 100-160 ns, S030)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("cut_through", "bool", "true", "cut-through forwarding (false: store-and-forward)",
           [](C& c, const Cursor& v) { c.cut_through = v.boolean(); }),
      P<C>("acs_redirect", "bool", "false", "ACS P2P Request Redirect: peer requests go up to the root complex",
           [](C& c, const Cursor& v) { c.acs_redirect = v.boolean(); }),
  };
  return t;
}

const ParamTable<host::RootComplexConfig>& rc_params() {
  using C = host::RootComplexConfig;
  static const ParamTable<C> t = {
      P<C>("inbound_latency", "time", "100ns", "root port receive to memory request (IIO pipeline)",
           [](C& c, const Cursor& v) { c.inbound_latency = v.time(); }),
      P<C>("outbound_latency", "time", "100ns", "core MMIO store to root port transmit; completion to core",
           [](C& c, const Cursor& v) { c.outbound_latency = v.time(); }),
      P<C>("completion_latency", "time", "0ns", "read data ready to completion queued at the root port",
           [](C& c, const Cursor& v) { c.completion_latency = v.time(); }),
      P<C>("read_line_interval", "time", "10ns", "one inbound read request fetches one cache line per this interval",
           [](C& c, const Cursor& v) { c.read_line_interval = v.time(); }),
      P<C>("line_interval", "time", "5ns", "shared inbound line pipeline: one coherent line read or write per this interval",
           [](C& c, const Cursor& v) { c.line_interval = v.time(); }),
      P<C>("cpl_max", "size", "256B", "largest completion payload the root complex sends (also limited by MPS)",
           [](C& c, const Cursor& v) { c.cpl_max_B = pow2(v, 64, 4096); }),
      P<C>("rcb", "size", "64B", "read completion boundary (64 B or 128 B)",
           [](C& c, const Cursor& v) {
             c.rcb_B = static_cast<int>(v.size());
             if (c.rcb_B != 64 && c.rcb_B != 128) v.fail("RCB is 64B or 128B");
           }),
      P<C>("cpl_combine_min", "size", "0B", "read requests touching fewer lines than this many bytes' worth are answered one RCB "
           "per completion, even when more data is ready (0: always combine up to cpl_max)",
           [](C& c, const Cursor& v) {
             if (v.size() > 4096) v.fail("cpl_combine_min is at most 4096B (the largest read request)");
             c.cpl_combine_min_B = static_cast<int>(v.size());
           }),
      P<C>("posted_buffer", "int", "64", "inbound posted writes the root complex holds before memory commits them",
           [](C& c, const Cursor& v) { c.posted_buffer = static_cast<int>(v.integer(1, 1 << 20)); }),
      P<C>("read_trackers", "int", "0", "inbound memory reads the root complex tracks at once, each from its arrival "
           "through translation and memory to its last completion (0 = unlimited)",
           [](C& c, const Cursor& v) { c.read_trackers = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("p2p", "bool", "true", "forward peer-to-peer requests between root ports (and reflect ACS-redirected ones)",
           [](C& c, const Cursor& v) { c.p2p = v.boolean(); }),
      P<C>("atomic_completer", "bool", "false",
           "root ports complete AtomicOps (FetchAdd, Swap, CAS of 4 or 8 B operands) on DRAM (AtomicOp Completer Supported)",
           [](C& c, const Cursor& v) { c.atomic_completer = v.boolean(); }),
      P<C>("dram_base", "size", "4GiB", "first address of host DRAM",
           [](C& c, const Cursor& v) { c.dram_base = v.size(); }),
      P<C>("dram_size", "size", "64GiB", "host DRAM size", [](C& c, const Cursor& v) { c.dram_size = v.size(); }),
  };
  return t;
}

const ParamTable<mem::MemoryConfig>& memory_params() {
  using C = mem::MemoryConfig;
  static const ParamTable<C> t = {
      P<C>("read_latency", "time", "80ns", "memory controller read latency (request to data)",
           [](C& c, const Cursor& v) { c.read_latency = v.time(); }),
      P<C>("write_latency", "time", "40ns", "write accept to commit", [](C& c, const Cursor& v) { c.write_latency = v.time(); }),
      P<C>("channel_bw", "bandwidth", "12.8GB/s", "bandwidth of one memory channel",
           [](C& c, const Cursor& v) { c.channel_GBps = v.bandwidth() / 1e9; if (c.channel_GBps <= 0) v.fail("must be positive"); }),
      P<C>("channels", "int", "2", "independent channels, interleaved by line",
           [](C& c, const Cursor& v) { c.channels = static_cast<int>(v.integer(1, 64)); }),
      P<C>("rmw_extra", "time", "40ns", "extra channel occupancy of a partial-line write (read-modify-write turnaround)",
           [](C& c, const Cursor& v) { c.rmw_extra = v.time(); }),
      P<C>("partial_rmw", "bool", "true", "partial-line writes read-modify-write DRAM (false: DDIO, the LLC merges them)",
           [](C& c, const Cursor& v) { c.partial_rmw = v.boolean(); }),
      P<C>("numa_nodes", "int", "1", "memory nodes: 2 puts the upper half of DRAM on the far socket (buffers choose with `node: far`)",
           [](C& c, const Cursor& v) { c.numa_nodes = static_cast<int>(v.integer(1, 2)); }),
      P<C>("far_latency", "time", "0ns", "extra latency of a far-node line (socket interconnect round trip)",
           [](C& c, const Cursor& v) { c.far_latency = v.time(); }),
      P<C>("far_snoop", "time", "0ns", "extra latency of a DMA read of a near-homed line that only the far socket's LLC "
           "holds (snoop and forward across the socket interconnect)",
           [](C& c, const Cursor& v) { c.far_snoop = v.time(); }),
      P<C>("far_bw", "bandwidth", "0GB/s", "socket interconnect bandwidth available to far-node lines (0 = no limit)",
           [](C& c, const Cursor& v) { c.far_GBps = v.bandwidth() / 1e9; }),
      P<C>("llc_size", "size", "0B", "last-level cache that DMA reads look up (0 = none: every read at read_latency); "
           "DMA writes allocate in it (DDIO)",
           [](C& c, const Cursor& v) {
             c.llc_size = v.size();
             if (c.llc_size > (1ull << 30)) v.fail("llc_size is at most 1GiB (its tags are kept for every line)");
           }),
      P<C>("llc_ways", "int", "16", "LLC associativity",
           [](C& c, const Cursor& v) { c.llc_ways = static_cast<int>(v.integer(1, 64)); }),
      P<C>("ddio_ways", "int", "0", "LLC ways of each set a DMA write that misses may allocate in (DDIO's share, "
           "Intel's IIO LLC WAYS; 0 = any way); at most llc_ways",
           [](C& c, const Cursor& v) { c.ddio_ways = static_cast<int>(v.integer(0, 64)); }),
      P<C>("llc_replacement", "choice", "lru", "LLC replacement: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.llc_replacement = replacement_policy(v); }),
      P<C>("llc_miss", "time", "0ns", "extra latency of a DMA read that misses the LLC (read_latency is a hit's)",
           [](C& c, const Cursor& v) { c.llc_miss = v.time(); }),
  };
  return t;
}

const ParamTable<ats::IommuConfig>& iommu_params() {
  using C = ats::IommuConfig;
  static const ParamTable<C> t = {
      P<C>("enabled", "bool", "false", "remap inbound DMA through the IOMMU (VT-d / SMMU)",
           [](C& c, const Cursor& v) { c.enabled = v.boolean(); }),
      P<C>("superpages", "bool", "true", "map buffers with the largest supported page their backing allows (false: 4 KiB pages only)",
           [](C& c, const Cursor& v) { c.superpages = v.boolean(); }),
      P<C>("page_sizes", "list of size", "[4KiB, 2MiB, 1GiB]", "page sizes the IOMMU maps with (4KiB, 64KiB, 2MiB, 32MiB, 1GiB)",
           [](C& c, const Cursor& v) { c.page_sizes = page_size_set(v); }),
      P<C>("iotlb_entries", "int", "64", "IOTLB entries", [](C& c, const Cursor& v) { c.iotlb.entries = static_cast<int>(v.integer(1, 1 << 20)); }),
      P<C>("iotlb_ways", "int", "4", "IOTLB associativity (0 = fully associative); must divide the entries",
           [](C& c, const Cursor& v) { c.iotlb.ways = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("iotlb_replacement", "choice", "lru", "IOTLB replacement: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.iotlb.replacement = replacement_policy(v); }),
      P<C>("lookup", "time", "0ns", "IOTLB lookup, hit or miss", [](C& c, const Cursor& v) { c.iotlb.lookup = v.time(); }),
      P<C>("pwc_entries", "int", "16", "page-walk cache entries per non-leaf level (fully associative)",
           [](C& c, const Cursor& v) { c.pwc_entries = static_cast<int>(v.integer(1, 1 << 16)); }),
      P<C>("walkers", "int", "1", "page-table walks in flight at once", [](C& c, const Cursor& v) { c.walkers = static_cast<int>(v.integer(1, 1024)); }),
      P<C>("walk_overhead", "time", "0ns", "walker time per walk besides its memory reads (request, pipeline, fill)",
           [](C& c, const Cursor& v) { c.walk_overhead = v.time(); }),
      P<C>("miss_latency", "time", "0ns", "extra latency of a read that missed, after its walk, not holding a walker (its replay into the read pipeline, "
           "plus one rc.line_interval per line after the first; a posted write goes on when its walk ends)",
           [](C& c, const Cursor& v) { c.miss_latency = v.time(); }),
      P<C>("tables_in_llc", "bool", "true", "page-table reads are served by the LLC (false: by DRAM through the memory controller)",
           [](C& c, const Cursor& v) { c.tables_in_llc = v.boolean(); }),
      P<C>("pte_read", "time", "20ns", "one page-table entry read served by the LLC",
           [](C& c, const Cursor& v) { c.pte_read = v.time(); }),
      P<C>("table_region", "size", "64MiB", "DRAM reserved at its top for I/O page tables",
           [](C& c, const Cursor& v) { c.table_region = v.size(); if (c.table_region < 4096) v.fail("at least 4KiB"); }),
  };
  return t;
}

const ParamTable<host::HostCpuConfig>& cpu_params() {
  using C = host::HostCpuConfig;
  static const ParamTable<C> t = {
      P<C>("cores", "int", "8", "cores available to software threads", [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("syscall", "time", "1us", "system call entry and exit", [](C& c, const Cursor& v) { c.syscall_cost = v.time(); }),
      P<C>("pin_page", "time", "100ns", "pinning one 4 KiB user page", [](C& c, const Cursor& v) { c.pin_page_cost = v.time(); }),
      P<C>("uc_write", "time", "200ns", "core stall per UC MMIO store", [](C& c, const Cursor& v) { c.uc_write_cost = v.time(); }),
      P<C>("wc_line", "time", "5ns", "core time per 64 B write-combined MMIO line", [](C& c, const Cursor& v) { c.wc_line_cost = v.time(); }),
      P<C>("fence", "time", "20ns", "store fence after WC stores", [](C& c, const Cursor& v) { c.fence_cost = v.time(); }),
      P<C>("irq_latency", "time", "3us", "MSI arrival to the waiting thread running", [](C& c, const Cursor& v) { c.irq_latency = v.time(); }),
      P<C>("poll_period", "time", "20ns", "one iteration of a polling loop", [](C& c, const Cursor& v) { c.poll_period = v.time(); }),
      P<C>("poll_miss", "time", "60ns", "fetching a polled line after a device write invalidated it", [](C& c, const Cursor& v) { c.poll_miss = v.time(); }),
      P<C>("copy_line", "time", "2ns", "core reading one cache line of a received buffer", [](C& c, const Cursor& v) { c.copy_line_cost = v.time(); }),
      P<C>("os_tick_period", "time", "4ms", "OS timer tick period per core (0 = no OS noise)", [](C& c, const Cursor& v) { c.os_tick_period = v.time(); }),
      P<C>("far_mmio", "time", "0ns", "extra time of a UC MMIO store from a core on the far socket", [](C& c, const Cursor& v) { c.far_mmio = v.time(); }),
      P<C>("os_tick_cost", "time", "15us", "time a timer tick takes from the running thread", [](C& c, const Cursor& v) { c.os_tick_cost = v.time(); }),
  };
  return t;
}

const ParamTable<EndpointParams>& endpoint_params() {
  using C = EndpointParams;
  static const ParamTable<C> t = {
      P<C>("tx_latency", "time", "100ns", "hard block TX pipeline: TLP from device logic to the wire",
           [](C& c, const Cursor& v) { c.tx_latency = v.time(); }),
      P<C>("rx_latency", "time", "100ns", "hard block RX pipeline: last byte in to device logic",
           [](C& c, const Cursor& v) { c.rx_latency = v.time(); }),
      P<C>("reg_read_latency", "time", "40ns", "BAR register read turnaround", [](C& c, const Cursor& v) { c.reg_read_latency = v.time(); }),
      P<C>("reg_read_per_dw", "time", "0ns", "each DW of a BAR read beyond the first (a register bus one DW wide)",
           [](C& c, const Cursor& v) { c.reg_read_per_dw = v.time(); }),
      P<C>("mrrs", "size", "512B", "Max_Read_Request_Size", [](C& c, const Cursor& v) { c.mrrs = pow2(v, 128, 4096); }),
      P<C>("tags", "int", "32", "outstanding non-posted requests (tags)", [](C& c, const Cursor& v) { c.tags = static_cast<int>(v.integer(1, 1024)); }),
      P<C>("bar_size", "size", "2MiB", "size of BAR0 (power of two)",
           [](C& c, const Cursor& v) { c.bar_size = static_cast<std::uint64_t>(pow2(v, 4096, 1 << 30)); }),
      P<C>("bar64", "bool", "false",
           "BAR0 is 64-bit prefetchable and placed above 4 GiB, above host DRAM (the 32-bit window holds about 1 GiB of BARs)",
           [](C& c, const Cursor& v) { c.bar64 = v.boolean(); }),
  };
  return t;
}

const ParamTable<dma::RostaConfig>& rosta_params() {
  using C = dma::RostaConfig;
  static const ParamTable<C> t = {
      P<C>("clock", "frequency", "250MHz", "engine clock (64-bit AXI-Stream datapath)", [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("desc_gap_cycles", "int", "0", "cycles between the last TLP of a descriptor and the first of the next",
           [](C& c, const Cursor& v) { c.desc_gap_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("max_reads", "int", "1", "outstanding read requests of the engine", [](C& c, const Cursor& v) { c.max_reads = static_cast<int>(v.integer(1, 1024)); }),
      P<C>("fifo_tlps", "int", "16", "TLPs the engine may run ahead of the link", [](C& c, const Cursor& v) { c.fifo_tlps = static_cast<int>(v.integer(1, 4096)); }),
  };
  return t;
}

const ParamTable<dma::CalypteConfig>& calypte_params() {
  using C = dma::CalypteConfig;
  static const ParamTable<C> t = {
      P<C>("clock", "frequency", "250MHz", "controller clock", [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("f2h_cycles", "int", "20", "F2H pipeline: packet in to first PCIe write", [](C& c, const Cursor& v) { c.f2h_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("h2f_cycles", "int", "20", "H2F pipeline: DMA header in to packet out", [](C& c, const Cursor& v) { c.h2f_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("segment", "size", "128B", "F2H PCIe write size a packet is cut into (S004)", [](C& c, const Cursor& v) { c.segment_B = pow2(v, 64, 4096); }),
      P<C>("channels", "int", "16", "virtual channels", [](C& c, const Cursor& v) { c.channels = static_cast<int>(v.integer(1, 256)); }),
      P<C>("bus_bits", "int", "256", "user datapath width in bits (256 or 512)", [](C& c, const Cursor& v) {
        c.bus_bits = static_cast<int>(v.integer(64, 1024));
        if (c.bus_bits != 256 && c.bus_bits != 512 && c.bus_bits != 64 && c.bus_bits != 128) v.fail("64, 128, 256 or 512");
      }),
      P<C>("model", "choice", "behavioural", "behavioural, or rtl: the synthesizable engine co-simulated with Verilator (16 channels, 256 bit)",
           [](C& c, const Cursor& v) { c.rtl = v.choice({"behavioural", "rtl"}) == "rtl"; }),
      P<C>("wave", "string", "", "with model rtl: write the RTL's signals to this VCD file (point K of a sweep: NAME.K.vcd)",
           [](C& c, const Cursor& v) { c.wave = v.scalar(); }),
      P<C>("user_ready_every", "int", "1", "with model rtl: user logic takes an H2F beat one cycle in N (back-pressure)",
           [](C& c, const Cursor& v) { c.user_ready_every = static_cast<int>(v.integer(1, 1000)); }),
  };
  return t;
}

const ParamTable<dma::CoyoteConfig>& coyote_params() {
  using C = dma::CoyoteConfig;
  static const ParamTable<C> t = {
      P<C>("clock", "frequency", "250MHz", "shell clock", [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("pmtu", "size", "4KiB", "largest packet a transfer is cut into (never across 4 KiB)", [](C& c, const Cursor& v) { c.pmtu_B = pow2(v, 64, 4096); }),
      P<C>("outstanding", "int", "16", "packets in flight", [](C& c, const Cursor& v) { c.outstanding = static_cast<int>(v.integer(1, 1024)); }),
      P<C>("cmd_cycles", "int", "20", "invocation register write to the first packet", [](C& c, const Cursor& v) { c.cmd_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("loop_cycles", "int", "8", "user logic loopback per packet", [](C& c, const Cursor& v) { c.loop_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("done_cycles", "int", "8", "last write of a transfer to its completion writeback", [](C& c, const Cursor& v) { c.done_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("bus", "size", "64B", "user logic stream width: one beat a cycle", [](C& c, const Cursor& v) { c.bus_B = pow2(v, 8, 4096); }),
      P<C>("xfer_gap_cycles", "int", "0", "a transfer enters the user logic stream this long after the previous transfer's last beat",
           [](C& c, const Cursor& v) { c.xfer_gap_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("tlb_cycles", "int", "2", "one MMU translation (hit)", [](C& c, const Cursor& v) { c.tlb_cycles = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("stlb_entries", "int", "1024", "small-page (4 KiB) TLB entries", [](C& c, const Cursor& v) { c.stlb.entries = static_cast<int>(v.integer(1, 1 << 20)); }),
      P<C>("stlb_ways", "int", "4", "small-page TLB ways", [](C& c, const Cursor& v) { c.stlb.ways = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("ltlb_entries", "int", "512", "large-page (2 MiB) TLB entries", [](C& c, const Cursor& v) { c.ltlb.entries = static_cast<int>(v.integer(1, 1 << 20)); }),
      P<C>("ltlb_ways", "int", "2", "large-page TLB ways", [](C& c, const Cursor& v) { c.ltlb.ways = static_cast<int>(v.integer(0, 1 << 20)); }),
      P<C>("tlb_replacement", "choice", "lru", "replacement of both TLBs: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.stlb.replacement = c.ltlb.replacement = replacement_policy(v); }),
      P<C>("invoke_writes", "int", "4", "8 B UC register writes the driver makes per invocation", [](C& c, const Cursor& v) { c.invoke_writes = static_cast<int>(v.integer(1, 64)); }),
      P<C>("driver_miss", "time", "2us", "host driver work per MMU miss, after the interrupt reaches it", [](C& c, const Cursor& v) { c.driver_miss = v.time(); }),
  };
  return t;
}

const ParamTable<dma::BenchDmaConfig>& bench_params() {
  using C = dma::BenchDmaConfig;
  static const ParamTable<C> t = {
      P<C>("issue_interval", "time", "20ns", "minimum time between DMA commands", [](C& c, const Cursor& v) { c.issue_interval = v.time(); }),
      P<C>("cmd_latency", "time", "100ns", "command to first TLP handed to the hard block", [](C& c, const Cursor& v) { c.cmd_latency = v.time(); }),
      P<C>("done_latency", "time", "50ns", "last data to command complete", [](C& c, const Cursor& v) { c.done_latency = v.time(); }),
      P<C>("read_byte_time", "time", "0ps", "per-byte time to move read data into device memory, per command", [](C& c, const Cursor& v) { c.read_byte_time = v.time(); }),
      P<C>("write_byte_time", "time", "0ps", "per-byte time to fetch write data before a write command issues", [](C& c, const Cursor& v) { c.write_byte_time = v.time(); }),
      P<C>("write_interval", "time", "0ns", "minimum time between write commands, whatever their size (the write data path's command period)",
           [](C& c, const Cursor& v) { c.write_interval = v.time(); }),
      P<C>("write_payload", "size", "0B", "largest payload of a write TLP the engine forms, 0 = MPS (writes are also cut at MPS)",
           [](C& c, const Cursor& v) { c.write_payload = v.size() == 0 ? 0 : static_cast<std::uint32_t>(pow2(v, 4, 4096)); }),
      P<C>("max_outstanding", "int", "64", "DMA commands in flight", [](C& c, const Cursor& v) { c.max_outstanding = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("retire_in_order", "bool", "false", "signal each command's completion only after every older command's (an in-order DMA queue)",
           [](C& c, const Cursor& v) { c.retire_in_order = v.boolean(); }),
      P<C>("ats", "bool", "false", "translate addresses with ATS through an on-device ATC (needs the host's IOMMU on)",
           [](C& c, const Cursor& v) { c.ats = v.boolean(); }),
      P<C>("atc_entries", "int", "32", "ATC entries", [](C& c, const Cursor& v) { c.atc.entries = static_cast<int>(v.integer(1, 1 << 16)); }),
      P<C>("atc_ways", "int", "0", "ATC associativity (0 = fully associative)", [](C& c, const Cursor& v) { c.atc.ways = static_cast<int>(v.integer(0, 1 << 16)); }),
      P<C>("atc_replacement", "choice", "lru", "ATC replacement: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.atc.replacement = replacement_policy(v); }),
      P<C>("atc_lookup", "time", "0ns", "ATC lookup, hit or miss", [](C& c, const Cursor& v) { c.atc.lookup = v.time(); }),
      P<C>("atc_miss", "time", "0ns", "ATS-switch time on an ATC miss besides the translation round trip (request, fill, replay)",
           [](C& c, const Cursor& v) { c.atc_miss = v.time(); }),
      P<C>("atc_prefetch", "int", "0", "following 4 KiB pages requested with each ATC miss",
           [](C& c, const Cursor& v) { c.atc_prefetch = static_cast<int>(v.integer(0, 63)); }),
  };
  return t;
}

const ParamTable<rtl::RtlDeviceConfig>& rtl_params() {
  using C = rtl::RtlDeviceConfig;
  static const ParamTable<C> t = {
      P<C>("interface", "choice", "tlp_stream",
           "how the design connects: tlp_stream (header and DW-aligned data streams) or usp (the UltraScale+ hard block's CQ, CC, "
           "RQ and RC interfaces); docs/rtl.md",
           [](C& c, const Cursor& v) { c.interface = v.choice(rtl::interface_kinds()); }),
      P<C>("data_width", "int", "256", "bits of each stream's data bus (64, 128, 256 or 512)", [](C& c, const Cursor& v) {
        c.data_width = static_cast<int>(v.integer(64, 512));
        if (c.data_width != 64 && c.data_width != 128 && c.data_width != 256 && c.data_width != 512) v.fail("64, 128, 256 or 512");
      }),
      P<C>("clock", "frequency", "250MHz", "the design's clock", [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("reset_cycles", "int", "8", "cycles the design is held in reset before time 0",
           [](C& c, const Cursor& v) { c.reset_cycles = static_cast<int>(v.integer(1, 1 << 20)); }),
      P<C>("idle_cycles", "int", "16", "cycles without a handshake after which the clock stops until an input changes (the clocking contract, docs/rtl.md)",
           [](C& c, const Cursor& v) { c.idle_cycles = static_cast<int>(v.integer(1, 1 << 20)); }),
      P<C>("free_running", "bool", "false", "the clock runs from reset until the driver is done, for designs that change state on their own",
           [](C& c, const Cursor& v) { c.free_running = v.boolean(); }),
      P<C>("wave", "string", "", "write the design's signals to this VCD file (point K of a sweep: NAME.K.vcd)",
           [](C& c, const Cursor& v) { c.wave = v.scalar(); }),
      P<C>("tx_depth", "int", "8", "TLPs the endpoint queues from tx_req before tx_req_ready drops",
           [](C& c, const Cursor& v) { c.tx_depth = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("inject_completion_error", "bool", "false", "a test of the data checks: change one byte of the design's first completion after its checksum (the run must fail)",
           [](C& c, const Cursor& v) { c.corrupt_completion = v.boolean(); }),
  };
  return t;
}

const ParamTable<ccix::RequestAgentConfig>& ccix_ra_params() {
  using C = ccix::RequestAgentConfig;
  static const ParamTable<C> t = {
      P<C>("issue_interval", "time", "4ns", "the traffic generator's line issue interval (its AXI beat time)",
           [](C& c, const Cursor& v) { c.issue_interval = v.time(); }),
      P<C>("axi_latency", "time", "0ns", "generator to the system cache, through the AXI bridge", [](C& c, const Cursor& v) { c.axi_latency = v.time(); }),
      P<C>("sc_lookup", "time", "2ns", "system cache look-up, per access and per message received",
           [](C& c, const Cursor& v) { c.agent.lookup = v.time(); }),
      P<C>("trackers", "int", "8", "requests the agent has outstanding at once (its MSHRs)",
           [](C& c, const Cursor& v) { c.agent.mshrs = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("sc_size", "size", "0B",
           "the system cache's capacity (0: unlimited); least recently used lines give way, evicted if clean, written back "
           "over CCIX if dirty",
           [](C& c, const Cursor& v) { c.agent.capacity = cache_lines(v); }),
      P<C>("sc_ways", "int", "16", "the system cache's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.agent.ways = static_cast<int>(v.integer(1, 64)); }),
      P<C>("sc_victims", "int", "0",
           "the system cache's replacement buffer: victims awaiting the home's acknowledgement (0: unlimited); while it is "
           "full, a miss into a full set waits",
           [](C& c, const Cursor& v) { c.agent.victims = static_cast<int>(v.integer(0, 4096)); }),
      P<C>("atomics", "choice", "far", "where an atomic on a line the SC does not hold runs: far (at the home) or near (the line fetched unique)",
           [](C& c, const Cursor& v) { c.agent.far_atomics = v.choice({"far", "near"}) == "far"; }),
      P<C>("ats", "bool", "false", "requests on virtual addresses, translated by the device's ATS switch (the bench: section's ATC)",
           [](C& c, const Cursor& v) { c.ats = v.boolean(); }),
      P<C>("dma_translates", "bool", "false", "the device's DMA engine (the bench: section) translates its commands too; false: physical addresses",
           [](C& c, const Cursor& v) { c.dma_translates = v.boolean(); }),
      P<C>("write_fill", "time", "0ns",
           "a write that missed: from its line's arrival (or its MakeUnique's grant) to the write being in the line (merged through the "
           "system cache's pipeline again)",
           [](C& c, const Cursor& v) { c.agent.store_fill = v.time(); }),
      P<C>("reads", "choice", "read_shared",
           "how a read of a line the system cache does not hold asks for it: read_shared (a dirty owner may keep the line "
           "dirty, where the home keeps dirty lines shared) or read_clean (ReadClean: a dirty owner sends the line home)",
           [](C& c, const Cursor& v) { c.agent.read_clean = v.choice({"read_shared", "read_clean"}) == "read_clean"; }),
      P<C>("full_line_writes", "choice", "read_unique",
           "how a write of a whole line the system cache does not hold takes the line: read_unique (its data read first) or "
           "make_unique (unique without its data, as the write overwrites it)",
           [](C& c, const Cursor& v) { c.agent.make_unique = v.choice({"read_unique", "make_unique"}) == "make_unique"; }),
      P<C>("read_return", "time", "0ns", "read data from the system cache back to the generator", [](C& c, const Cursor& v) { c.read_return = v.time(); }),
      P<C>("write_return", "time", "0ns", "write response from the system cache back to the generator",
           [](C& c, const Cursor& v) { c.write_return = v.time(); }),
      P<C>("stream_depth", "int", "2", "CCIX packets queued in the PCIe block at once (more wait in the CCIX layer, to be packed)",
           [](C& c, const Cursor& v) { c.stream_depth = static_cast<int>(v.integer(1, 1024)); }),
      P<C>("ccix_latency", "time", "0ns", "the CCIX transaction and link layers on this side, each way", [](C& c, const Cursor& v) { c.ccix.latency = v.time(); }),
      P<C>("header", "choice", "pcie", "CCIX packet header: pcie (PCIe-compatible, 16 B) or optimised (4 B)",
           [](C& c, const Cursor& v) { c.ccix.format.optimised = v.choice({"pcie", "optimised"}) == "optimised"; }),
      P<C>("packing", "bool", "true", "several CCIX messages per packet (NoMessagePack false)", [](C& c, const Cursor& v) { c.ccix.format.packing = v.boolean(); }),
      P<C>("max_packet", "size", "256B", "CCIX MaxPacketSize: 128B, 256B or 512B of messages per packet",
           [](C& c, const Cursor& v) {
             const std::uint64_t b = v.size();
             if (b != 128 && b != 256 && b != 512) v.fail("a CCIX MaxPacketSize is 128B, 256B or 512B");
             c.ccix.format.max_packet_B = static_cast<int>(b);
           }),
      P<C>("credit_return_delay", "time", "100ns", "longest a credit return waits for a message to carry it",
           [](C& c, const Cursor& v) { c.ccix.credit_return_delay = v.time(); }),
      P<C>("snp_credits", "int", "16", "snoops the agent takes at once (credits it grants the home)",
           [](C& c, const Cursor& v) { c.ccix.credits[1] = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("rsp_credits", "int", "32", "responses the agent takes at once", [](C& c, const Cursor& v) { c.ccix.credits[2] = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("dat_credits", "int", "32", "data messages the agent takes at once", [](C& c, const Cursor& v) { c.ccix.credits[3] = static_cast<int>(v.integer(1, 4096)); }),
  };
  return t;
}

const ParamTable<ccix::HomePortConfig>& ccix_home_params() {
  using C = ccix::HomePortConfig;
  static const ParamTable<C> t = {
      P<C>("home_lookup", "time", "10ns", "the home node's latency per message: its pipeline and directory (the CCIX port's is ccix_latency)",
           [](C& c, const Cursor& v) { c.home.lookup = v.time(); }),
      P<C>("ccix_latency", "time", "0ns", "the host's CCIX transaction and link layers, each way", [](C& c, const Cursor& v) { c.ccix.latency = v.time(); }),
      P<C>("atomic_latency", "time", "0ns", "an atomic's operation at the home, once the line's value is there",
           [](C& c, const Cursor& v) { c.home.atomic_latency = v.time(); }),
      P<C>("migratory", "bool", "false",
           "a read for a shared copy of a line another agent holds unique takes the line unique (the owner invalidated), "
           "so a read-modify-write needs no upgrade",
           [](C& c, const Cursor& v) { c.home.policy.migratory = v.boolean(); }),
      P<C>("dirty_sharing", "bool", "false",
           "a read for a shared copy of a line another agent holds dirty leaves that agent the line's owner, shared dirty (SD), "
           "and memory stale: no write-back until the owner gives the line up, and the owner answers the reads after (not with "
           "migratory)",
           [](C& c, const Cursor& v) { c.home.policy.owned = v.boolean(); }),
      P<C>("cores", "int", "0", "host cores as coherent requesters of this home, each a caching agent (private L1/L2) on the mesh",
           [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer(0, 62)); }),
      P<C>("core_lookup", "time", "2ns", "a host core's private cache: from an access to its miss leaving, and per message it receives",
           [](C& c, const Cursor& v) { c.core.lookup = v.time(); }),
      P<C>("core_mshrs", "int", "8", "requests a host core has outstanding at once", [](C& c, const Cursor& v) { c.core.mshrs = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("core_l2_size", "size", "0B", "each host core's private cache (0: unlimited); least recently used lines give way, written back if dirty",
           [](C& c, const Cursor& v) { c.core.capacity = cache_lines(v); }),
      P<C>("core_l2_ways", "int", "16", "that cache's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.core.ways = static_cast<int>(v.integer(1, 64)); }),
      P<C>("core_l2_victims", "int", "0",
           "that cache's replacement buffer: victims awaiting the home's acknowledgement (0: unlimited); while it is full, a miss "
           "into a full set waits",
           [](C& c, const Cursor& v) { c.core.victims = static_cast<int>(v.integer(0, 4096)); }),
      P<C>("core_atomics", "choice", "far", "where a host core's atomic on a line it does not hold runs: far (at the home) or near (the line fetched unique)",
           [](C& c, const Cursor& v) { c.core.far_atomics = v.choice({"far", "near"}) == "far"; }),
      P<C>("mesh_latency", "time", "10ns", "a host core's path across the mesh to the home node, each way",
           [](C& c, const Cursor& v) { c.core_link.latency = v.time(); }),
      P<C>("mesh_bw", "bandwidth", "20GB/s", "that path's bandwidth, each way", [](C& c, const Cursor& v) {
             c.core_link.GBps = v.bandwidth() / 1e9;
             if (c.core_link.GBps < 0.001) v.fail("at least 1 MB/s");
           }),
      P<C>("req_credits", "int", "16", "requests the home takes at once from each request agent (its trackers)",
           [](C& c, const Cursor& v) { c.ccix.credits[0] = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("rsp_credits", "int", "32", "responses the home takes at once from each agent", [](C& c, const Cursor& v) { c.ccix.credits[2] = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("dat_credits", "int", "32", "data messages the home takes at once from each agent", [](C& c, const Cursor& v) { c.ccix.credits[3] = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("credit_return_delay", "time", "100ns", "longest a credit return waits for a message to carry it",
           [](C& c, const Cursor& v) { c.ccix.credit_return_delay = v.time(); }),
  };
  return t;
}

const ParamTable<host::SocketLinkConfig>& socket_link_params() {
  using C = host::SocketLinkConfig;
  static const ParamTable<C> t = {
      P<C>("latency", "time", "53ns", "one way, a message's flight from one root complex to the other (half the 106 ns a far "
           "line adds to LAT_DMA_RD 64 B on the Ivy Bridge E5-2620 v2, S011: topologies/s011_ivb_e5_2620v2.yaml)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("bandwidth", "bandwidth", "16GB/s", "line data, each direction (QPI 1.1 at 8 GT/s: 20 lanes, 64 of every 80 bits "
           "data; 0 = no limit)",
           [](C& c, const Cursor& v) { c.GBps = v.bandwidth() / 1e9; }),
  };
  return t;
}

const ParamTable<coherence::SocketSystemConfig>& socket_params() {
  using C = coherence::SocketSystemConfig;
  static const ParamTable<C> t = {
      P<C>("count", "int", "2", "sockets (1 or 2)", [](C& c, const Cursor& v) { c.sockets = static_cast<int>(v.integer(1, 2)); }),
      P<C>("cores", "int", "2", "cores per socket, each with a private L1/L2 (a caching agent)",
           [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer(1, 31)); }),
      P<C>("slices", "int", "1", "LLC slices per socket, each the home agent (directory) of the lines interleaved to it",
           [](C& c, const Cursor& v) { c.slices = static_cast<int>(v.integer(1, 31)); }),
      P<C>("core_lookup", "time", "5ns", "a core's private L1/L2: from an access to its miss leaving, and per message it receives",
           [](C& c, const Cursor& v) { c.core_lookup = v.time(); }),
      P<C>("home_lookup", "time", "10ns", "an LLC slice's look-up and directory, per message", [](C& c, const Cursor& v) { c.home_lookup = v.time(); }),
      P<C>("mesh_hop", "time", "5ns", "one trip across a socket's mesh (core, slice, socket-link port)",
           [](C& c, const Cursor& v) { c.mesh_hop = v.time(); }),
      P<C>("mshrs", "int", "16", "outstanding misses per core", [](C& c, const Cursor& v) { c.mshrs = static_cast<int>(v.integer(1, 256)); }),
      P<C>("store_buffer", "int", "0",
           "each core's store buffer, in stores (x86-TSO): a store completes into it, and it commits its stores to the core's "
           "cache in order, taking their lines unique ahead of their turn (0: none, a core's stores are done before it goes on)",
           [](C& c, const Cursor& v) { c.store_buffer = static_cast<int>(v.integer(0, 1024)); }),
      P<C>("prefetch", "int", "0",
           "lines after a core's missing load or store that its next-line prefetcher also reads (within the page; 0: none)",
           [](C& c, const Cursor& v) { c.prefetch = static_cast<int>(v.integer(0, 16)); }),
      P<C>("forward", "bool", "true",
           "a line a core holds unique is sent by that core straight to the core that asks for it (false: through the home)",
           [](C& c, const Cursor& v) { c.forward = v.boolean(); }),
      P<C>("dirty_sharing", "bool", "false",
           "with forward: false, a read for a shared copy of a line a core holds dirty leaves that core the line's owner, shared "
           "dirty (SD), and memory stale: no write-back until the owner gives the line up",
           [](C& c, const Cursor& v) { c.dirty_sharing = v.boolean(); }),
      P<C>("l2_size", "size", "0B", "each core's private cache (0: unlimited); least recently used lines give way, written back if dirty",
           [](C& c, const Cursor& v) { c.l2_lines = cache_lines(v); }),
      P<C>("l2_ways", "int", "16", "the private cache's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.l2_ways = static_cast<int>(v.integer(1, 64)); }),
      P<C>("l2_victims", "int", "0",
           "the private cache's replacement buffer: victims awaiting their home's acknowledgement (0: unlimited); while it is full, "
           "a miss into a full set waits",
           [](C& c, const Cursor& v) { c.l2_victims = static_cast<int>(v.integer(0, 4096)); }),
      P<C>("socket_bytes", "size", "64GiB", "DRAM per socket: socket s homes the addresses [s, s+1) times this",
           [](C& c, const Cursor& v) {
             c.socket_bytes = v.size();
             if (c.socket_bytes < 4096 || c.socket_bytes % 4096) v.fail("a positive multiple of 4 KiB");
           }),
      P<C>("links", "int", "1", "socket links between the two sockets", [](C& c, const Cursor& v) { c.links = static_cast<int>(v.integer(1, 4)); }),
      P<C>("link_bw", "bandwidth", "20GB/s", "one socket link's data bandwidth, each direction",
           [](C& c, const Cursor& v) {
             c.link.GBps = v.bandwidth() / 1e9;
             if (c.link.GBps < 0.001) v.fail("at least 1 MB/s");
           }),
      P<C>("link_latency", "time", "10ns", "one socket link's latency, each direction (PHY, link layer, wire)",
           [](C& c, const Cursor& v) { c.link.latency = v.time(); }),
      P<C>("link_header", "size", "16B", "a coherence message's header on a socket link (a data message adds a 64 B line)",
           [](C& c, const Cursor& v) {
             const std::uint64_t b = v.size();
             if (b < 1 || b > 256) v.fail("1 B to 256 B");
             c.link.header_B = static_cast<int>(b);
           }),
      P<C>("link_credits", "int", "16", "messages of each class a socket link's end buffers (the credits its partner gets)",
           [](C& c, const Cursor& v) { c.link_end.credits.fill(static_cast<int>(v.integer(1, 4096))); }),
      P<C>("link_credit_return", "choice", "header",
           "how a socket link's receiver returns credits: header (each message's as it is taken, in the reverse direction's "
           "headers, no wire time: UPI, CHI, CXL.cache) or packet (8 B packets after 4 messages of a class or 200 ns, as PCIe's "
           "UpdateFC)",
           [](C& c, const Cursor& v) { c.link.credits_in_header = v.choice({"header", "packet"}) == "header"; }),
  };
  return t;
}

// The software of a NIC on the socket interconnect: its platform's costs.
// The design options and the traffic are the workload's (nic_loop).
const ParamTable<nic::CoherentNicConfig>& coherent_nic_params() {
  using C = nic::CoherentNicConfig;
  static const ParamTable<C> t = {
      P<C>("poll_loop", "time", "10ns", "a polling loop's iteration: from a polled line's copy taken away to reading it again",
           [](C& c, const Cursor& v) { c.poll_loop = v.time(); }),
      P<C>("host_per_packet", "time", "20ns", "the driver's work per packet on a host core, sending and receiving each",
           [](C& c, const Cursor& v) { c.host_per_packet = v.time(); }),
      P<C>("nic_per_packet", "time", "20ns", "the NIC engine's work per packet", [](C& c, const Cursor& v) { c.nic_per_packet = v.time(); }),
  };
  return t;
}

// A NIC on PCIe: the parameter set of one product (the E810's, the
// ConnectX-6's). Its traffic is the nic_loop workload's.
const ParamTable<nic::PcieNicConfig>& pcie_nic_params() {
  using C = nic::PcieNicConfig;
  auto desc_size = [](const Cursor& v) {
    const std::uint64_t b = v.size();
    if (b != 16 && b != 32 && b != 64) v.fail("16B, 32B or 64B");
    return static_cast<std::uint32_t>(b);
  };
  static const ParamTable<C> t = {
      P<C>("tx_desc", "size", "16B", "a TX descriptor (ConnectX: a work queue entry)", [=](C& c, const Cursor& v) { c.tx_desc_B = desc_size(v); }),
      P<C>("rx_desc", "size", "32B", "an RX descriptor", [=](C& c, const Cursor& v) { c.rx_desc_B = desc_size(v); }),
      P<C>("completion", "size", "32B", "an RX completion the NIC writes per packet (E810: the descriptor written back; ConnectX: a CQE)",
           [=](C& c, const Cursor& v) { c.cqe_B = desc_size(v); }),
      P<C>("doorbell", "choice", "uc", "how the driver writes a tail register: uc (an uncached store) or wc (write-combined, then a fence)",
           [](C& c, const Cursor& v) { c.doorbell_wc = v.choice({"uc", "wc"}) == "wc"; }),
      P<C>("push_desc", "bool", "false", "TX descriptors written into the NIC by WC stores with the doorbell, not fetched (ConnectX's BlueFlame)",
           [](C& c, const Cursor& v) { c.push_desc = v.boolean(); }),
      P<C>("desc_fetch", "int", "8", "descriptors one descriptor read fetches at most", [](C& c, const Cursor& v) { c.desc_fetch = static_cast<int>(v.integer(1, 256)); }),
      P<C>("max_reads", "int", "16", "DMA reads in flight at most", [](C& c, const Cursor& v) { c.max_reads = static_cast<int>(v.integer(1, 256)); }),
      P<C>("tx_wb_every", "int", "32", "TX descriptors done per write-back of the count", [](C& c, const Cursor& v) { c.tx_wb_every = static_cast<int>(v.integer(1, 1024)); }),
      P<C>("rx_cache", "int", "64", "RX descriptors the NIC holds fetched at most", [](C& c, const Cursor& v) { c.rx_cache = static_cast<int>(v.integer(1, 4096)); }),
      P<C>("per_packet", "time", "10ns", "a queue's TX or RX engine per packet", [](C& c, const Cursor& v) { c.per_packet = v.time(); }),
      P<C>("tx_pipeline", "time", "250ns", "a packet's last byte read to its first bit on the wire", [](C& c, const Cursor& v) { c.tx_pipeline = v.time(); }),
      P<C>("rx_pipeline", "time", "250ns", "a packet's last bit in to its first write to host memory", [](C& c, const Cursor& v) { c.rx_pipeline = v.time(); }),
      P<C>("line_rate", "bandwidth", "12.5GB/s", "the port's line rate (100 Gb/s: 12.5GB/s)",
           [](C& c, const Cursor& v) {
             c.line_Gbps = v.bandwidth() * 8 / 1e9;
             if (c.line_Gbps < 0.001) v.fail("at least 1 Mb/s");
           }),
      P<C>("loopback", "time", "10ns", "the wire or PHY loopback back to the NIC's receiver", [](C& c, const Cursor& v) { c.loopback = v.time(); }),
      P<C>("irq_interval", "time", "0ns", "interrupt moderation: a queue's MSIs at least this far apart", [](C& c, const Cursor& v) { c.irq_interval = v.time(); }),
      P<C>("driver_per_packet", "time", "40ns", "the driver's work per packet on a host core, sending and receiving each",
           [](C& c, const Cursor& v) { c.driver_per_packet = v.time(); }),
  };
  return t;
}

namespace {
template <class C>
void section(std::ostringstream& os, const char* name, const char* where, const ParamTable<C>& t) {
  os << "\n## " << name << "\n\n" << where << "\n\n| key | type | default | description |\n|---|---|---|---|\n";
  for (const auto& p : t) os << "| `" << p.decl.name << "` | " << p.decl.type << " | `" << p.decl.def << "` | " << p.decl.desc << " |\n";
}
}  // namespace

std::string params_reference() {
  std::ostringstream os;
  os << "# hxsim parameter reference\n\nGenerated by `hxsim params`. Every value with a dimension takes a unit "
        "(`150ns`, `4KiB`, `12.8GB/s`, `250MHz`).\n";
  section(os, "link", "Under `links[i]` and `link_defaults`.", link_params());
  section(os, "port", "Under `port:` of any node: the receive buffers it advertises and its transmitter.", port_params());
  section(os, "switch", "Keys of a `type: switch` node.", switch_params());
  section(os, "rc", "Under `rc:` of a `type: root_complex` node.", rc_params());
  section(os, "memory", "Under `memory:` of a root complex.", memory_params());
  section(os, "iommu", "Under `iommu:` of a root complex.", iommu_params());
  section(os, "cpu", "Under `cpu:` of a root complex.", cpu_params());
  section(os, "endpoint", "Under `endpoint:` of a `type: endpoint` node.", endpoint_params());
  section(os, "rosta", "Under `rosta:` of an endpoint with `device: rosta`.", rosta_params());
  section(os, "calypte", "Under `calypte:` of an endpoint with `device: calypte`.", calypte_params());
  section(os, "bench", "Under `bench:` of an endpoint with `device: bench`.", bench_params());
  section(os, "coyote", "Under `coyote:` of an endpoint with `device: coyote`.", coyote_params());
  section(os, "rtl", "Under `rtl:` of an endpoint with `device: rtl`, beside the design's `sources`, `top`, `parameters`, `include_dirs` and "
          "`verilator_args` (docs/rtl.md).", rtl_params());
  section(os, "nic", "Under `nic:` of an endpoint with `device: nic`: a NIC on PCIe (its rings, doorbells and DMA; its traffic is the "
          "`nic_loop` workload's).", pcie_nic_params());
  section(os, "ccix_ra", "Under `ccix_ra:` of an endpoint with `device: ccix_ra` (a CCIX request agent: system cache and traffic generator, "
          "beside a DMA engine and ATS switch configured by the node's `bench:` section). Its packet format (header, packing, max_packet) "
          "is its link's, both ways.", ccix_ra_params());
  section(os, "ccix", "Under `ccix:` of a `type: root_complex` node: the home agent that owns host memory, for every CCIX request agent below.",
          ccix_home_params());
  section(os, "sockets", "Under `sockets:` of a root complex: the host's sockets as coherent agents (their DRAM takes the "
          "root complex's `memory:` parameters, one controller per socket).", socket_params());
  section(os, "socket_link", "Under `socket_link:` at the top of a topology with a root complex on each of two sockets: the link "
          "their memory traffic and core MMIO cross.", socket_link_params());
  section(os, "coherent_nic", "Under `coherent_nic:` of a root complex with `sockets:`: the costs of a NIC's software on the socket "
          "interconnect (its design options and traffic are the `nic_loop` workload's).", coherent_nic_params());
  return os.str();
}

}  // namespace hx::cfg
