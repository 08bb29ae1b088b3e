#include "models/rtl/shim.h"

#include "models/core/error.h"

namespace hx::rtl {

PortRules::PortRules(const std::vector<PortShape>& ports) {
  for (const auto& p : ports) m_by[p.name] = &p;
}

void PortRules::want(const std::string& name, std::initializer_list<int> bits, PortDir dir) {
  const auto it = m_by.find(name);
  if (it == m_by.end()) {
    problem("no port " + name);
    return;
  }
  bool width_ok = false;
  std::string widths;
  for (int b : bits) {
    width_ok = width_ok || it->second->bits == b;
    widths += (widths.empty() ? "" : " or ") + std::to_string(b);
  }
  if (!width_ok) problem(name + " is " + std::to_string(it->second->bits) + " bits wide, not " + widths);
  if (it->second->dir != dir) problem(name + " must be an " + (dir == PortDir::In ? "input" : "output"));
}

Shim::Shim(RtlModel& model, int data_width, std::string device, const std::uint64_t& cycle)
    : m_model(model), m_width(data_width), m_beat_B(static_cast<std::uint32_t>(data_width / 8)), m_beat(m_beat_B),
      m_device(std::move(device)), m_cycle(cycle) {}

void Shim::fail(const char* stream, const std::string& what) const {
  sim_fail("rtl checker " + m_device + "." + stream, "cycle " + std::to_string(m_cycle) + ": " + what);
}

std::uint64_t Shim::digest(std::uint64_t h, const std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace hx::rtl
