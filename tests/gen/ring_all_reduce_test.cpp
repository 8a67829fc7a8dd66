#include <gtest/gtest.h>

#include "trafficgen/workloads/ring_all_reduce.h"

namespace spraylab::gen {
namespace {

class RingAllReduce : public ::testing::TestWithParam<uint32_t> {};

TEST_P(RingAllReduce, EachRankSendsTwoTimesNMinusOneOverNOfTheBuffer) {
  const uint32_t n = GetParam();
  const uint64_t buffer = 840ull * 1024;  // divisible by 2..8
  const Schedule s = ring_all_reduce(n, buffer);
  for (uint64_t sent : bytes_sent_per_rank(s)) EXPECT_EQ(sent, 2 * (n - 1) * buffer / n);
  for (uint64_t received : bytes_received_per_rank(s))
    EXPECT_EQ(received, 2 * (n - 1) * buffer / n);
}

TEST_P(RingAllReduce, TwoNMinusOneStepsEachRankSendingOnceToItsSuccessor) {
  const uint32_t n = GetParam();
  const Schedule s = ring_all_reduce(n, 1 << 20);
  ASSERT_EQ(s.messages.size(), 2u * (n - 1) * n);
  std::vector<std::vector<int>> sends(2 * (n - 1), std::vector<int>(n, 0));
  for (const Message& m : s.messages) {
    ASSERT_LT(m.step, 2 * (n - 1));
    EXPECT_EQ(m.dst, (m.src + 1) % n);
    ++sends[m.step][m.src];
  }
  for (const auto& step : sends) {
    for (int count : step) EXPECT_EQ(count, 1);
  }
}

TEST_P(RingAllReduce, StepKWaitsForTheMessageTheRankReceivedAtStepKMinusOne) {
  const uint32_t n = GetParam();
  const Schedule s = ring_all_reduce(n, 1 << 20);
  for (const Message& m : s.messages) {
    if (m.step == 0) {
      EXPECT_TRUE(m.depends_on.empty());
      continue;
    }
    ASSERT_EQ(m.depends_on.size(), 1u) << "message " << m.id;
    const Message& dep = s.messages[m.depends_on[0]];
    EXPECT_EQ(dep.step, m.step - 1);
    EXPECT_EQ(dep.dst, m.src);
    EXPECT_LT(dep.id, m.id);  // builders list messages in a valid order
  }
  EXPECT_TRUE(dependencies_are_local(s));
}

INSTANTIATE_TEST_SUITE_P(Ranks, RingAllReduce, ::testing::Values(2u, 3u, 5u, 8u));

TEST(RingAllReduceChunks, EachStepForwardsTheChunkReceivedInThePreviousStep) {
  // Uneven chunks (10 bytes over 4 ranks: 3, 3, 2, 2) make the chunk index visible in the size.
  const Schedule s = ring_all_reduce(4, 10);
  EXPECT_EQ(total_bytes(s), 2u * 3u * 10u);  // each chunk crosses n-1 links per phase
  for (const Message& m : s.messages) {
    if (m.step == 0) continue;
    const Message& in = s.messages[m.depends_on[0]];
    // Reduce-scatter forwards the chunk it just reduced; the first all-gather step sends the chunk
    // the last reduce-scatter step completed; all-gather forwards what it received.
    EXPECT_EQ(m.bytes, in.bytes) << "message " << m.id;
  }
}

TEST(RingAllReduceChunks, TooSmallBufferIsAnError) {
  EXPECT_THROW(ring_all_reduce(8, 7), WorkloadError);
  EXPECT_THROW(ring_all_reduce(1, 100), WorkloadError);
}

}  // namespace
}  // namespace spraylab::gen
