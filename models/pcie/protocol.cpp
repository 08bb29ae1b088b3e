#include "models/pcie/protocol.h"

#include <stdexcept>

namespace hx::pcie {

namespace {
const Generation kGenerations[] = {
    {1, 2.5, Encoding::k8b10b, "gen1"},
    {2, 5.0, Encoding::k8b10b, "gen2"},
    {3, 8.0, Encoding::k128b130b, "gen3"},
    {4, 16.0, Encoding::k128b130b, "gen4"},
    {5, 32.0, Encoding::k128b130b, "gen5"},
    {6, 64.0, Encoding::kFlit, "gen6"},
};
}  // namespace

const EncodingTraits& encoding_traits(Encoding e) {
  static const EncodingTraits k8b10b{8.0 / 10.0, 8, 8, "8b10b"}, k128b130b{128.0 / 130.0, 8, 8, "128b130b"},
      kFlit{242.0 / 256.0, 0, 0, "flit"};
  switch (e) {
    case Encoding::k8b10b: return k8b10b;
    case Encoding::k128b130b: return k128b130b;
    case Encoding::kFlit: break;
  }
  return kFlit;
}

bool parse_encoding(const std::string& s, Encoding* out) {
  for (Encoding e : {Encoding::k8b10b, Encoding::k128b130b, Encoding::kFlit})
    if (s == encoding_traits(e).name) {
      *out = e;
      return true;
    }
  return false;
}

bool valid_generation(int gen) { return gen >= 1 && gen <= 6; }

const Generation& generation(int gen) {
  if (!valid_generation(gen)) throw std::out_of_range("PCIe generation " + std::to_string(gen));
  return kGenerations[gen - 1];
}

const char* kind_name(TlpKind k) {
  switch (k) {
    case TlpKind::MemWr: return "MWr";
    case TlpKind::MemRd: return "MRd";
    case TlpKind::Cpl: return "Cpl";
    case TlpKind::CplD: return "CplD";
    case TlpKind::Msg: return "Msg";
    case TlpKind::MsgD: return "MsgD";
    case TlpKind::AtsReq: return "AtsReq";
    case TlpKind::FetchAdd: return "FetchAdd";
    case TlpKind::Swap: return "Swap";
    case TlpKind::Cas: return "CAS";
  }
  return "?";
}

}  // namespace hx::pcie
