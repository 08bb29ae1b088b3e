// Address translation: the TLB, the I/O page tables and the IOMMU's timing,
// checked against closed forms. The IOMMU is driven directly with a memory
// that answers every line read after a fixed latency, so each expectation
// follows from the mechanism by hand.
#include <gtest/gtest.h>

#include <vector>

#include "models/ats/ats_protocol.h"
#include "models/ats/iommu.h"
#include "models/ats/page_table.h"
#include "models/ats/tlb.h"
#include "models/core/error.h"

namespace hx::ats {
namespace {

constexpr std::uint64_t kBase = 1ull << 32;
constexpr std::uint64_t kTables = 3ull << 32;

TEST(Tlb, LruEvictsTheLeastRecentlyUsedWayOfASet) {
  Tlb t("tlb", TlbConfig{4, 2, 0});  // 2 sets x 2 ways
  // Pages 0, 2, 4 map to set 0.
  t.insert(0 << 12, 12, 0x1000'0000, 0);
  t.insert(2ull << 12, 12, 0x2000'0000, 0);
  ASSERT_NE(t.lookup(0), nullptr);           // page 0 now most recent
  t.insert(4ull << 12, 12, 0x3000'0000, 0);  // evicts page 2
  EXPECT_NE(t.lookup(0), nullptr);
  EXPECT_EQ(t.lookup(2ull << 12), nullptr);
  EXPECT_NE(t.lookup(4ull << 12), nullptr);
  EXPECT_EQ(t.occupancy(), 2u);
  EXPECT_EQ(t.hits(), 3u);
  EXPECT_EQ(t.misses(), 1u);
}

TEST(Tlb, HoldsSeveralPageSizesAndInvalidatesByRange) {
  Tlb t("tlb", TlbConfig{8, 0, 0});
  t.insert(kBase, 21, kBase, 0);               // a 2 MiB page
  t.insert(kBase + (4ull << 20), 12, 0x5000, 0);  // a 4 KiB page
  const auto* e = t.lookup(kBase + 0x1234);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->shift, 21);
  ASSERT_NE(t.lookup(kBase + (4ull << 20) + 8), nullptr);
  EXPECT_EQ(t.invalidate(kBase + 4096, 1), 1u);  // hits only the 2 MiB page
  EXPECT_EQ(t.lookup(kBase), nullptr);
  EXPECT_NE(t.lookup(kBase + (4ull << 20)), nullptr);
}

TEST(Tlb, RejectsEntriesThatDoNotDivideIntoWays) { EXPECT_THROW(Tlb("tlb", TlbConfig{6, 4, 0}), InputError); }

TEST(PageTable, WalksTheBytesItWrote) {
  mem::SparseMemory m;
  PageTable pt(m, kTables, 1 << 20);
  pt.map(kBase, kBase + (1ull << 30), 8192, 12);
  pt.map(kBase + (2ull << 20), kBase + (2ull << 20), 2ull << 20, 21);
  pt.map(kBase + (64ull << 20), kBase + (64ull << 20), 128ull << 10, 16);  // two 64 KiB runs
  auto w = pt.walk(kBase + 4096 + 12);
  ASSERT_TRUE(w.present);
  EXPECT_EQ(w.shift, 12u);
  EXPECT_EQ(w.leaf_level, 1);
  EXPECT_EQ(w.pa_base, kBase + (1ull << 30) + 4096);
  w = pt.walk(kBase + (3ull << 20));
  ASSERT_TRUE(w.present);
  EXPECT_EQ(w.shift, 21u);
  EXPECT_EQ(w.leaf_level, 2);
  EXPECT_EQ(w.pa_base, kBase + (2ull << 20));
  w = pt.walk(kBase + (64ull << 20) + (64ull << 10) + 5 * 4096);
  ASSERT_TRUE(w.present);
  EXPECT_EQ(w.shift, 16u);
  EXPECT_EQ(w.pa_base, kBase + (64ull << 20) + (64ull << 10));
  EXPECT_FALSE(pt.walk(kBase + 8192).present);
  // Entries really are in memory: clearing one table entry unmaps the page.
  const std::uint64_t leaf = pt.walk(kBase).entry_addr[1];
  const std::uint8_t zero[8] = {};
  m.write(leaf, zero, 8);
  EXPECT_FALSE(pt.walk(kBase).present);
  EXPECT_TRUE(pt.walk(kBase + 4096).present);
  pt.unmap(kBase + 4096, 4096);
  EXPECT_FALSE(pt.walk(kBase + 4096).present);
}

TEST(PageTable, RejectsMisalignedMappings) {
  mem::SparseMemory m;
  PageTable pt(m, kTables, 1 << 20);
  EXPECT_THROW(pt.map(kBase + 4096, kBase + 4096, 2ull << 20, 21), InputError);
  EXPECT_THROW(pt.map(kBase, kBase, 4096, 13), InputError);
}

TEST(AtsProtocol, TranslationEntryEncodesThePageSize) {
  // S=1 with bits 12..shift-2 set and bit shift-1 clear (PCIe sec. 10.2.3.2).
  const std::uint64_t e = translation_entry(kBase, 21);
  EXPECT_TRUE(e >> 11 & 1);
  EXPECT_EQ((e >> 12) & 0x1ff, 0xffu);  // bits 12..19 set, bit 20 clear
  EXPECT_NE(translation_checksum(kBase, 21), translation_checksum(kBase, 12));
}

// An IOMMU over memory that returns every line `mem_ns` after it is asked.
struct Rig {
  static constexpr Tick kMem = 100 * kNs;
  mem::SparseMemory m;
  std::vector<std::uint64_t> lines;
  IommuConfig cfg;
  std::unique_ptr<Iommu> mmu;
  explicit Rig(IommuConfig c) : cfg(c) {
    cfg.enabled = true;
    mmu = std::make_unique<Iommu>("iommu", cfg, m, kTables, [this](std::uint64_t line, Tick t, bool) {
      lines.push_back(line);
      return t + kMem;
    });
  }
};

IommuConfig base_cfg() {
  IommuConfig c;
  c.iotlb = TlbConfig{64, 0, 5 * kNs};
  c.walk_overhead = 30 * kNs;
  c.miss_latency = 7 * kNs;
  c.walkers = 1;
  return c;
}

TEST(Iommu, OneMissCostsExactlyItsWalksMemoryReads) {
  Rig r(base_cfg());
  r.mmu->map_buffer(kBase, 1 << 20, 12);
  // Cold walk caches: four levels read, one after the other.
  const auto a = r.mmu->translate(kBase + 0x10, 0);
  // The walk ends the miss here; a read's replay (miss_latency) is the root
  // complex's to add.
  EXPECT_EQ(a.ready, 5 * kNs + 4 * Rig::kMem + 30 * kNs);
  EXPECT_TRUE(a.missed);
  EXPECT_EQ(a.pa, kBase + 0x10);
  EXPECT_EQ(r.lines.size(), 4u);
  // The next page: the level-2 walk cache names its leaf table: one read.
  const Tick t1 = 10'000 * kNs;
  const auto b = r.mmu->translate(kBase + 4096, t1);
  EXPECT_EQ(b.ready, t1 + 5 * kNs + Rig::kMem + 30 * kNs);
  EXPECT_EQ(r.lines.size(), 5u);
  EXPECT_EQ(r.lines.back(), r.mmu->tables().walk(kBase + 4096).entry_addr[1] / 64 * 64);
  // A hit costs the lookup alone.
  const auto c = r.mmu->translate(kBase + 4096 + 64, t1 + 1000 * kNs);
  EXPECT_EQ(c.ready, t1 + 1000 * kNs + 5 * kNs);
  EXPECT_FALSE(c.missed);
  EXPECT_EQ(r.mmu->walks.value, 2u);
}

TEST(Iommu, AWindowWithinReachNeverMissesAfterWarmUp) {
  Rig r(base_cfg());
  r.mmu->map_buffer(kBase, 1 << 20, 12);
  const int pages = 64;  // exactly the IOTLB's reach
  Tick t = 0;
  for (int round = 0; round < 10; ++round)
    for (int p = 0; p < pages; ++p) {
      t += 1000 * kNs;
      r.mmu->translate(kBase + static_cast<std::uint64_t>((p * 37) % pages) * 4096, t);
    }
  EXPECT_EQ(r.mmu->iotlb().misses(), static_cast<std::uint64_t>(pages));
  EXPECT_EQ(r.mmu->walks.value, static_cast<std::uint64_t>(pages));
  // One page more than the reach, visited cyclically, misses every time under LRU.
  Rig q(base_cfg());
  q.mmu->map_buffer(kBase, 1 << 20, 12);
  for (int round = 0; round < 3; ++round)
    for (int p = 0; p <= pages; ++p) q.mmu->translate(kBase + static_cast<std::uint64_t>(p) * 4096, (t += 1000 * kNs));
  EXPECT_EQ(q.mmu->iotlb().misses(), static_cast<std::uint64_t>(3 * (pages + 1)));
}

TEST(Iommu, SuperpagesCoverTheBufferWithFewEntries) {
  IommuConfig c = base_cfg();
  Rig sp(c);
  sp.mmu->map_buffer(kBase, 64ull << 20, 21);
  c.superpages = false;
  Rig small(c);
  small.mmu->map_buffer(kBase, 64ull << 20, 21);
  EXPECT_EQ(sp.mmu->mapping_shift(kBase, 64ull << 20, 21), 21u);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t a = kBase + (static_cast<std::uint64_t>(i) * 2654435761u) % (64ull << 20);
    sp.mmu->translate(a, i * 1000 * kNs);
    small.mmu->translate(a, i * 1000 * kNs);
  }
  EXPECT_EQ(sp.mmu->walks.value, 32u);  // at most one walk per 2 MiB page: 32 of them
  EXPECT_GT(small.mmu->walks.value, 900u);
}

TEST(Iommu, MissesShareWalkersAndMergeIntoAWalkInFlight) {
  IommuConfig c = base_cfg();
  c.walkers = 2;
  Rig r(c);
  r.mmu->map_buffer(kBase, 1 << 20, 12);
  r.mmu->translate(kBase + 0x10, 0);  // warm the walk caches
  const Tick t = 10'000 * kNs, walk = 5 * kNs + Rig::kMem + 30 * kNs;
  const auto a = r.mmu->translate(kBase + 1 * 4096, t);
  const auto b = r.mmu->translate(kBase + 2 * 4096, t);
  const auto d = r.mmu->translate(kBase + 3 * 4096, t);  // waits for the first walker free
  const auto e = r.mmu->translate(kBase + 1 * 4096 + 8, t + kNs);  // same page as a: merges
  EXPECT_EQ(a.ready, t + walk);
  EXPECT_EQ(b.ready, t + walk);
  EXPECT_EQ(d.ready, t + walk + (Rig::kMem + 30 * kNs));
  EXPECT_EQ(e.ready, t + walk);  // usable when the walk ends
  EXPECT_TRUE(a.missed && b.missed && d.missed);
  EXPECT_FALSE(e.missed);  // it did not start a walk itself
  EXPECT_EQ(r.mmu->merged.value, 1u);
  EXPECT_EQ(r.mmu->walks.value, 4u);
}

TEST(Iommu, InvalidationRemovesEntries) {
  Rig r(base_cfg());
  r.mmu->map_buffer(kBase, 1 << 20, 12);
  for (int p = 0; p < 8; ++p) r.mmu->translate(kBase + static_cast<std::uint64_t>(p) * 4096, p * 1000 * kNs);
  EXPECT_EQ(r.mmu->iotlb().occupancy(), 8u);
  EXPECT_GE(r.mmu->invalidate(kBase + 2 * 4096, 3 * 4096), 3u);
  EXPECT_EQ(r.mmu->iotlb().occupancy(), 5u);
  const std::uint64_t walks = r.mmu->walks.value;
  r.mmu->translate(kBase + 3 * 4096, 100'000 * kNs);
  EXPECT_EQ(r.mmu->walks.value, walks + 1);
  r.mmu->translate(kBase + 5 * 4096, 200'000 * kNs);
  EXPECT_EQ(r.mmu->walks.value, walks + 1);
}

TEST(Iommu, UnmappedAddressIsAFault) {
  Rig r(base_cfg());
  r.mmu->map_buffer(kBase, 4096, 12);
  EXPECT_THROW(r.mmu->translate(kBase + 8192, 0), SimError);
}

}  // namespace
}  // namespace hx::ats
