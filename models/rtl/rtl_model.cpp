#include "models/rtl/rtl_model.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

#include "models/core/error.h"

namespace hx::rtl {

namespace {
std::uint64_t width_mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

template <class F>
void bind(void* h, const char* name, F& f, const std::string& path) {
  void* p = dlsym(h, name);
  if (!p) throw SimError("RTL library " + path + " lacks " + name + ": rebuild it (remove it from the cache)");
  f = reinterpret_cast<F>(p);
}
}  // namespace

void RtlPort::set_wide(std::uint64_t v) const {
  v &= width_mask(bits);
  switch (storage_bytes()) {
    case 1: *static_cast<std::uint8_t*>(ptr) = static_cast<std::uint8_t>(v); break;
    case 2: *static_cast<std::uint16_t*>(ptr) = static_cast<std::uint16_t>(v); break;
    case 4: *static_cast<std::uint32_t*>(ptr) = static_cast<std::uint32_t>(v); break;
    case 8: *static_cast<std::uint64_t*>(ptr) = v; break;
    default: {
      std::uint8_t b[8];
      for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
      set_bytes(b, 8);
    }
  }
}

std::uint64_t RtlPort::get_wide() const {
  switch (storage_bytes()) {
    case 1: return *static_cast<const std::uint8_t*>(ptr);
    case 2: return *static_cast<const std::uint16_t*>(ptr);
    case 4: return *static_cast<const std::uint32_t*>(ptr);
    case 8: return *static_cast<const std::uint64_t*>(ptr);
    default: {
      std::uint8_t b[8];
      get_bytes(b, 8);
      std::uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
      return v;
    }
  }
}

void RtlPort::set_bytes(const std::uint8_t* p, std::size_t n) const {
  // Verilator's storage is little-endian words (this build's hosts are
  // little-endian): the bytes go in order; bits above the width stay 0.
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "RTL port access assumes a little-endian host");
  const std::size_t size = static_cast<std::size_t>(storage_bytes());
  auto* out = static_cast<std::uint8_t*>(ptr);
  const std::size_t k = std::min(n, size);
  if (k) std::memcpy(out, p, k);
  if (k < size) std::memset(out + k, 0, size - k);
  if (bits % 8) {
    const std::size_t top = static_cast<std::size_t>(bits / 8);
    out[top] &= static_cast<std::uint8_t>((1u << (bits % 8)) - 1);
    for (std::size_t i = top + 1; i < size; ++i) out[i] = 0;
  } else {
    for (std::size_t i = static_cast<std::size_t>(bits / 8); i < size; ++i) out[i] = 0;
  }
}

void RtlPort::get_bytes(std::uint8_t* out, std::size_t n) const {
  const std::size_t size = static_cast<std::size_t>(storage_bytes());
  const std::size_t k = std::min(n, size);
  if (k) std::memcpy(out, ptr, k);
  if (k < n) std::memset(out + k, 0, n - k);
}

std::shared_ptr<RtlLibrary> RtlLibrary::open(const std::string& path) {
  std::shared_ptr<RtlLibrary> lib(new RtlLibrary);
  // RTLD_LOCAL: the design's Verilator runtime stays its own (the library
  // is linked with its runtime inside and exports only the glue).
  lib->m_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->m_handle) {
    const char* e = dlerror();
    throw SimError("cannot load the RTL library " + path + ": " + (e ? e : "?"));
  }
  int (*abi)() = nullptr;
  bind(lib->m_handle, "hx_rtl_abi", abi, path);
  if (abi() != kRtlAbi)
    throw SimError("RTL library " + path + " has interface version " + std::to_string(abi()) + ", not " + std::to_string(kRtlAbi));
  bind(lib->m_handle, "hx_rtl_new", lib->m_new, path);
  bind(lib->m_handle, "hx_rtl_delete", lib->m_delete, path);
  bind(lib->m_handle, "hx_rtl_eval", lib->m_eval, path);
  bind(lib->m_handle, "hx_rtl_port_count", lib->m_port_count, path);
  bind(lib->m_handle, "hx_rtl_port", lib->m_port, path);
  bind(lib->m_handle, "hx_rtl_trace_open", lib->m_trace_open, path);
  bind(lib->m_handle, "hx_rtl_trace_dump", lib->m_trace_dump, path);
  bind(lib->m_handle, "hx_rtl_final", lib->m_final, path);
  return lib;
}

RtlLibrary::~RtlLibrary() {
  if (m_handle) dlclose(m_handle);
}

RtlModel::RtlModel(std::shared_ptr<RtlLibrary> lib, const std::string& wave) : m_lib(std::move(lib)) {
  m_model = m_lib->m_new(wave.empty() ? 0 : 1);
  if (!m_model) throw SimError("the RTL library could not make its model");
  const int n = m_lib->m_port_count(m_model);
  for (int i = 0; i < n; ++i) {
    const char* name = nullptr;
    RtlPort p;
    int dir = 0;
    if (!m_lib->m_port(m_model, i, &name, &p.ptr, &p.bits, &dir)) continue;
    p.name = name;
    p.dir = dir == 0 ? PortDir::In : dir == 1 ? PortDir::Out : PortDir::InOut;
    m_ports.push_back(std::move(p));
  }
  if (!wave.empty()) {
    m_lib->m_trace_open(m_model, wave.c_str());
    m_tracing = true;
  }
}

RtlModel::~RtlModel() {
  if (m_model) {
    m_lib->m_final(m_model);
    m_lib->m_delete(m_model);
  }
}

const RtlPort* RtlModel::find(const std::string& name) const {
  for (const auto& p : m_ports)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace hx::rtl
