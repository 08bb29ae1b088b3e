// PCIe parameters: links, ports, switches and endpoints' hard blocks.
#include <iterator>

#include "models/pcie/protocol.h"
#include "src/config/params/declare.h"

namespace hx::cfg {

namespace {

// A link's `encoding:` word: gen unless one was set.
const char* encoding_word(const pcie::LinkConfig& c) {
  return c.encoding_set ? pcie::encoding_traits(c.encoding).name : "gen";
}

// Per-VC receive buffers as `vc_credits:` takes them: a key for each value given.
std::string vc_credits_text(const pcie::PortConfig& c) {
  return flow_list(c.vc_credits, [](const pcie::PortConfig::VcCredits& vc) {
    const char* names[] = {"p", "np", "cpl"};
    std::string m;
    for (std::size_t cls = 0; cls < static_cast<std::size_t>(pcie::kFcClasses); ++cls) {
      if (vc.hdr[cls] >= 0)
        m += (m.empty() ? "" : ", ") + std::string(names[cls]) + "_hdr: " + std::to_string(vc.hdr[cls]);
      if (vc.data[cls] >= 0)
        m += (m.empty() ? "" : ", ") + std::string(names[cls]) + "_data: " + std::to_string(vc.data[cls]);
    }
    return "{" + m + "}";
  });
}

const char* vc_arbitration_word(pcie::VcArbitration a) {
  return a == pcie::VcArbitration::Strict ? "strict" : a == pcie::VcArbitration::Weighted ? "weighted" : "rr";
}

}  // namespace

const ParamTable<pcie::LinkConfig>& link_params() {
  using C = pcie::LinkConfig;
  static const ParamTable<C> t = {
      P<C>("gen", "int", &C::gen, ints(1, 6), "PCIe generation (rate and encoding from the generation table)",
           [](C& c, const Cursor& v) { c.gen = static_cast<int>(v.integer()); }),
      P<C>("width", "int", &C::width,
           int_set({std::begin(pcie::kLinkWidths), std::end(pcie::kLinkWidths)}, "a PCIe link width"),
           "lanes",
           [](C& c, const Cursor& v) { c.width = static_cast<int>(v.integer()); }),
      P<C>("rate", "rate", &C::rate_gts, {},
           "lane rate if not the generation's (CCIX ESM: 20GT/s or 25GT/s on a gen 4 link); 0 = the generation's",
           [](C& c, const Cursor& v) { c.rate_gts = v.rate_gts(); }),
      P<C>("encoding", "choice", encoding_word,
           options({"gen", "8b10b", "128b130b", "flit"}),
           "line encoding if not the generation's: 8b10b, 128b130b or flit (framing follows it)",
           [](C& c, const Cursor& v) {
             const std::string e = v.scalar();
             c.encoding_set = e != "gen" && pcie::parse_encoding(e, &c.encoding);
           }),
      P<C>("latency", "time", &C::latency, {}, "PHY/SerDes + propagation per direction (first bit out to first bit in)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("skp", "bool", &C::skp, {}, "account SKP ordered sets (4 B every 1538 B, S010)",
           [](C& c, const Cursor& v) { c.skp = v.boolean(); }),
      P<C>("ack_every", "int", &C::ack_every, ints(1, 4096), "receiver sends an ACK DLLP after this many TLPs",
           [](C& c, const Cursor& v) { c.ack_every = static_cast<int>(v.integer()); }),
      P<C>("ack_timeout", "time", &C::ack_timeout, {}, "...or this long after the first un-ACKed TLP",
           [](C& c, const Cursor& v) { c.ack_timeout = v.time(); }),
      P<C>("fc_update_every", "int", &C::fc_update_every, ints(1, 4096),
           "receiver returns credits (UpdateFC DLLP) after this many freed TLPs of a class",
           [](C& c, const Cursor& v) { c.fc_update_every = static_cast<int>(v.integer()); }),
      P<C>("fc_update_timeout", "time", &C::fc_update_timeout, {},
           "...or this long after the first unreported free (sooner if the partner would starve)",
           [](C& c, const Cursor& v) { c.fc_update_timeout = v.time(); }),
      P<C>("l0s_exit", "time", &C::idle_exit, {},
           "ASPM L0s: a TLP that finds its transmitter in L0s waits this long while it leaves it (0: L0s off)",
           [](C& c, const Cursor& v) { c.idle_exit = v.time(); }),
      P<C>("l0s_entry", "time", &C::idle_entry, {},
           "ASPM L0s: a transmitter that has sent no TLP for this long enters L0s (with l0s_exit)",
           [](C& c, const Cursor& v) { c.idle_entry = v.time(); }),
  };
  return t;
}

const ParamTable<pcie::PortConfig>& port_params() {
  using C = pcie::PortConfig;
  static const ParamTable<C> t = {
      P<C>("tx_align", "size", &C::tx_align_B, pow2_bytes(1, 64),
           "transmitter datapath beat: each TLP occupies whole beats on the wire",
           [](C& c, const Cursor& v) { c.tx_align_B = static_cast<int>(v.size()); }),
      P<C>("vcs", "int", &C::vcs, ints(1, pcie::kMaxVcs),
           "virtual channels enabled, VC0 up to VC7 (VC0: PCIe and ATS, VC1: CCIX)",
           [](C& c, const Cursor& v) { c.vcs = static_cast<int>(v.integer()); }),
      P<C>("vc_credits", "list of credit maps", vc_credits_text,
           described("at most 8 maps; header credits 0 to 127, data credits 0 to 2047"),
           "per-VC receive buffers where they differ: item k for VC k, a map of p_hdr, p_data, np_hdr, np_data, "
           "cpl_hdr, "
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
                     vc.hdr[static_cast<std::size_t>(cls)] =
                         static_cast<int>(it.child(std::string(names[cls]) + "_hdr").integer(0, 127));
                   if (it.has(std::string(names[cls]) + "_data"))
                     vc.data[static_cast<std::size_t>(cls)] =
                         static_cast<int>(it.child(std::string(names[cls]) + "_data").integer(0, 2047));
                 }
               }
               c.vc_credits.push_back(vc);
             }
           }),
      P<C>("vc_arbitration", "choice", [](const C& c) { return vc_arbitration_word(c.vc_arb.policy); },
           options({"rr", "strict", "weighted"}),
           "how this port's egress chooses among VCs (switch, root and endpoint ports; an endpoint's completions go "
           "first): rr (round robin), "
           "strict (highest VC first) or weighted (vc_weights TLPs of each VC in turn)",
           [](C& c, const Cursor& v) {
             const std::string a = v.scalar();
             c.vc_arb.policy = a == "strict"     ? pcie::VcArbitration::Strict
                               : a == "weighted" ? pcie::VcArbitration::Weighted
                                                 : pcie::VcArbitration::RoundRobin;
           }),
      P<C>("vc_weights", "list of int", [](const C& c) { return int_list(c.vc_arb.weights); },
           described("1 to 8 weights, each 1 to 255"),
           "weighted VC arbitration: TLPs of VC k per turn",
           [](C& c, const Cursor& v) {
             const auto items = list_items(v, "weights", "[3, 1]");
             if (items.empty() || items.size() > static_cast<std::size_t>(pcie::kMaxVcs))
               v.fail("one weight per VC, 1 to 8 of them");
             c.vc_arb.weights.fill(1);
             for (std::size_t k = 0; k < items.size(); ++k)
               c.vc_arb.weights[k] = static_cast<int>(items[k].integer(1, 255));
           }),
      P<C>("p_hdr", "int", [](const C& c) { return c.credits_hdr[0]; }, ints(0, 127),
           "posted header credits advertised per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_hdr[0] = static_cast<int>(v.integer()); }),
      P<C>("p_data", "int", [](const C& c) { return c.credits_data[0]; }, ints(0, 2047),
           "posted data credits (16 B each) per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_data[0] = static_cast<int>(v.integer()); }),
      P<C>("np_hdr", "int", [](const C& c) { return c.credits_hdr[1]; }, ints(0, 127),
           "non-posted header credits per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_hdr[1] = static_cast<int>(v.integer()); }),
      P<C>("np_data", "int", [](const C& c) { return c.credits_data[1]; }, ints(0, 2047),
           "non-posted data credits per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_data[1] = static_cast<int>(v.integer()); }),
      P<C>("cpl_hdr", "int", [](const C& c) { return c.credits_hdr[2]; }, ints(0, 127),
           "completion header credits per VC (0 = infinite; endpoints and root ports always advertise infinite)",
           [](C& c, const Cursor& v) { c.credits_hdr[2] = static_cast<int>(v.integer()); }),
      P<C>("cpl_data", "int", [](const C& c) { return c.credits_data[2]; }, ints(0, 2047),
           "completion data credits per VC (0 = infinite)",
           [](C& c, const Cursor& v) { c.credits_data[2] = static_cast<int>(v.integer()); }),
  };
  return t;
}

const ParamTable<SwitchParams>& switch_params() {
  using C = SwitchParams;
  static const ParamTable<C> t = {
      P<C>("latency", "time", &C::latency, {}, "ingress-to-egress latency (PLX datasheets: 100-160 ns, S030)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("cut_through", "bool", &C::cut_through, {}, "cut-through forwarding (false: store-and-forward)",
           [](C& c, const Cursor& v) { c.cut_through = v.boolean(); }),
      P<C>("acs_redirect", "bool", &C::acs_redirect, {},
           "ACS P2P Request Redirect: peer requests go up to the root complex",
           [](C& c, const Cursor& v) { c.acs_redirect = v.boolean(); }),
  };
  return t;
}

const ParamTable<EndpointParams>& endpoint_params() {
  using C = EndpointParams;
  static const ParamTable<C> t = {
      P<C>("tx_latency", "time", &C::tx_latency, {}, "hard block TX pipeline: TLP from device logic to the wire",
           [](C& c, const Cursor& v) { c.tx_latency = v.time(); }),
      P<C>("rx_latency", "time", &C::rx_latency, {}, "hard block RX pipeline: last byte in to device logic",
           [](C& c, const Cursor& v) { c.rx_latency = v.time(); }),
      P<C>("reg_read_latency", "time", &C::reg_read_latency, {}, "BAR register read turnaround",
           [](C& c, const Cursor& v) { c.reg_read_latency = v.time(); }),
      P<C>("reg_read_per_dw", "time", &C::reg_read_per_dw, {},
           "each DW of a BAR read beyond the first (a register bus one DW wide)",
           [](C& c, const Cursor& v) { c.reg_read_per_dw = v.time(); }),
      P<C>("mrrs", "size", &C::mrrs, pow2_bytes(128, 4096), "Max_Read_Request_Size",
           [](C& c, const Cursor& v) { c.mrrs = static_cast<int>(v.size()); }),
      P<C>("tags", "int", &C::tags, ints(1, 1024), "outstanding non-posted requests (tags)",
           [](C& c, const Cursor& v) { c.tags = static_cast<int>(v.integer()); }),
      P<C>("bar_size", "size", &C::bar_size, pow2_bytes(4096, 1 << 30), "size of BAR0 (power of two)",
           [](C& c, const Cursor& v) { c.bar_size = v.size(); }),
      P<C>("bar64", "bool", &C::bar64, {},
           "BAR0 is 64-bit prefetchable and placed above 4 GiB, above host DRAM (the 32-bit window holds about 1 GiB "
           "of BARs)",
           [](C& c, const Cursor& v) { c.bar64 = v.boolean(); }),
  };
  return t;
}

}  // namespace hx::cfg
