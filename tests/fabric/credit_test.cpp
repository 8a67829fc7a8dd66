// Credit-based links in virtual time (issue 39): the PFC test's 8-to-1 incast on the demo's
// 16-host fat tree. With buffer.flow_control: credit every sender (host NIC or switch port)
// starts a frame only with credits for its receiver's buffer, the senders' queues back up to the
// hosts, and nothing is dropped: every data frame sent is delivered once, every credit consumed in
// a receiver's buffer is freed and comes back to its sender (none outstanding: every sender is at
// its full credit again), and every credit frame sent is received. The same run with
// flow_control: none and 100 KB buffers drops at the receiver's leaf.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;
using testing::generator_counter;
using testing::incast_8_to_1;
using testing::switch_drops;

TEST(Credit, IncastIsLosslessAndItsCreditsBalance) {
  const FabricResult r = testing::run_virtual(experiment(incast_8_to_1("{flow_control: credit}")));
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  ASSERT_TRUE(r.credit);
  EXPECT_FALSE(r.pfc);
  EXPECT_EQ(switch_drops(r), 0u);
  const HostCredit& h = r.host_credit;
  EXPECT_EQ(h.overruns, 0u);
  EXPECT_EQ(h.bad_control, 0u);
  uint64_t frames_sent = 0, frames_received = 0, consumed = 0, freed = 0, spent = 0;
  uint64_t stalled_ns = 0, returning = 0;
  for (const PortSummary& p : r.ports) {
    SCOPED_TRACE(p.switch_name + " port " + std::to_string(p.port));
    // Every credit a sender spent was freed by its receiver (its buffer is empty; the credits
    // are back, or on their way in the credit frames still on the wire).
    EXPECT_EQ(p.credits_outstanding, 0u);
    EXPECT_EQ(p.credits_consumed, p.credits_freed);
    EXPECT_EQ(p.credit_overrun_drops, 0u);
    frames_sent += p.credit_frames_sent;
    frames_received += p.credit_frames_received;
    consumed += p.credits_consumed;
    freed += p.credits_freed;
    spent += p.credits_spent;
    stalled_ns += p.credit_stalled_ns;
    returning += p.credits_returning;
  }
  EXPECT_EQ(h.outstanding, 0u);
  EXPECT_EQ(h.consumed, h.freed);
  // Every credit a sender spent was consumed at its receiver, and returned: the same on both
  // sides of every link, summed (switch ports and host NICs send to each other).
  EXPECT_EQ(spent + h.spent, consumed + h.consumed);
  EXPECT_EQ(consumed + h.consumed, freed + h.freed);
  EXPECT_GT(consumed, 0u);
  // Every credit frame sent (by a switch port or a host) is received by its peer, but those on
  // the wire when the workload completed (the last ACKs' credits): frames are missing exactly
  // when credits are on their way (every frame carries more than the one before it, on a FIFO
  // link), and those are a few frames' worth.
  EXPECT_LE(frames_received + h.frames_received, frames_sent + h.frames_sent);
  EXPECT_EQ(frames_received + h.frames_received == frames_sent + h.frames_sent,
            returning + h.returning == 0);
  EXPECT_LE(returning + h.returning, 4 * (4178 + 63) / 64);
  EXPECT_GT(h.frames_sent, 0u);
  // The incast made senders wait for credits: else the test proves nothing.
  EXPECT_GT(stalled_ns + h.stalled_ns, 0u) << "no sender ever lacked credits";
  // Every data frame was sent once and arrived once: no loss, no retransmission.
  EXPECT_EQ(generator_counter(r, "retransmits"), 0u);
  EXPECT_EQ(r.generator["loss"]["timeouts"].get<uint64_t>(), 0u);
  EXPECT_EQ(generator_counter(r, "tx_data_packets"), generator_counter(r, "rx_data_packets"));

  const FabricResult lossy =
      testing::run_virtual(experiment(incast_8_to_1("{bytes: 100KB, flow_control: none}")));
  ASSERT_TRUE(lossy.completed) << gen::to_string(lossy.stopped_by);
  EXPECT_FALSE(lossy.credit);
  EXPECT_GT(switch_drops(lossy), 0u);
  std::printf(
      "incast 8 x 256 KB, credit buffers of 20988 B: %lu credit frames (%lu on the wire at the "
      "end), %.1f us stalled (switch ports) + %.1f us (hosts), CCT %.1f us; none (100 KB) %lu "
      "drops, CCT %.1f us\n",
      static_cast<unsigned long>(frames_sent + h.frames_sent),
      static_cast<unsigned long>(frames_sent + h.frames_sent - frames_received - h.frames_received),
      static_cast<double>(stalled_ns) / 1e3, static_cast<double>(h.stalled_ns) / 1e3,
      r.generator["collectives"][0]["cct_ns"].get<double>() / 1e3,
      static_cast<unsigned long>(switch_drops(lossy)),
      lossy.generator["collectives"][0]["cct_ns"].get<double>() / 1e3);
}

}  // namespace
}  // namespace spraylab::fabric
