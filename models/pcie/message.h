// Message TLPs that a component hands to a protocol layer above PCIe
// instead of handling them itself: CCIX messages on VC1 (models/ccix) are
// Vendor_Defined messages that the root complex and an endpoint's device
// pass to their CCIX layer. A handler is registered per message code.
#pragma once
#include <cstdint>

#include "models/core/tick.h"
#include "models/pcie/tlp.h"

namespace hx::pcie {

// Vendor_Defined Type 1 message code (PCIe sec. 2.2.8.6: 0111 1111b). CCIX
// carries its messages in these (CCIX base spec, PCIe-compatible packets).
constexpr std::uint16_t kVendorMsgType1 = 0x7f;

class MessageHandler {
 public:
  virtual ~MessageHandler() = default;
  // Message `t` arrived on `port` (a root port's index; 0 at an endpoint)
  // and is in the component now. The handler takes what it needs: `t`
  // goes back to the pool after the call.
  virtual void on_message(const Tlp& t, int port) = 0;
};

}  // namespace hx::pcie
