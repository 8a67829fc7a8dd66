#include <gtest/gtest.h>

#include "trafficgen/reorder.h"

namespace spraylab::gen {
namespace {

ReorderTracker receive(std::initializer_list<uint32_t> sequences) {
  ReorderTracker t;
  for (uint32_t s : sequences) t.on_packet(s);
  return t;
}

TEST(Reorder, InOrderArrivalHasNoCounts) {
  const ReorderTracker t = receive({0, 1, 2, 3});
  EXPECT_EQ(t.received(), 4u);
  EXPECT_EQ(t.out_of_order(), 0u);
  EXPECT_EQ(t.duplicates(), 0u);
  EXPECT_EQ(t.missing_count(4), 0u);
}

TEST(Reorder, ALatePacketIsOutOfOrderByItsDistanceBelowTheHighest) {
  const ReorderTracker t = receive({0, 2, 3, 1, 4});
  EXPECT_EQ(t.out_of_order(), 1u);
  EXPECT_EQ(t.max_distance(), 2u);           // 3 had arrived when 1 came
  EXPECT_EQ(t.distance_histogram()[1], 1u);  // bucket [2, 3]
}

TEST(Reorder, AGapIsMissingUntilFilled) {
  const ReorderTracker t = receive({0, 1, 3, 5});
  EXPECT_EQ(t.missing(6), (std::vector<uint32_t>{2, 4}));
  EXPECT_EQ(t.missing_count(6), 2u);
  EXPECT_EQ(t.missing(8), (std::vector<uint32_t>{2, 4, 6, 7}));  // trailing losses too
}

TEST(Reorder, DuplicatesAreCountedOnceAndNotAsReordering) {
  const ReorderTracker t = receive({0, 1, 1, 2, 0});
  EXPECT_EQ(t.duplicates(), 2u);
  EXPECT_EQ(t.unique(), 3u);
  EXPECT_EQ(t.out_of_order(), 0u);
}

TEST(Reorder, HistogramBucketsArePowersOfTwo) {
  EXPECT_EQ(ReorderTracker::bucket_of(1), 0u);
  EXPECT_EQ(ReorderTracker::bucket_of(2), 1u);
  EXPECT_EQ(ReorderTracker::bucket_of(3), 1u);
  EXPECT_EQ(ReorderTracker::bucket_of(4), 2u);
  EXPECT_EQ(ReorderTracker::bucket_of(1u << 20), ReorderTracker::kBuckets - 1);
  const ReorderTracker t = receive({10, 9, 5, 0});  // distances 1, 5, 10
  EXPECT_EQ(t.distance_histogram()[0], 1u);
  EXPECT_EQ(t.distance_histogram()[2], 1u);
  EXPECT_EQ(t.distance_histogram()[3], 1u);
  EXPECT_EQ(t.out_of_order(), 3u);
}

TEST(Reorder, CounterNamesAreDeclaredOnce) {
  EXPECT_STREQ(kReorderCounterNames[static_cast<size_t>(ReorderCounter::kOutOfOrder)],
               "out_of_order");
  const ReorderTracker t = receive({1, 0});
  EXPECT_EQ(t.count(ReorderCounter::kOutOfOrder), t.out_of_order());
}

}  // namespace
}  // namespace spraylab::gen
