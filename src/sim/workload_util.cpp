#include "src/sim/workload_kinds.h"

#include <algorithm>

#include "src/config/units.h"

namespace hx::sim {

double mib_per_s(std::uint64_t bytes, Tick dur) {
  return dur ? static_cast<double>(bytes) / kMiB / (static_cast<double>(dur) * 1e-12) : 0.0;
}

double mb_per_s(double bytes, Tick dur) { return dur ? bytes / (static_cast<double>(dur) * 1e-12) / 1e6 : 0.0; }

std::vector<std::string> endpoints_with(const topo::Topology& t, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& n : t.nodes) {
    if (n.type != topo::NodeType::Endpoint) continue;
    const topo::DeviceKind* k = n.device == kind ? nullptr : topo::device_kind(n.device);
    if (n.device == kind || (k && std::count(k->uses.begin(), k->uses.end(), kind))) out.push_back(n.name);
  }
  return out;
}

int host_cores(const topo::Topology& t) { return t.nodes[static_cast<std::size_t>(t.root)].cpu.cores; }

std::string need_device(const Cursor& c, const topo::Topology& t, const std::string& kind) {
  const std::string n = c.str();
  const auto names = endpoints_with(t, kind);
  if (std::find(names.begin(), names.end(), n) == names.end()) {
    std::string all;
    for (const auto& x : names) all += (all.empty() ? "" : ", ") + x;
    c.fail("'" + n + "' is not an endpoint with a " + kind + " device" + (all.empty() ? "" : "; candidates: " + all));
  }
  return n;
}

std::string device_or_only(const Cursor& c, const topo::Topology& t, const std::string& kind) {
  if (c.has("device")) return need_device(c.child("device"), t, kind);
  const auto names = endpoints_with(t, kind);
  if (names.size() == 1) return names[0];
  std::string all;
  for (const auto& x : names) all += (all.empty() ? "" : ", ") + x;
  c.fail(names.empty() ? "the topology has no endpoint with a " + kind + " device"
                       : "name the device: the topology has several with a " + kind + " device (" + all + ")");
}

std::uint32_t size32(const Cursor& c, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t v = c.size();
  if (v < lo || v > hi) c.fail(c.scalar() + " is outside " + std::to_string(lo) + "B.." + std::to_string(hi) + "B");
  return static_cast<std::uint32_t>(v);
}

int core_of(const Cursor& c, const topo::Topology& p, const char* key, int def) {
  const int core = c.has(key) ? static_cast<int>(c.child(key).integer(0, 4095)) : def;
  if (core >= host_cores(p)) (c.has(key) ? c.child(key) : c).fail(std::string(key) + " " + std::to_string(core) + ": no such core");
  return core;
}

int host_socket(const Cursor& v, long long k, int sockets) {
  if (k >= sockets)
    v.fail("socket " + std::to_string(k) + " is not one of the host's " + std::to_string(sockets) + " (sockets.count)");
  return static_cast<int>(k);
}

bool far_node(const Cursor& c, const topo::Topology& p, const char* key, bool def) {
  if (!c.has(key)) return def;
  const bool far = c.child(key).choice({"near", "far"}) == "far";
  if (far && p.roots.size() < 2) c.child(key).fail("the far socket needs a root complex on socket 1");
  return far;
}

// `node: near | far | n`: socket 0's memory, socket 1's, or socket n's.
Backing backing_of(const Cursor& c, const topo::Topology& p) {
  Backing b;
  if (c.has("page_size")) b.page_shift = cfg::page_shift(c.child("page_size"));
  if (!c.has("node")) return b;
  const Cursor v = c.child("node");
  const std::string s = v.node.IsScalar() ? v.str() : "";
  if (s == "near" || s == "far") {
    b.node = far_node(c, p, "node", false) ? 1 : 0;
    return b;
  }
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    v.fail("'" + s + "' is not a node: near, far or a socket's number");
  const int sockets = static_cast<int>(p.roots.size());
  b.node = static_cast<int>(v.integer(0, 63));
  if (b.node >= sockets)
    v.fail("socket " + std::to_string(b.node) + ": the host has " + (sockets == 1 ? std::string("one root complex") : std::to_string(sockets) + " sockets with a root complex"));
  return b;
}

}  // namespace hx::sim
