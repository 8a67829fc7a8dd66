// Packet trimming with NACKs in virtual time (issue 36): an incast of 16 senders into one host.
// With trimming the switch cuts what would overflow to its headers, the receiver NACKs each at
// once and the sender resends it at once: every message completes without a retransmission
// timeout. Without trimming the same incast overflows the buffer and waits for timeouts.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

// A two-level fat tree of 18 hosts (k = 6); 16 of them send 256 KB each to one more, at line rate
// (cc none). No buffer.bytes: the UEC defaults size it, 1 BDP with trimming, 5 without.
std::string incast(bool trim) {
  return std::string(R"(seed: 3
topology: {generator: fat-tree, k: 6, levels: 2}
links: {rate: 100Gbps, delay: 500ns}
buffer: {trim: )") +
         (trim ? "true" : "false") + R"(}
load_balancer: {algorithm: ofan}
workload: {type: incast, fan_in: 16, message_size: 256KB, payload: 4096, cc: none}
measurement: {queue_sample: 1us}
)";
}

uint64_t counter(const FabricResult& r, const char* name) {
  return r.generator["counters"][name].get<uint64_t>();
}

uint64_t trims(const FabricResult& r) {
  uint64_t n = 0;
  for (const PortSummary& p : r.ports) n += p.trims;
  return n;
}

uint64_t messages_done(const FabricResult& r) {
  uint64_t n = 0;
  for (const auto& m : r.generator["messages"]) n += m["completed"].get<bool>() ? 1 : 0;
  return n;
}

TEST(Trimming, IncastCompletesWithoutTimeoutsWhereDroppingWaitsForThem) {
  const FabricResult trimmed = testing::run_virtual(experiment(incast(true)));
  ASSERT_TRUE(trimmed.completed) << gen::to_string(trimmed.stopped_by);
  EXPECT_EQ(messages_done(trimmed), 16u);
  EXPECT_EQ(trimmed.generator["loss"]["timeouts"].get<uint64_t>(), 0u);
  EXPECT_GT(trims(trimmed), 0u);
  // Every trimmed header came back as a NACK, and each NACK as a resend at once (a header
  // whose packet arrived meanwhile gets none; nothing here is lost on the way).
  EXPECT_EQ(counter(trimmed, "rx_trimmed_headers"), trims(trimmed));
  EXPECT_EQ(counter(trimmed, "rx_nack_packets"), counter(trimmed, "tx_nack_packets"));
  EXPECT_GT(counter(trimmed, "nack_retransmits"), 0u);
  EXPECT_EQ(counter(trimmed, "nack_retransmits"), counter(trimmed, "retransmits"));

  const FabricResult dropped = testing::run_virtual(experiment(incast(false)));
  ASSERT_TRUE(dropped.completed) << gen::to_string(dropped.stopped_by);
  EXPECT_EQ(trims(dropped), 0u);
  EXPECT_GT(dropped.generator["loss"]["timeouts"].get<uint64_t>(), 0u);
  std::printf(
      "incast 16 x 256 KB: trimming %lu trims, %lu NACK resends, CCT %.1f us; "
      "dropping %lu timeouts, CCT %.1f us\n",
      static_cast<unsigned long>(trims(trimmed)),
      static_cast<unsigned long>(counter(trimmed, "nack_retransmits")),
      trimmed.generator["collectives"][0]["cct_ns"].get<double>() / 1e3,
      static_cast<unsigned long>(dropped.generator["loss"]["timeouts"].get<uint64_t>()),
      dropped.generator["collectives"][0]["cct_ns"].get<double>() / 1e3);
}

}  // namespace
}  // namespace spraylab::fabric
