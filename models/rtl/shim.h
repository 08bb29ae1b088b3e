// What an interface shim does for the generic RTL endpoint (rtl_device.h):
// it turns TLPs into the beats of one hard-block interface and the beats a
// design drives back into TLPs, checking the interface's framing rules as
// it goes. The endpoint keeps everything the interfaces share: the clock,
// reset, the bookkeeping of reads in flight, the request rules of PCIe
// (types, byte enables, MPS, MRRS, 4 KiB) and the TLPs themselves.
//
// Each interface has four ways, named as the generic TLP stream names them
// (the UltraScale+ interface calls them CQ, RC, RQ and CC):
//   RxReq  fabric -> design  requests to the design's BARs
//   RxCpl  fabric -> design  completions of the design's reads
//   TxReq  design -> fabric  the design's requests
//   TxCpl  design -> fabric  completions of the host's reads of its BARs
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "models/rtl/rtl_model.h"
#include "models/rtl/tlp_header.h"

namespace hx::rtl {

enum class Way : int { RxReq, RxCpl, TxReq, TxCpl };

// A TLP as the shims carry it: its header fields and its payload, DW-aligned
// (byte 0 is the first byte of the DW that holds the first byte addressed).
struct Packet {
  TlpHeader h;
  std::vector<std::uint8_t> data;
};

// What the endpoint presents to the design once enumerated.
struct LinkSettings {
  std::uint16_t rid = 0;
  int mps = 128, mrrs = 512, rcb = 64;
  std::uint64_t bar_size = 0;
};

// Checks a design's ports against an interface's rules, collecting every
// problem as one line of the error.
class PortRules {
 public:
  explicit PortRules(const std::vector<PortShape>& ports);
  bool has(const std::string& name) const { return m_by.count(name) != 0; }
  // The port must exist with one of these widths and this direction.
  void want(const std::string& name, std::initializer_list<int> bits, PortDir dir);
  void want(const std::string& name, int bits, PortDir dir) { want(name, {bits}, dir); }
  void problem(const std::string& what) { m_err += "\n  " + what; }
  const std::string& error() const { return m_err; }

 private:
  std::map<std::string, const PortShape*> m_by;
  std::string m_err;
};

class Shim {
 public:
  // `cycle` is the endpoint's cycle counter, for the checkers' messages.
  Shim(RtlModel& model, int data_width, std::string device, const std::uint64_t& cycle);
  virtual ~Shim() = default;
  Shim(const Shim&) = delete;
  Shim& operator=(const Shim&) = delete;

  virtual const char* stream(Way w) const = 0;  // the way's name, as the design's ports say it
  virtual bool has(Way w) const = 0;
  // Presents the link settings to the design's configuration inputs.
  virtual void configure(const LinkSettings& s) = 0;

  // Receive ways. A TLP takes beats(w, p) beats; drive() puts beat `beat` of
  // it on the way's ports (p null: nothing offered); taken() says, after
  // evaluation before the edge, whether the design takes the beat.
  virtual std::uint32_t beats(Way w, const Packet& p) const = 0;
  virtual void drive(Way w, const Packet* p, std::uint32_t beat) = 0;
  virtual bool taken(Way w) const = 0;

  // Transmit ways. set_ready() before evaluation, when ready changes;
  // sample() after it, before the edge: it checks the cycle and returns
  // whether a beat moved; when that beat ends a TLP, `done` is set and the
  // TLP is in `out`. offered(): whether the last sample() saw a beat offered.
  // Most cycles offer nothing: that is seen here, from the way's valid
  // port, and only an offered beat goes on to the interface's own checks.
  virtual void set_ready(Way w, bool ready) = 0;
  bool offered(Way w) const { return m_offered[tx(w)]; }
  bool sample(Way w, Packet& out, bool& done) {
    done = false;
    const std::size_t k = tx(w);
    if (!m_tx_valid[k]) return false;
    m_offered[k] = m_tx_valid[k]->get() != 0;
    if (!m_offered[k]) {
      hold(w, false, false, [] { return std::uint64_t{0}; });  // a held beat must not vanish
      return false;
    }
    return sample_offered(w, out, done);
  }
  // A TLP the design has begun to send and not finished.
  virtual bool assembling() const = 0;

  // MSI. msi_drive() before evaluation (`space`: the endpoint can send one
  // now); msi_sample() after it: whether an MSI leaves at this edge, and its
  // vector; msi_busy(): an MSI asked for and not yet sent, or offered.
  virtual void msi_drive(bool space) = 0;
  virtual bool msi_sample(bool space, std::uint32_t& vector) = 0;
  virtual bool msi_busy() const = 0;

  // A checker's violation: a simulation error naming the device, the
  // stream and the cycle (the endpoint's request rules report through it too).
  [[noreturn]] void fail(Way w, const std::string& what) const { fail(stream(w), what); }

 protected:
  [[noreturn]] void fail(const char* stream, const std::string& what) const;
  // A beat offered and not taken stays offered and unchanged: `sum()` is a
  // digest of everything the beat carries, asked for only when a beat is
  // held or was held the cycle before.
  template <class Sum>
  void hold(Way w, bool valid, bool ready, Sum sum) {
    Held& held = m_held[static_cast<std::size_t>(w)];
    if (!held.stalled && !(valid && !ready)) return;
    if (held.stalled && !valid) fail(w, "valid dropped before the beat was taken");
    const std::uint64_t now = sum();
    if (held.stalled && now != held.sum) fail(w, "beat changed while waiting for ready");
    held.stalled = !ready;
    held.sum = now;
  }
  static std::uint64_t digest(std::uint64_t h, const std::uint8_t* p, std::size_t n);
  // The valid port of transmit way w (TxReq or TxCpl; null: the design has
  // no such way), set by the interface's constructor.
  void tx_valid(Way w, const RtlPort* p) { m_tx_valid[tx(w)] = p; }
  // sample() of a cycle whose valid is high.
  virtual bool sample_offered(Way w, Packet& out, bool& done) = 0;

  RtlModel& m_model;
  int m_width;
  std::uint32_t m_beat_B;
  std::vector<std::uint8_t> m_beat;  // scratch: one data beat

 private:
  struct Held {
    bool stalled = false;
    std::uint64_t sum = 0;
  };
  static std::size_t tx(Way w) { return w == Way::TxCpl ? 1 : 0; }
  std::string m_device;
  const std::uint64_t& m_cycle;
  std::array<Held, 4> m_held{};
  std::array<const RtlPort*, 2> m_tx_valid{};  // TxReq, TxCpl
  std::array<bool, 2> m_offered{};             // what sample() saw: a beat offered
};

}  // namespace hx::rtl
