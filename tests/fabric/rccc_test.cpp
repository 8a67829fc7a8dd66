// RCCC, UEC's receiver credits (`workload.cc: nscc+rccc`, `rccc`), in virtual time (issue 36):
// an incast of 16 senders into one host. With NSCC alone every sender starts at its full window
// and the receiver's downlink queue fills to the trimming threshold and stays high while the
// windows shrink; with receiver credits the senders spend their speculative start (as large as
// NSCC's first window: the queue fills once alike) and then send what the receiver pulls at its
// link rate, so that queue drains and stays well below. Every message completes either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

// trim_test.cpp's fabric: a two-level fat tree of 18 hosts (k = 6), 16 of them sending 256 KB to
// one more; trimming on, the UEC buffer defaults.
std::string incast(const std::string& cc) {
  return R"(seed: 3
topology: {generator: fat-tree, k: 6, levels: 2}
links: {rate: 100Gbps, delay: 500ns}
buffer: {trim: true}
load_balancer: {algorithm: ofan}
workload: {type: incast, fan_in: 16, message_size: 1MB, payload: 4096, cc: )" +
         cc + R"(}
measurement: {queue_sample: 1us}
)";
}

uint64_t counter(const FabricResult& r, const char* name) {
  const auto& c = r.generator["counters"];
  return c.contains(name) ? c[name].get<uint64_t>() : 0;
}

// The receiver's downlink: the leaf port down to a host that sent the most (the incast's 4 MB).
size_t receiver_port(const FabricResult& r) {
  size_t best = 0;
  for (size_t i = 0; i < r.ports.size(); ++i) {
    const PortSummary& p = r.ports[i];
    if ((p.layer == "leaf_down" || p.layer == "edge_down") && p.tx_bytes > r.ports[best].tx_bytes) {
      best = i;
    }
  }
  return best;
}

// Its queue over the run: the mean of the 1 µs samples, in bytes.
double receiver_mean_queue(const FabricResult& r) {
  const size_t port = receiver_port(r);
  double sum = 0;
  uint64_t n = 0;
  for (const QueueSample& q : r.samples) {
    if (q.port_index != port) continue;
    sum += q.bytes;
    ++n;
  }
  return n ? sum / static_cast<double>(n) : 0;
}

uint64_t trims(const FabricResult& r) {
  uint64_t n = 0;
  for (const PortSummary& p : r.ports) n += p.trims;
  return n;
}

void expect_complete(const FabricResult& r, const std::string& what) {
  ASSERT_TRUE(r.completed) << what << ": " << gen::to_string(r.stopped_by);
  ASSERT_EQ(r.generator["messages"].size(), 16u) << what;
  for (const auto& m : r.generator["messages"]) {
    EXPECT_TRUE(m["completed"].get<bool>()) << what << " message " << m["id"];
  }
}

TEST(ReceiverCredits, IncastKeepsTheReceiversQueueWellBelowNsccAlone) {
  const FabricResult nscc = testing::run_virtual(experiment(incast("nscc")));
  expect_complete(nscc, "nscc");
  EXPECT_EQ(counter(nscc, "tx_pull_packets"), 0u);  // no credits without rccc

  const FabricResult both = testing::run_virtual(experiment(incast("nscc+rccc")));
  expect_complete(both, "nscc+rccc");
  const FabricResult credits = testing::run_virtual(experiment(incast("rccc")));
  expect_complete(credits, "rccc");
  for (const FabricResult* r : {&both, &credits}) {
    // The receiver pulled (slow pulls may still be on their way at the end), every sender spent
    // credit for at least its message's frames.
    EXPECT_GT(counter(*r, "tx_pull_packets"), 0u);
    EXPECT_GT(counter(*r, "rx_pull_packets"), 0u);
    EXPECT_LE(counter(*r, "rx_pull_packets"), counter(*r, "tx_pull_packets"));
    EXPECT_GT(counter(*r, "credit_granted_bytes"), 0u);
    EXPECT_GE(counter(*r, "credit_spent_bytes"), 16u * 1024u * 1024u);
    EXPECT_EQ(r->generator["loss"]["timeouts"].get<uint64_t>(), 0u);
    // The speculative starts fill the queue once, as NSCC's initial windows do; after them the
    // receiver's pulls hold it down: over the run, under half NSCC's mean, and fewer trims.
    EXPECT_LT(2 * receiver_mean_queue(*r), receiver_mean_queue(nscc));
    EXPECT_LT(trims(*r), trims(nscc));
  }
  std::printf(
      "incast 16 x 1 MB, receiver downlink mean queue: nscc %.0f B (CCT %.1f us, %lu trims), "
      "nscc+rccc %.0f B (CCT %.1f us, %lu trims, %lu pulls), rccc %.0f B (CCT %.1f us, %lu "
      "trims)\n",
      receiver_mean_queue(nscc), nscc.generator["collectives"][0]["cct_ns"].get<double>() / 1e3,
      static_cast<unsigned long>(trims(nscc)), receiver_mean_queue(both),
      both.generator["collectives"][0]["cct_ns"].get<double>() / 1e3,
      static_cast<unsigned long>(trims(both)),
      static_cast<unsigned long>(counter(both, "tx_pull_packets")), receiver_mean_queue(credits),
      credits.generator["collectives"][0]["cct_ns"].get<double>() / 1e3,
      static_cast<unsigned long>(trims(credits)));
}

}  // namespace
}  // namespace spraylab::fabric
