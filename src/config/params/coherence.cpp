// Coherence parameters: CCIX request agents and home, and coherent sockets.
#include "src/config/params/declare.h"

namespace hx::cfg {

const ParamTable<ccix::RequestAgentConfig>& ccix_ra_params() {
  using C = ccix::RequestAgentConfig;
  static const ParamTable<C> t = {
      P<C>("issue_interval", "time", &C::issue_interval, {},
           "the traffic generator's line issue interval (its AXI beat time)",
           [](C& c, const Cursor& v) { c.issue_interval = v.time(); }),
      P<C>("axi_latency", "time", &C::axi_latency, {}, "generator to the system cache, through the AXI bridge",
           [](C& c, const Cursor& v) { c.axi_latency = v.time(); }),
      P<C>("sc_lookup", "time", [](const C& c) { return c.agent.lookup; }, {},
           "system cache look-up, per access and per message received",
           [](C& c, const Cursor& v) { c.agent.lookup = v.time(); }),
      P<C>("trackers", "int", [](const C& c) { return c.agent.mshrs; }, ints(1, 4096),
           "requests the agent has outstanding at once (its MSHRs)",
           [](C& c, const Cursor& v) { c.agent.mshrs = static_cast<int>(v.integer()); }),
      P<C>("sc_size", "size", [](const C& c) { return cache_bytes(c.agent.capacity); }, line_bytes(),
           "the system cache's capacity (0: unlimited); least recently used lines give way, evicted if clean, written "
           "back "
           "over CCIX if dirty",
           [](C& c, const Cursor& v) { c.agent.capacity = cache_lines(v); }),
      P<C>("sc_ways", "int", [](const C& c) { return c.agent.ways; }, ints(1, 64),
           "the system cache's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.agent.ways = static_cast<int>(v.integer()); }),
      P<C>("sc_victims", "int", [](const C& c) { return c.agent.victims; }, ints(0, 4096),
           "the system cache's replacement buffer: victims awaiting the home's acknowledgement (0: unlimited); while "
           "it is "
           "full, a miss into a full set waits",
           [](C& c, const Cursor& v) { c.agent.victims = static_cast<int>(v.integer()); }),
      P<C>("atomics", "choice", [](const C& c) { return c.agent.far_atomics ? "far" : "near"; },
           options({"far", "near"}),
           "where an atomic on a line the SC does not hold runs: far (at the home) or near (the line fetched unique)",
           [](C& c, const Cursor& v) { c.agent.far_atomics = v.scalar() == "far"; }),
      P<C>("ats", "bool", &C::ats, {},
           "requests on virtual addresses, translated by the device's ATS switch (the bench: section's ATC)",
           [](C& c, const Cursor& v) { c.ats = v.boolean(); }),
      P<C>("dma_translates", "bool", &C::dma_translates, {},
           "the device's DMA engine (the bench: section) translates its commands too; false: physical addresses",
           [](C& c, const Cursor& v) { c.dma_translates = v.boolean(); }),
      P<C>("write_fill", "time", [](const C& c) { return c.agent.store_fill; }, {},
           "a write that missed: from its line's arrival (or its MakeUnique's grant) to the write being in the line "
           "(merged through the "
           "system cache's pipeline again)",
           [](C& c, const Cursor& v) { c.agent.store_fill = v.time(); }),
      P<C>("reads", "choice", [](const C& c) { return c.agent.read_clean ? "read_clean" : "read_shared"; },
           options({"read_shared", "read_clean"}),
           "how a read of a line the system cache does not hold asks for it: read_shared (a dirty owner may keep the "
           "line "
           "dirty, where the home keeps dirty lines shared) or read_clean (ReadClean: a dirty owner sends the line "
           "home)",
           [](C& c, const Cursor& v) { c.agent.read_clean = v.scalar() == "read_clean"; }),
      P<C>("full_line_writes", "choice", [](const C& c) { return c.agent.make_unique ? "make_unique" : "read_unique"; },
           options({"read_unique", "make_unique"}),
           "how a write of a whole line the system cache does not hold takes the line: read_unique (its data read "
           "first) or "
           "make_unique (unique without its data, as the write overwrites it)",
           [](C& c, const Cursor& v) { c.agent.make_unique = v.scalar() == "make_unique"; }),
      P<C>("read_return", "time", &C::read_return, {}, "read data from the system cache back to the generator",
           [](C& c, const Cursor& v) { c.read_return = v.time(); }),
      P<C>("write_return", "time", &C::write_return, {}, "write response from the system cache back to the generator",
           [](C& c, const Cursor& v) { c.write_return = v.time(); }),
      P<C>("stream_depth", "int", &C::stream_depth, ints(1, 1024),
           "CCIX packets queued in the PCIe block at once (more wait in the CCIX layer, to be packed)",
           [](C& c, const Cursor& v) { c.stream_depth = static_cast<int>(v.integer()); }),
      P<C>("ccix_latency", "time", [](const C& c) { return c.ccix.latency; }, {},
           "the CCIX transaction and link layers on this side, each way",
           [](C& c, const Cursor& v) { c.ccix.latency = v.time(); }),
      P<C>("header", "choice", [](const C& c) { return c.ccix.format.optimised ? "optimised" : "pcie"; },
           options({"pcie", "optimised"}),
           "CCIX packet header: pcie (PCIe-compatible, 16 B) or optimised (4 B)",
           [](C& c, const Cursor& v) { c.ccix.format.optimised = v.scalar() == "optimised"; }),
      P<C>("packing", "bool", [](const C& c) { return c.ccix.format.packing; }, {},
           "several CCIX messages per packet (NoMessagePack false)",
           [](C& c, const Cursor& v) { c.ccix.format.packing = v.boolean(); }),
      P<C>("max_packet", "size", [](const C& c) { return c.ccix.format.max_packet_B; }, byte_set({128, 256, 512}),
           "CCIX MaxPacketSize: bytes of messages per packet",
           [](C& c, const Cursor& v) { c.ccix.format.max_packet_B = static_cast<int>(v.size()); }),
      P<C>("credit_return_delay", "time", [](const C& c) { return c.ccix.credit_return_delay; }, {},
           "longest a credit return waits for a message to carry it",
           [](C& c, const Cursor& v) { c.ccix.credit_return_delay = v.time(); }),
      P<C>("snp_credits", "int", [](const C& c) { return c.ccix.credits[1]; }, ints(1, 4096),
           "snoops the agent takes at once (credits it grants the home)",
           [](C& c, const Cursor& v) { c.ccix.credits[1] = static_cast<int>(v.integer()); }),
      P<C>("rsp_credits", "int", [](const C& c) { return c.ccix.credits[2]; }, ints(1, 4096),
           "responses the agent takes at once",
           [](C& c, const Cursor& v) { c.ccix.credits[2] = static_cast<int>(v.integer()); }),
      P<C>("dat_credits", "int", [](const C& c) { return c.ccix.credits[3]; }, ints(1, 4096),
           "data messages the agent takes at once",
           [](C& c, const Cursor& v) { c.ccix.credits[3] = static_cast<int>(v.integer()); }),
  };
  return t;
}

const ParamTable<ccix::HomePortConfig>& ccix_home_params() {
  using C = ccix::HomePortConfig;
  static const ParamTable<C> t = {
      P<C>("home_lookup", "time", [](const C& c) { return c.home.lookup; }, {},
           "the home node's latency per message: its pipeline and directory (the CCIX port's is ccix_latency)",
           [](C& c, const Cursor& v) { c.home.lookup = v.time(); }),
      P<C>("home_interval", "time", [](const C& c) { return c.home.lookup_interval; }, {},
           "the home node's pipeline takes a message at most once per interval, at slots of the interval (0: no limit; "
           "home_lookup is then a latency only)",
           [](C& c, const Cursor& v) { c.home.lookup_interval = v.time(); }),
      P<C>("ccix_latency", "time", [](const C& c) { return c.ccix.latency; }, {},
           "the host's CCIX transaction and link layers, each way",
           [](C& c, const Cursor& v) { c.ccix.latency = v.time(); }),
      P<C>("atomic_latency", "time", [](const C& c) { return c.home.atomic_latency; }, {},
           "an atomic's operation at the home, once the line's value is there",
           [](C& c, const Cursor& v) { c.home.atomic_latency = v.time(); }),
      P<C>("migratory", "bool", [](const C& c) { return c.home.policy.migratory; }, {},
           "a read for a shared copy of a line another agent holds unique takes the line unique (the owner "
           "invalidated), "
           "so a read-modify-write needs no upgrade",
           [](C& c, const Cursor& v) { c.home.policy.migratory = v.boolean(); }),
      P<C>("dirty_sharing", "bool", [](const C& c) { return c.home.policy.owned; }, {},
           "a read for a shared copy of a line another agent holds dirty leaves that agent the line's owner, shared "
           "dirty (SD), "
           "and memory stale: no write-back until the owner gives the line up, and the owner answers the reads after "
           "(not with "
           "migratory)",
           [](C& c, const Cursor& v) { c.home.policy.owned = v.boolean(); }),
      P<C>("partial_lines", "bool", [](const C& c) { return c.core.partial; }, {},
           "the home grants a CleanUnique from an agent that holds no copy without data (the line empty, UCE, at "
           "the requester), and the host cores take a line they do not hold so for a store of some of its bytes, "
           "holding only the bytes written (UDP) until a load fetches the rest or the line goes home by "
           "WriteBackPtl, merged into memory's",
           [](C& c, const Cursor& v) { c.home.policy.empty = c.core.partial = v.boolean(); }),
      P<C>("cores", "int", &C::cores, ints(0, 62),
           "host cores as coherent requesters of this home, each a caching agent (private L1/L2) on the mesh",
           [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer()); }),
      P<C>("core_lookup", "time", [](const C& c) { return c.core.lookup; }, {},
           "a host core's private cache: from an access to its miss leaving, and per message it receives",
           [](C& c, const Cursor& v) { c.core.lookup = v.time(); }),
      P<C>("core_mshrs", "int", [](const C& c) { return c.core.mshrs; }, ints(1, 4096),
           "requests a host core has outstanding at once",
           [](C& c, const Cursor& v) { c.core.mshrs = static_cast<int>(v.integer()); }),
      P<C>("core_l2_size", "size", [](const C& c) { return cache_bytes(c.core.capacity); }, line_bytes(),
           "each host core's private cache (0: unlimited); least recently used lines give way, written back if dirty",
           [](C& c, const Cursor& v) { c.core.capacity = cache_lines(v); }),
      P<C>("core_l2_ways", "int", [](const C& c) { return c.core.ways; }, ints(1, 64),
           "that cache's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.core.ways = static_cast<int>(v.integer()); }),
      P<C>("core_l2_victims", "int", [](const C& c) { return c.core.victims; }, ints(0, 4096),
           "that cache's replacement buffer: victims awaiting the home's acknowledgement (0: unlimited); while it is "
           "full, a miss "
           "into a full set waits",
           [](C& c, const Cursor& v) { c.core.victims = static_cast<int>(v.integer()); }),
      P<C>("core_atomics", "choice", [](const C& c) { return c.core.far_atomics ? "far" : "near"; },
           options({"far", "near"}),
           "where a host core's atomic on a line it does not hold runs: far (at the home) or near (the line fetched "
           "unique)",
           [](C& c, const Cursor& v) { c.core.far_atomics = v.scalar() == "far"; }),
      P<C>("mesh_latency", "time", [](const C& c) { return c.core_link.latency; }, {},
           "a host core's path across the mesh to the home node, each way",
           [](C& c, const Cursor& v) { c.core_link.latency = v.time(); }),
      P<C>("mesh_bw", "bandwidth", [](const C& c) { return c.core_link.GBps * 1e9; }, bandwidth_from(1e6, "1MB/s"),
           "that path's bandwidth, each way",
           [](C& c, const Cursor& v) { c.core_link.GBps = v.bandwidth() / 1e9; }),
      P<C>("req_credits", "int", [](const C& c) { return c.ccix.credits[0]; }, ints(1, 4096),
           "requests the home takes at once from each request agent (its trackers)",
           [](C& c, const Cursor& v) { c.ccix.credits[0] = static_cast<int>(v.integer()); }),
      P<C>("rsp_credits", "int", [](const C& c) { return c.ccix.credits[2]; }, ints(1, 4096),
           "responses the home takes at once from each agent",
           [](C& c, const Cursor& v) { c.ccix.credits[2] = static_cast<int>(v.integer()); }),
      P<C>("dat_credits", "int", [](const C& c) { return c.ccix.credits[3]; }, ints(1, 4096),
           "data messages the home takes at once from each agent",
           [](C& c, const Cursor& v) { c.ccix.credits[3] = static_cast<int>(v.integer()); }),
      P<C>("credit_return_delay", "time", [](const C& c) { return c.ccix.credit_return_delay; }, {},
           "longest a credit return waits for a message to carry it",
           [](C& c, const Cursor& v) { c.ccix.credit_return_delay = v.time(); }),
  };
  return t;
}

namespace {
// `graph`: a word, or a list of pairs of socket numbers (checked against
// the socket count once the whole block is read: topology.cpp).
void set_socket_graph(coherence::SocketSystemConfig& c, const Cursor& v) {
  if (!v.node.IsSequence()) {
    const std::string w = v.scalar();
    if (w == "full" || w == "ring") {
      c.graph = w == "full" ? coherence::SocketGraph::Full : coherence::SocketGraph::Ring;
      c.pairs.clear();
      return;
    }
    if (w.empty() || w.front() != '[') v.fail("expected full, ring or a list of pairs of sockets, e.g. [[0, 1], [1, 2]]");
  }
  c.graph = coherence::SocketGraph::Pairs;
  c.pairs.clear();
  for (const Cursor& it : list_items(v, "pairs of sockets", "[[0, 1], [1, 2]]")) {
    const auto two = list_items(it, "two sockets", "[0, 1]");
    if (two.size() != 2) it.fail("a pair of sockets has two numbers, e.g. [0, 1]");
    c.pairs.push_back({static_cast<int>(two[0].integer(0, 7)), static_cast<int>(two[1].integer(0, 7))});
  }
  if (c.pairs.empty()) v.fail("a socket graph of no pairs: give at least one, e.g. [[0, 1]]");
}

// The graph as `graph:` takes it.
std::string socket_graph_text(const coherence::SocketSystemConfig& c) {
  if (c.graph == coherence::SocketGraph::Full) return "full";
  if (c.graph == coherence::SocketGraph::Ring) return "ring";
  return flow_list(c.pairs, [](const std::array<int, 2>& p) { return int_list(p); });
}

const char* silent_word(coherence::SocketSystemConfig::Silent s) {
  using S = coherence::SocketSystemConfig::Silent;
  return s == S::None ? "none" : s == S::Remote ? "remote" : "all";
}
}  // namespace

const ParamTable<coherence::SocketSystemConfig>& socket_params() {
  using C = coherence::SocketSystemConfig;
  static const ParamTable<C> t = {
      P<C>("count", "int", &C::sockets, ints(1, 8),
           "sockets (socket s homes the DRAM addresses [s, s+1) times socket_bytes)",
           [](C& c, const Cursor& v) { c.sockets = static_cast<int>(v.integer()); }),
      P<C>("cores", "int", &C::cores, ints(1, 31), "cores per socket, each with a private L1/L2 (a caching agent)",
           [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer()); }),
      P<C>("slices", "int", &C::slices, ints(1, 31),
           "LLC slices per socket, each the home agent (directory) of the lines interleaved to it",
           [](C& c, const Cursor& v) { c.slices = static_cast<int>(v.integer()); }),
      P<C>("core_lookup", "time", &C::core_lookup, {},
           "a core's private L1/L2: from an access to its miss leaving, and per message it receives",
           [](C& c, const Cursor& v) { c.core_lookup = v.time(); }),
      P<C>("home_lookup", "time", &C::home_lookup, {}, "an LLC slice's look-up and directory, per message",
           [](C& c, const Cursor& v) { c.home_lookup = v.time(); }),
      P<C>("home_interval", "time", &C::home_interval, {},
           "an LLC slice's pipeline takes a message at most once per interval, at slots of the interval (0: no "
           "limit; home_lookup is then a latency only)",
           [](C& c, const Cursor& v) { c.home_interval = v.time(); }),
      P<C>("mesh_hop", "time", &C::mesh_hop, {}, "one trip across a socket's mesh (core, slice, socket-link port)",
           [](C& c, const Cursor& v) { c.mesh_hop = v.time(); }),
      P<C>("mshrs", "int", &C::mshrs, ints(1, 256), "outstanding misses per core",
           [](C& c, const Cursor& v) { c.mshrs = static_cast<int>(v.integer()); }),
      P<C>("store_buffer", "int", &C::store_buffer, ints(0, 1024),
           "each core's store buffer, in stores (x86-TSO): a store completes into it, and it commits its stores to the "
           "core's "
           "cache in order, taking their lines unique ahead of their turn (0: none, a core's stores are done before it "
           "goes on)",
           [](C& c, const Cursor& v) { c.store_buffer = static_cast<int>(v.integer()); }),
      P<C>("rfo_ahead", "int", &C::rfo_ahead, ints(0, 256),
           "with a store buffer: how many stores behind the oldest it asks for the lines of, unique, ahead of their "
           "commit (a core's RFO prefetch), at most the core's MSHRs but one (the default: as many as that); 0: each "
           "store's line is asked for by its commit alone",
           [](C& c, const Cursor& v) { c.rfo_ahead = static_cast<int>(v.integer()); }),
      P<C>("prefetch", "int", &C::prefetch, ints(0, 16),
           "lines after a core's missing load or store that its next-line prefetcher also reads (within the page; 0: "
           "none)",
           [](C& c, const Cursor& v) { c.prefetch = static_cast<int>(v.integer()); }),
      P<C>("forward", "bool", &C::forward, {},
           "a line a core holds unique is sent by that core straight to the core that asks for it (false: through the "
           "home)",
           [](C& c, const Cursor& v) { c.forward = v.boolean(); }),
      P<C>("dirty_sharing", "bool", &C::dirty_sharing, {},
           "with forward: false, a read for a shared copy of a line a core holds dirty leaves that core the line's "
           "owner, shared "
           "dirty (SD), and memory stale: no write-back until the owner gives the line up",
           [](C& c, const Cursor& v) { c.dirty_sharing = v.boolean(); }),
      P<C>("l2_hit", "time", &C::l2_hit, {},
           "an access the core's L2 serves: a load of a line it can read, a store to a line it holds unique (0: "
           "core_lookup)",
           [](C& c, const Cursor& v) { c.l2_hit = v.time(); }),
      P<C>("l1_size", "size", [](const C& c) { return cache_bytes(c.l1_lines); }, line_bytes(),
           "each core's L1 in front of its L2 (0: none): it holds the L2's lines the core used last (inclusive, in "
           "the L2's states), least recently used first out, and loses a line when the L2 does",
           [](C& c, const Cursor& v) { c.l1_lines = cache_lines(v); }),
      P<C>("l1_ways", "int", &C::l1_ways, ints(1, 64), "the L1's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.l1_ways = static_cast<int>(v.integer()); }),
      P<C>("l1_hit", "time", &C::l1_hit, {}, "an access the L1 serves (a load or store as for l2_hit)",
           [](C& c, const Cursor& v) { c.l1_hit = v.time(); }),
      P<C>("l2_size", "size", [](const C& c) { return cache_bytes(c.l2_lines); }, line_bytes(),
           "each core's private cache (0: unlimited); least recently used lines give way, written back if dirty",
           [](C& c, const Cursor& v) { c.l2_lines = cache_lines(v); }),
      P<C>("l2_ways", "int", &C::l2_ways, ints(1, 64),
           "the private cache's ways (its size must be a multiple of ways x 64 B)",
           [](C& c, const Cursor& v) { c.l2_ways = static_cast<int>(v.integer()); }),
      P<C>("l2_victims", "int", &C::l2_victims, ints(0, 4096),
           "the private cache's replacement buffer: victims awaiting their home's acknowledgement (0: unlimited); "
           "while it is full, "
           "a miss into a full set waits",
           [](C& c, const Cursor& v) { c.l2_victims = static_cast<int>(v.integer()); }),
      P<C>("partial_lines", "bool", &C::partial_lines, {},
           "a core's store of some bytes of a line it does not hold takes the line unique without its data "
           "(CleanUnique), and the homes grant it empty (UCE): the core then holds only the bytes it wrote (UDP), "
           "sent home by WriteBackPtl or to a snoop, merged into memory's; a load of the line asks for the rest",
           [](C& c, const Cursor& v) { c.partial_lines = v.boolean(); }),
      P<C>("silent_evictions", "choice", [](const C& c) { return silent_word(c.silent); },
           options({"none", "remote", "all"}),
           "which clean lines a core gives up for room without telling their home (which keeps listing the core, "
           "and snoops it until it answers that it holds nothing): none, remote (those homed on another socket) or all",
           [](C& c, const Cursor& v) {
             const std::string w = v.scalar();
             c.silent = w == "none" ? C::Silent::None : w == "remote" ? C::Silent::Remote : C::Silent::All;
           }),
      P<C>("llc_size", "size", [](const C& c) { return cache_bytes(static_cast<long long>(c.llc_lines)); },
           line_bytes(),
           "each socket's LLC as a cache of data, shared out over its slices (0: none, a read no core answers goes to "
           "DRAM): non-inclusive, it takes every line written home (an L2's write-back, a snoop's dirty data) and "
           "gives its least recently used ones to DRAM; a read that misses it is not filled",
           [](C& c, const Cursor& v) { c.llc_lines = static_cast<std::uint64_t>(cache_lines(v)); }),
      P<C>("llc_ways", "int", &C::llc_ways, ints(1, 64),
           "the LLC's ways (its size must be a multiple of slices x ways x 64 B)",
           [](C& c, const Cursor& v) { c.llc_ways = static_cast<int>(v.integer()); }),
      P<C>("llc_hit", "time", &C::llc_hit, {}, "an LLC hit's data, after the slice's look-up (home_lookup)",
           [](C& c, const Cursor& v) { c.llc_hit = v.time(); }),
      P<C>("socket_bytes", "size", &C::socket_bytes, bytes(4096, 0, 4096),
           "DRAM per socket: socket s homes the addresses [s, s+1) times this",
           [](C& c, const Cursor& v) { c.socket_bytes = v.size(); }),
      P<C>("graph", "choice or list", socket_graph_text,
           described("full (every pair of sockets), ring (each socket and the next, the last and socket 0), or a list of "
                     "pairs of sockets, e.g. [[0, 1], [1, 2]]; the sockets must all be joined"),
           "which pairs of sockets socket links join; a message between sockets no link joins takes the shortest route, "
           "crossing the mesh of each socket it passes",
           [](C& c, const Cursor& v) { set_socket_graph(c, v); }),
      P<C>("links", "int", &C::links, ints(1, 4), "socket links between each pair of sockets the graph joins",
           [](C& c, const Cursor& v) { c.links = static_cast<int>(v.integer()); }),
      P<C>("link_bw", "bandwidth", [](const C& c) { return c.link.GBps * 1e9; }, bandwidth_from(1e6, "1MB/s"),
           "one socket link's data bandwidth, each direction",
           [](C& c, const Cursor& v) { c.link.GBps = v.bandwidth() / 1e9; }),
      P<C>("link_latency", "time", [](const C& c) { return c.link.latency; }, {},
           "one socket link's latency, each direction (PHY, link layer, wire)",
           [](C& c, const Cursor& v) { c.link.latency = v.time(); }),
      P<C>("link_header", "size", [](const C& c) { return c.link.header_B; }, bytes(1, 256),
           "a coherence message's header on a socket link (a data message adds a 64 B line)",
           [](C& c, const Cursor& v) { c.link.header_B = static_cast<int>(v.size()); }),
      P<C>("link_credits", "int", [](const C& c) { return c.link_end.credits[0]; }, ints(1, 4096),
           "messages of each class a socket link's end buffers (the credits its partner gets)",
           [](C& c, const Cursor& v) { c.link_end.credits.fill(static_cast<int>(v.integer())); }),
      P<C>("link_credit_return", "choice", [](const C& c) { return c.link.credits_in_header ? "header" : "packet"; },
           options({"header", "packet"}),
           "how a socket link's receiver returns credits: header (each message's as it is taken, in the reverse "
           "direction's "
           "headers, no wire time: UPI, CHI, CXL.cache) or packet (8 B packets after 4 messages of a class or 200 ns, "
           "as PCIe's "
           "UpdateFC)",
           [](C& c, const Cursor& v) { c.link.credits_in_header = v.scalar() == "header"; }),
  };
  return t;
}

}  // namespace hx::cfg
