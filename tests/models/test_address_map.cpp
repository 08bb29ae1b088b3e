// The host address map alone (models/core/address_map): lookups at range
// edges, refusal of overlaps with both ranges named, targets of every kind.
#include <gtest/gtest.h>

#include "models/core/address_map.h"

namespace hx {
namespace {

using K = AddressTarget::Kind;

AddressMap host() {
  AddressMap m;
  EXPECT_EQ(m.add(4ull << 30, 4ull << 30, {K::Dram, 0}, "DRAM of socket 0"), "");
  EXPECT_EQ(m.add(8ull << 30, 4ull << 30, {K::Dram, 1}, "DRAM of socket 1"), "");
  EXPECT_EQ(m.add(0xfee00000, 4096, {K::Msi, 0}, "MSI"), "");
  EXPECT_EQ(m.add(0xc0000000, 1 << 20, {K::Mmio, 0}, "root port 0"), "");
  EXPECT_EQ(m.add(0xc0100000, 1 << 20, {K::Mmio, 1}, "root port 1"), "");
  EXPECT_EQ(m.add(1ull << 40, 1ull << 30, {K::Home, 3}, "home 3"), "");
  return m;
}

TEST(AddressMap, FindsTheTargetOfEveryAddressUpToTheEdges) {
  const AddressMap m = host();
  EXPECT_EQ(m.lookup((4ull << 30) - 1).kind, K::None);
  EXPECT_EQ(m.lookup(4ull << 30), (AddressTarget{K::Dram, 0}));
  EXPECT_EQ(m.lookup((8ull << 30) - 1), (AddressTarget{K::Dram, 0}));
  EXPECT_EQ(m.lookup(8ull << 30), (AddressTarget{K::Dram, 1}));
  EXPECT_EQ(m.lookup((12ull << 30) - 1), (AddressTarget{K::Dram, 1}));
  EXPECT_EQ(m.lookup(12ull << 30).kind, K::None);
  EXPECT_EQ(m.lookup(0xfee00ffc), (AddressTarget{K::Msi, 0}));
  EXPECT_EQ(m.lookup(0xfee01000).kind, K::None);
  EXPECT_EQ(m.lookup(0xc00fffff), (AddressTarget{K::Mmio, 0}));
  EXPECT_EQ(m.lookup(0xc0100000), (AddressTarget{K::Mmio, 1}));
  EXPECT_EQ(m.lookup((1ull << 40) + 64), (AddressTarget{K::Home, 3}));
  EXPECT_EQ(m.lookup(0).kind, K::None);
  ASSERT_EQ(m.ranges().size(), 6u);
  for (std::size_t i = 1; i < m.ranges().size(); ++i) EXPECT_LT(m.ranges()[i - 1].base, m.ranges()[i].base);
}

TEST(AddressMap, RefusesOverlapsAndNamesBothRanges) {
  AddressMap m = host();
  const std::string e = m.add((8ull << 30) - 64, 128, {K::Home, 0}, "home 0");
  EXPECT_NE(e.find("home 0"), std::string::npos) << e;
  EXPECT_NE(e.find("overlaps"), std::string::npos) << e;
  EXPECT_NE(e.find("DRAM of socket"), std::string::npos) << e;
  EXPECT_NE(m.add(0xfedff000, 8192, {K::Mmio, 2}, "x"), "");  // into the MSI page from below
  EXPECT_NE(m.add(0, 0, {K::Mmio, 2}, "empty"), "");
  EXPECT_NE(m.add(~0ull - 10, 100, {K::Mmio, 2}, "wrapping"), "");
  EXPECT_EQ(m.add(~0ull - 4095, 4096, {K::Mmio, 2}, "top page"), "");  // ends exactly at 2^64
  EXPECT_EQ(m.lookup(~0ull), (AddressTarget{K::Mmio, 2}));
  EXPECT_EQ(m.ranges().size(), 7u);  // nothing refused was added
}

}  // namespace
}  // namespace hx
