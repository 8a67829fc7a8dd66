#include <gtest/gtest.h>

#include "trafficgen/cct_bound.h"

namespace spraylab::gen {
namespace {

// Ofan appendix A: 800 Gb/s, H = 6, 0.5 µs links, 4096 B + 62 B, 64 B ACKs, 20 B gap.
const PathModel kPaper{};

TEST(CctBound, ReproducesTheAppendixValueForM256) {
  const CctBound b = permutation_cct_bound_packets(kPaper, 256);
  EXPECT_NEAR(b.total_ns, 17'056.94, 1.0);   // the paper's 17.05694 µs, within 1 ns
  EXPECT_NEAR(b.total_ns, 17'056.94, 1e-6);  // and in fact exactly
  EXPECT_EQ(b.packets, 256u);
  EXPECT_EQ(b.data_only_packets, 78u);  // ⌈6·(41.58 + 500) / 41.78⌉
}

TEST(CctBound, PhasesAddUpAndMatchTheirClosedForms) {
  const CctBound b = permutation_cct_bound_packets(kPaper, 256);
  EXPECT_NEAR(b.data_only_ns, 78 * 41.78, 1e-9);
  EXPECT_NEAR(b.interleaved_ns, 178 * (41.78 + 0.84), 1e-9);
  EXPECT_NEAR(b.acks_only_ns, 5 * 41.58 + 6 * 500 + 6 * (0.64 + 500), 1e-9);
  EXPECT_DOUBLE_EQ(b.total_ns, b.data_only_ns + b.interleaved_ns + b.acks_only_ns);
}

TEST(CctBound, ShortMessagesNeverInterleaveAcks) {
  const CctBound b = permutation_cct_bound_packets(kPaper, 10);
  EXPECT_EQ(b.data_only_packets, 10u);
  EXPECT_EQ(b.interleaved_ns, 0.0);
  EXPECT_NEAR(b.total_ns, 10 * 41.78 + 5 * 41.58 + 6000 + 6 * 0.64, 1e-9);
}

TEST(CctBound, EachExtraPacketCostsADataSlotAndAnAckSlotOnceAcksFlow) {
  const double m300 = permutation_cct_bound_packets(kPaper, 300).total_ns;
  const double m301 = permutation_cct_bound_packets(kPaper, 301).total_ns;
  EXPECT_NEAR(m301 - m300, 41.78 + 0.84, 1e-9);
}

TEST(CctBound, AShortLastPacketShortensOnlyItsOwnSlotAndHops) {
  const double full = permutation_cct_bound(kPaper, 256 * 4096).total_ns;
  EXPECT_NEAR(full, 17'056.94, 1e-6);
  const double short_last = permutation_cct_bound(kPaper, 255 * 4096 + 96).total_ns;
  // The last frame is 4000 B shorter: its slot and its 5 further hops each save 40 ns.
  EXPECT_NEAR(full - short_last, 6 * 40.0, 1e-6);
}

TEST(CctBound, TwoHostsBackToBackAtTenGbps) {
  // The integration setting: 1 MB over one 10 Gb/s link (0.8 ns per byte), no propagation delay.
  // The first packet arrives after one slot, so from the second slot on every data frame is
  // preceded by an ACK; the run ends with the last ACK crossing the link.
  const PathModel link{.rate_bps = 10e9, .hops = 1, .link_delay_ns = 0};
  const CctBound b = permutation_cct_bound(link, 1'000'000);
  EXPECT_EQ(b.packets, 245u);
  EXPECT_EQ(b.data_only_packets, 1u);
  const double data_slots = 244 * (4158 + 20) * 0.8 + (576 + 62 + 20) * 0.8;
  const double ack_slots = 244 * (64 + 20) * 0.8;
  EXPECT_NEAR(b.total_ns, data_slots + ack_slots + 64 * 0.8, 1e-6);
  EXPECT_DOUBLE_EQ(serialisation_ns(4158, 800e9), 41.58);
}

TEST(CctBound, RejectsEmptyMessagesAndZeroHops) {
  EXPECT_THROW(permutation_cct_bound(kPaper, 0), std::invalid_argument);
  EXPECT_THROW(permutation_cct_bound(PathModel{.hops = 0}, 4096), std::invalid_argument);
}

}  // namespace
}  // namespace spraylab::gen
