// Lossless links with PFC in virtual time (issue 39): an 8-to-1 incast on the demo's 16-host fat
// tree with a small buffer. With buffer.flow_control: pfc the leaf pauses its senders' links,
// the pause spreads up the tree, and nothing is dropped: every pause frame sent is received,
// every resume too, and every data frame sent is delivered once. The same run with
// flow_control: none drops at the receiver's leaf.
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

// 100 KB buffers under `flow_control`.
std::string incast(const std::string& flow_control) {
  return incast_8_to_1("{bytes: 100KB, flow_control: " + flow_control + "}");
}

TEST(Pfc, IncastIsLosslessAndItsPausesBalance) {
  const FabricResult r = testing::run_virtual(experiment(incast("pfc")));
  ASSERT_TRUE(r.completed) << gen::to_string(r.stopped_by);
  ASSERT_TRUE(r.pfc);
  EXPECT_EQ(switch_drops(r), 0u);
  uint64_t pause_sent = 0, resume_sent = 0, pause_received = 0, resume_received = 0;
  uint64_t paused_ns = 0, headroom_drops = 0;
  for (const PortSummary& p : r.ports) {
    pause_sent += p.pause_sent;
    resume_sent += p.resume_sent;
    pause_received += p.pause_received;
    resume_received += p.resume_received;
    paused_ns += p.paused_ns;
    headroom_drops += p.headroom_drops;
  }
  EXPECT_EQ(headroom_drops, 0u);
  EXPECT_GT(pause_sent, 0u) << "the incast never reached XOFF: the test proves nothing";
  // Every frame a switch port sent is received by its peer: a switch port or a host's NIC.
  EXPECT_EQ(pause_sent, pause_received + r.host_pfc.pause_received);
  EXPECT_EQ(resume_sent, resume_received + r.host_pfc.resume_received);
  // Every pause ended in a resume (the buffers drained): none outlives the run.
  EXPECT_EQ(pause_sent, resume_sent);
  EXPECT_EQ(r.host_pfc.bad_control, 0u);
  EXPECT_GT(paused_ns + r.host_pfc.paused_ns, 0u);
  // Every data frame was sent once and arrived once: no loss, no retransmission.
  EXPECT_EQ(generator_counter(r, "retransmits"), 0u);
  EXPECT_EQ(r.generator["loss"]["timeouts"].get<uint64_t>(), 0u);
  EXPECT_EQ(generator_counter(r, "tx_data_packets"), generator_counter(r, "rx_data_packets"));

  const FabricResult lossy = testing::run_virtual(experiment(incast("none")));
  ASSERT_TRUE(lossy.completed) << gen::to_string(lossy.stopped_by);
  EXPECT_FALSE(lossy.pfc);
  EXPECT_GT(switch_drops(lossy), 0u);
  std::printf(
      "incast 8 x 256 KB, 100 KB buffers: pfc %lu pauses, %.1f us paused (switch ports) + %.1f us "
      "(hosts), CCT %.1f us; none %lu drops, CCT %.1f us\n",
      static_cast<unsigned long>(pause_sent), static_cast<double>(paused_ns) / 1e3,
      static_cast<double>(r.host_pfc.paused_ns) / 1e3,
      r.generator["collectives"][0]["cct_ns"].get<double>() / 1e3,
      static_cast<unsigned long>(switch_drops(lossy)),
      lossy.generator["collectives"][0]["cct_ns"].get<double>() / 1e3);
}

// Bernoulli arrivals (workload.injection) under light load: the buffers never reach XOFF, so
// flow_control pfc must change nothing. A host's next turn then waits for its next arrival
// with lossless links as without (HostEngine::next_wake's two forms share it), rather than
// waking every ns and sending at a different time.
std::string bernoulli(const std::string& flow_control) {
  return R"(seed: 7
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB, flow_control: )" +
         flow_control + R"(}
load_balancer: {algorithm: rps}
workload: {type: uniform, injection: bernoulli, load: 0.3, message_size: 4096, payload: 4096,
           messages: 100}
measurement: {warmup: 2us, duration: 10us}
)";
}

TEST(Pfc, WithoutPausesItChangesNothing) {
  const FabricResult r = testing::run_virtual(experiment(bernoulli("pfc")));
  const FabricResult lossy = testing::run_virtual(experiment(bernoulli("none")));
  ASSERT_TRUE(r.pfc);
  uint64_t pause_sent = 0;
  for (const PortSummary& p : r.ports) pause_sent += p.pause_sent;
  ASSERT_EQ(pause_sent, 0u) << "the load paused a link: this test needs one that does not";
  ASSERT_GT(generator_counter(lossy, "tx_data_packets"), 0u);
  EXPECT_EQ(r.generator["counters"], lossy.generator["counters"]);
  EXPECT_EQ(r.generator["injection"], lossy.generator["injection"]);
  // A lossless NIC starts one frame per free wire (a few more wakes than a lossy one's bursts);
  // a host that woke every ns until its next arrival ran 60 times the events (81417 against
  // 1362 before the fix).
  EXPECT_LE(r.events, 2 * lossy.events);
}

}  // namespace
}  // namespace spraylab::fabric
