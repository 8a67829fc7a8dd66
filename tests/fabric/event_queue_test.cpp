// EventQueue (the bucket queue of virtual time) pops exactly the binary heap's order, (time,
// then node, then tag: not the order of scheduling), on schedules made like the fabric's (each
// event may schedule more at or after its time) and on adversarial ones: many equal times, timers
// far beyond the window, long empty stretches, exact window edges, events scheduled in the past.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "fabric/emu/event_queue.h"

namespace spraylab::fabric {
namespace {

constexpr uint64_t W = EventQueue::kWindowNs;

// Both queues see the same pushes; every pop must give the same event.
class Twin {
 public:
  void push(uint64_t t, uint32_t node, uint32_t tag) {
    q_.push(t, node, tag);
    ref_.push(t, node, tag);
    ASSERT_EQ(q_.size(), ref_.size());
  }
  // Pops one from each; returns the event.
  Event pop() {
    EXPECT_FALSE(q_.empty());
    const Event want = ref_.pop();
    const uint64_t next = q_.next_time();
    const Event got = q_.pop();
    EXPECT_EQ(next, want.time);
    EXPECT_EQ(got.time, want.time) << "pop " << pops_;
    EXPECT_EQ(got.node, want.node) << "pop " << pops_ << " at " << want.time;
    EXPECT_EQ(got.tag, want.tag) << "pop " << pops_ << " at " << want.time;
    ++pops_;
    return want;
  }
  bool empty() const { return ref_.empty(); }
  size_t pops() const { return pops_; }
  const EventQueue& q() const { return q_; }

 private:
  EventQueue q_;
  HeapEventQueue ref_;
  size_t pops_ = 0;
};

void drain(Twin& t) {
  while (!t.empty()) {
    t.pop();
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_TRUE(t.q().empty());
}

TEST(EventQueue, PopsInTimeThenNodeThenTagOrder) {
  Twin t;
  t.push(5, 3, 0);
  t.push(3, 4, 0);
  t.push(5, 1, 7);
  t.push(3, 2, 0);
  t.push(5, 1, 2);
  t.push(0, 5, 0);
  std::vector<uint32_t> nodes, tags;
  while (!t.empty()) {
    const Event e = t.pop();
    nodes.push_back(e.node);
    tags.push_back(e.tag);
  }
  EXPECT_EQ(nodes, (std::vector<uint32_t>{5, 2, 4, 1, 1, 3}));
  EXPECT_EQ(tags, (std::vector<uint32_t>{0, 0, 0, 2, 7, 0}));
}

// The order does not depend on the order of the pushes: the partitioned clock arms a
// cross-partition arrival at a barrier, one queue when the frame is sent.
TEST(EventQueue, TheOrderOfThePushesDoesNotMatter) {
  std::mt19937_64 rng(3);
  std::vector<Event> events;
  for (uint32_t i = 0; i < 3000; ++i) {
    events.push_back(Event{rng() % 50, static_cast<uint32_t>(rng() % 40), i});
  }
  std::vector<Event> first;
  for (int round = 0; round < 2; ++round) {
    EventQueue q;
    for (const Event& e : events) q.push(e.time, e.node, e.tag);
    std::vector<Event> got;
    while (!q.empty()) got.push_back(q.pop());
    if (round == 0) {
      first = got;
    } else {
      ASSERT_EQ(got.size(), first.size());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].time, first[i].time);
        EXPECT_EQ(got[i].key(), first[i].key()) << i;
      }
    }
    std::shuffle(events.begin(), events.end(), rng);
  }
}

// The fabric's pattern: pop one, schedule a few at or after it (mostly within a link delay,
// some equal to now, some far: retransmission timeouts), many pending at once.
TEST(EventQueue, FabricLikeScheduleMatchesTheHeap) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    Twin t;
    for (uint32_t i = 0; i < 2000; ++i) t.push(rng() % 600, i, i);
    uint64_t budget = 60000;
    while (!t.empty() && !HasFailure()) {
      const Event e = t.pop();
      if (budget == 0) continue;
      const uint32_t more = static_cast<uint32_t>(rng() % 3);
      for (uint32_t k = 0; k < more && budget > 0; ++k, --budget) {
        const uint64_t r = rng() % 100;
        uint64_t dt;
        if (r < 20) {
          dt = 0;  // same ns: goes after what is already due then
        } else if (r < 90) {
          dt = 1 + rng() % 600;  // a link's delay and a frame
        } else if (r < 97) {
          dt = 1'000'000 + rng() % 1000;  // a retransmission timeout
        } else {
          dt = W - 2 + rng() % 5;  // the window's edge
        }
        t.push(e.time + dt, e.node, static_cast<uint32_t>(k));
      }
    }
    EXPECT_GT(t.pops(), 60000u);
  }
}

// Many events at one time, pushed in between others, and some in the same ns while it is popped.
TEST(EventQueue, EqualTimesGoInNodeThenTagOrder) {
  Twin t;
  for (uint32_t i = 0; i < 5000; ++i) t.push(i % 2 == 0 ? 100 : 100 + i % 7, i, 0);
  for (uint32_t i = 0; i < 2000; ++i) {
    const Event e = t.pop();
    t.push(e.time, e.node + 10000, 1);  // now: after everything already due now
    if (i % 3 == 0) t.push(e.time + 1, e.node + 20000, 2);
  }
  drain(t);
}

// A large fabric's ns: thousands of events for one time, pushed in no order of (node, tag) while
// the clock is still before it, then more for that time while it is being popped, some sorting
// before what is left of it.
TEST(EventQueue, AManyEventNsPushedInAnyOrderPopsInKeyOrder) {
  std::mt19937_64 rng(11);
  Twin t;
  t.push(40, 0, 0);
  std::vector<uint32_t> nodes(4000);
  std::iota(nodes.begin(), nodes.end(), 1u);
  std::shuffle(nodes.begin(), nodes.end(), rng);
  for (uint32_t n : nodes) t.push(542, n, n % 3);
  t.push(543, 7, 0);
  t.pop();  // 40: the clock moves to 542 at the next pop
  for (uint32_t i = 0; i < 3000 && !HasFailure(); ++i) {
    const Event e = t.pop();
    if (i % 4 == 0) t.push(e.time, static_cast<uint32_t>(rng() % 5000), 9);  // may sort before
    if (i % 9 == 0) t.push(e.time + 42, e.node, 1);
  }
  drain(t);
}

// Timers far beyond the window, at window multiples and just off them, with nothing in between:
// the clock jumps, and what the window reaches comes in before anything pushed for its ns.
TEST(EventQueue, FarTimersAndEmptyStretches) {
  Twin t;
  std::mt19937_64 rng(7);
  for (uint32_t i = 0; i < 3000; ++i) {
    const uint64_t base = (rng() % 50) * W;
    t.push(base + (rng() % 4 == 0 ? 0 : rng() % (3 * W)), i, 0);
  }
  t.push(UINT64_MAX - 1, 1, 1);
  t.push(UINT64_MAX - W, 2, 2);
  while (!t.empty() && !HasFailure()) {
    const Event e = t.pop();
    if (e.time > 60 * W) continue;
    // Pushes for times a far timer already holds, from inside the window.
    if (e.node % 5 == 0) t.push(e.time + W - 1, e.node + 100000, 3);
    if (e.node % 7 == 0) t.push(e.time + W, e.node + 200000, 4);
    if (e.node % 11 == 0) t.push(e.time + 5 * W + 3, e.node + 300000, 5);
  }
  drain(t);
}

// Empty, refilled, emptied: the clock keeps its place and pushes before the last pop (the past)
// still come out first, in order.
TEST(EventQueue, EmptyAgainAndThePast) {
  Twin t;
  t.push(10 * W + 5, 1, 0);
  t.pop();
  t.push(10 * W + 5, 2, 0);
  t.push(3, 3, 0);  // the past
  t.push(2, 4, 0);
  t.push(3, 5, 0);
  t.push(10 * W + 4, 6, 0);  // also the past
  t.push(11 * W + 5, 7, 0);
  t.push(10 * W + 5 + W, 8, 0);
  t.push(10 * W + 5 + W - 1, 9, 0);
  drain(t);
  t.push(0, 10, 0);
  t.push(20 * W, 11, 0);
  drain(t);
}

// The prefetch hints name the next event and the one after it when they are in the buckets.
TEST(EventQueue, TopAndAfterTop) {
  EventQueue q;
  q.push(10, 1, 0);
  q.push(10, 2, 0);
  q.push(12, 3, 0);
  q.push(5 * W, 4, 0);
  EXPECT_EQ(q.top().node, 1u);
  ASSERT_NE(q.after_top(), nullptr);
  EXPECT_EQ(q.after_top()->node, 2u);
  q.pop();
  ASSERT_NE(q.after_top(), nullptr);
  EXPECT_EQ(q.after_top()->node, 3u);
  q.pop();
  EXPECT_EQ(q.top().node, 3u);
  EXPECT_EQ(q.after_top(), nullptr);  // the next is beyond the window
  q.pop();
  EXPECT_EQ(q.top().node, 4u);
  EXPECT_EQ(q.pop().node, 4u);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace spraylab::fabric
