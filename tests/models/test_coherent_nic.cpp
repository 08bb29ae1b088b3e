// A NIC on the socket interconnect alone (models/nic/coherent_nic) on a
// hand-made two-socket system: every packet arrives intact and in order
// (the reader checks each line of each packet against its descriptor, and
// the coherence checker every step), inline signalling saves the tail's
// line transfers, a tiny ring under flood neither loses nor deadlocks, and
// a light open load sees the ping-pong latency; descriptors packed with a
// flag each are all delivered, and under low load cost more line transfers
// than CC-NIC's grouped lines; buffers from shared pools are all delivered.
// On four sockets in a ring, a NIC two links from the host sends every
// message of the loop over two links: twice the link messages of a NIC on
// a neighbour, the same messages delivered, every packet intact.
#include <gtest/gtest.h>
#include <systemc>

#include <string>

#include "models/coherence/checker.h"
#include "models/nic/coherent_nic.h"

namespace hx::nic {
namespace {

coherence::SocketSystemConfig sockets() {
  coherence::SocketSystemConfig c;
  c.cores = 4;
  c.slices = 2;
  c.core_lookup = 2 * kNs;
  c.home_lookup = 8 * kNs;
  c.mesh_hop = 4 * kNs;
  c.socket_bytes = 4ull << 30;
  c.memory.read_latency = 60 * kNs;
  c.links = 2;
  c.link.GBps = 20.0;
  c.link.latency = 30 * kNs;
  c.link_end.credits = {8, 8, 8, 8};
  return c;
}

struct Outcome {
  double median_ns = 0, mpps = 0;
  std::uint64_t received = 0, link_messages = 0, messages = 0;
};

Outcome run(const CoherentNicConfig& nc, const std::string& name = "sys",
            const coherence::SocketSystemConfig& sc = sockets()) {
  coherence::SocketSystem sys(name, sc);
  coherence::CoherenceChecker::instance().clear();
  CoherentNic nic(name + ".nic", nc, sys);
  nic.start();
  sc_core::sc_start();
  EXPECT_TRUE(nic.done());
  EXPECT_TRUE(sys.idle());
  EXPECT_GT(coherence::CoherenceChecker::instance().checks(), 0u);
  Outcome r;
  r.median_ns = nic.latency().percentile(50);
  r.received = nic.received();
  r.mpps = nic.span() ? static_cast<double>(r.received) / (static_cast<double>(nic.span()) * 1e-12) / 1e6 : 0;
  r.link_messages = sys.link_messages.value;
  r.messages = sys.messages.value;
  return r;
}

// A two-line ring flooded with `packets` packets, none of them warm-up.
CoherentNicConfig flood(std::uint64_t packets) {
  CoherentNicConfig c;
  c.traffic.ring = 2;
  c.traffic.flood = true;
  c.traffic.packets = packets;
  c.traffic.warmup = 0;
  return c;
}

// Runs c and expects every packet received, at some rate.
void expect_every_packet(const CoherentNicConfig& c) {
  const Outcome r = run(c);
  EXPECT_EQ(r.received, c.traffic.packets);
  EXPECT_GT(r.mpps, 0.0);
}

CoherentNicConfig pingpong(bool inline_signal) {
  CoherentNicConfig c;
  c.inline_signal = inline_signal;
  c.layout = inline_signal ? Layout::Grouped : Layout::Packed;
  c.traffic.packets = 200;
  c.traffic.warmup = 20;
  return c;
}

// One packet in flight, the two designs one after the other on systems of
// their own: with the tail registers each direction adds a line the writer
// stores (taking it from the reader's cache) and the reader fetches back,
// each at least a crossing each way: 4 x 2 x 30 ns of link latency more.
// Every packet arrives and is timed.
TEST(CoherentNic, InlineSignallingSavesTheTailTransfers) {
  const Outcome cc = run(pingpong(true), "cc");
  const Outcome e = run(pingpong(false), "e810");
  EXPECT_EQ(cc.received, 200u);
  EXPECT_EQ(e.received, 200u);
  EXPECT_GT(e.median_ns - cc.median_ns, 240.0);
  EXPECT_GT(e.link_messages, cc.link_messages);
}

// One packet in flight, on four sockets in a ring, the NIC's engines on
// socket 1 (a neighbour of the host's socket 0) and then on socket 2 (two
// links away): each message between host and NIC crosses one link, then
// two, and is delivered to the same agents either way; the latency grows
// by at least a link's latency and a mesh trip for each of the loop's
// crossings.
TEST(CoherentNic, ANicTwoSocketsAwaySendsEveryMessageOverTwoLinks) {
  coherence::SocketSystemConfig four = sockets();
  four.sockets = 4;
  four.graph = coherence::SocketGraph::Ring;
  CoherentNicConfig c = pingpong(true);
  c.nic_socket = 1;
  const Outcome near = run(c, "near", four);
  c.nic_socket = 2;
  const Outcome far = run(c, "far", four);
  EXPECT_EQ(near.received, 200u);
  EXPECT_EQ(far.received, 200u);
  EXPECT_EQ(far.link_messages, 2 * near.link_messages);
  EXPECT_EQ(far.messages, near.messages);
  EXPECT_GT(far.median_ns - near.median_ns, 4 * 34.0);  // four crossings at least (each 30 ns link + 4 ns mesh)
}

// A ring of two lines of one descriptor each, flooded with batches of one:
// the writer waits for the reader's head every other packet; all arrive.
TEST(CoherentNic, ATinyRingUnderFloodDeliversEveryPacketInOrder) {
  CoherentNicConfig c = flood(500);
  c.traffic.packet_B = 1500;  // 24 lines a packet, more than a core's MSHRs
  expect_every_packet(c);
}

// Two queues at a light open load: no queueing, so every packet sees the
// ping-pong latency's order of magnitude, and the rate is the offered one.
TEST(CoherentNic, ALightOpenLoadIsDeliveredAtItsRate) {
  CoherentNicConfig c;
  c.traffic.queues = 2;
  c.traffic.offered_Mpps = 0.2;  // 5 us apart
  c.traffic.packets = 200;
  c.traffic.warmup = 10;
  c.per_line = 4;
  c.traffic.batch = 4;
  const Outcome r = run(c);
  EXPECT_EQ(r.received, 400u);
  EXPECT_NEAR(r.mpps, 0.4, 0.01);
  EXPECT_LT(r.median_ns, 1200);
}

// Four descriptors packed to a line with a flag each, on a ring of two
// lines flooded with batches of three: the writer keeps returning to lines
// whose flags the reader is clearing (stores of some bits of a line), and
// every packet still arrives in order (the readers check each packet line,
// the checker every value).
TEST(CoherentNic, PackedDescriptorsWithAFlagEachDeliverEveryPacket) {
  CoherentNicConfig c = flood(600);
  c.per_line = 4;
  c.layout = Layout::Packed;
  c.traffic.batch = 3;
  expect_every_packet(c);
}

// One packet at a time, four descriptors to a line. Grouped, each packet's
// descriptor takes a line of its own, which crosses once each way. Packed,
// the reader's clear of a flag is a store to a line the writer shares,
// which it must take back before the writer's next descriptor takes it
// again: at least one more message on the links per packet and ring (220
// packets, two rings each).
TEST(CoherentNic, PackedDescriptorsCostMoreTransfersUnderLowLoad) {
  CoherentNicConfig c = pingpong(true);
  c.per_line = 4;
  const Outcome grouped = run(c, "grouped");
  c.layout = Layout::Packed;
  const Outcome packed = run(c, "packed");
  EXPECT_EQ(packed.received, 200u);
  EXPECT_EQ(grouped.received, 200u);
  EXPECT_GT(packed.link_messages, grouped.link_messages + 2 * 220);
}

// Shared buffer pools, a tiny ring under flood: the host's TX core takes
// buffers its RX core has freed, the NIC writes each received packet into
// a buffer it has just read, so a buffer serves TX and RX packets in turn,
// and every packet arrives intact (each line checked against the
// descriptor that names the buffer).
TEST(CoherentNic, SharedPoolsUnderFloodDeliverEveryPacket) {
  CoherentNicConfig c = flood(400);
  c.per_line = 1;
  c.pools = true;
  c.traffic.batch = 1;
  c.traffic.packet_B = 200;  // four lines
  expect_every_packet(c);
}

}  // namespace
}  // namespace hx::nic
