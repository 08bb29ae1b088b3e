// A user's design, Verilated and built as a shared library at run time
// (src/rtl/build.h), loaded here. The library exports a small C interface
// (its glue is generated with the design, so hxsim itself never includes a
// design's headers): make a model, evaluate it, list its top-level ports
// with their widths and directions, trace to a VCD file. Ports are reached
// by name through the list, as raw Verilator storage: 1-8 bits in a byte,
// up to 16 in two, 32 in four, 64 in eight, wider ones in 32-bit words,
// least significant first.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hx::rtl {

// The C interface's version: a library built for another one is rebuilt.
constexpr int kRtlAbi = 1;

enum class PortDir : std::uint8_t { In, Out, InOut };

// A port as the build saw it (before a model exists).
struct PortShape {
  std::string name;
  int bits = 0;
  PortDir dir = PortDir::In;
};

struct RtlPort {
  std::string name;
  void* ptr = nullptr;
  int bits = 0;           // width
  PortDir dir = PortDir::In;
  int storage_bytes() const { return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : bits <= 64 ? 8 : (bits + 31) / 32 * 4; }
  // Scalar access (bits <= 64): the value is masked to the width.
  void set(std::uint64_t v) const {
    if (bits <= 8) {  // the common case, a flag or a small field, inline
      *static_cast<std::uint8_t*>(ptr) = static_cast<std::uint8_t>(v & ((1u << bits) - 1));
      return;
    }
    set_wide(v);
  }
  std::uint64_t get() const { return bits <= 8 ? *static_cast<const std::uint8_t*>(ptr) : get_wide(); }
  // Byte access, little-endian, for any width: n bytes, the rest zero.
  void set_bytes(const std::uint8_t* p, std::size_t n) const;
  void get_bytes(std::uint8_t* out, std::size_t n) const;

 private:
  void set_wide(std::uint64_t v) const;
  std::uint64_t get_wide() const;
};

// The loaded library (one per design build; shared by its instances).
class RtlLibrary {
 public:
  // Loads `path`; throws SimError naming the file when it cannot.
  static std::shared_ptr<RtlLibrary> open(const std::string& path);
  ~RtlLibrary();
  RtlLibrary(const RtlLibrary&) = delete;
  RtlLibrary& operator=(const RtlLibrary&) = delete;

 private:
  friend class RtlModel;
  RtlLibrary() = default;
  void* m_handle = nullptr;
  void* (*m_new)(int trace) = nullptr;
  void (*m_delete)(void*) = nullptr;
  void (*m_eval)(void*) = nullptr;
  int (*m_port_count)(void*) = nullptr;
  int (*m_port)(void*, int, const char**, void**, int*, int*) = nullptr;
  void (*m_trace_open)(void*, const char*) = nullptr;
  void (*m_trace_dump)(void*, std::uint64_t) = nullptr;
  void (*m_final)(void*) = nullptr;
};

// One instance of the design.
class RtlModel {
 public:
  // `wave`: a VCD file to trace into ("" = none).
  RtlModel(std::shared_ptr<RtlLibrary> lib, const std::string& wave);
  ~RtlModel();
  RtlModel(const RtlModel&) = delete;
  RtlModel& operator=(const RtlModel&) = delete;
  void eval() { m_lib->m_eval(m_model); }
  // Dumps the traced signals at time `ps` (no-op without a wave).
  void dump(std::uint64_t ps) {
    if (m_tracing) m_lib->m_trace_dump(m_model, ps);
  }
  const std::vector<RtlPort>& ports() const { return m_ports; }
  // The port called `name`, or nullptr.
  const RtlPort* find(const std::string& name) const;

 private:
  std::shared_ptr<RtlLibrary> m_lib;
  void* m_model = nullptr;
  bool m_tracing = false;
  std::vector<RtlPort> m_ports;
};

}  // namespace hx::rtl
