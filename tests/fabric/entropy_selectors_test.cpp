// The UEC reference's entropy selectors (`workload.entropy: oblivious | bitmap | mixed`) drive a
// whole run in virtual time: every message completes, with their feedback in play (DCTCP's ECN
// echoes; drops and retransmission timeouts with a small buffer and no congestion control).
#include <gtest/gtest.h>

#include <string>

#include "fabric/run/result.h"
#include "tests/fabric/fabric_test_util.h"

namespace spraylab::fabric {
namespace {

using testing::experiment;

// The demo's k = 4 fat tree (conf/examples/demo.yaml) with ECMP switches, so the hosts' entropy
// alone chooses the paths, under an incast of 8 senders: the receiver's downlink queue is where
// ECN marks (cc dctcp) and drops (a small buffer, cc none) come from.
std::string fabric(const std::string& entropy, const std::string& buffer, const std::string& cc) {
  return R"(seed: 1
topology: {generator: fat-tree, k: 4, levels: 3}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: )" +
         buffer + R"(}
load_balancer: {algorithm: ecmp}
workload: {type: incast, fan_in: 8, message_size: 256KB, payload: 4096, entropy: )" +
         entropy + ", cc: " + cc + R"(}
measurement: {queue_sample: 10us}
)";
}

uint64_t sum_of(const FabricResult& r, const char* key) {
  uint64_t n = 0;
  for (const auto& m : r.generator["messages"]) n += m[key].get<uint64_t>();
  return n;
}

void expect_complete(const FabricResult& r, const std::string& what) {
  ASSERT_TRUE(r.completed) << what << ": " << gen::to_string(r.stopped_by);
  const auto& g = r.generator;
  ASSERT_EQ(g["messages"].size(), 8u) << what;
  for (const auto& m : g["messages"]) {
    EXPECT_TRUE(m["completed"].get<bool>()) << what << " message " << m["id"];
  }
  const auto& c = g["collectives"][0];
  EXPECT_GE(c["cct_ns"].get<double>(), c["bound_ns"].get<double>()) << what;
}

TEST(EntropySelectors, EachCompletesAVirtualRunWithEcnFeedback) {
  for (const char* entropy : {"oblivious", "bitmap", "mixed"}) {
    const FabricResult r = testing::run_virtual(experiment(fabric(entropy, "800KB", "dctcp")));
    expect_complete(r, entropy);
    EXPECT_GT(sum_of(r, "ecn_echoes"), 0u) << entropy << ": the ECN feedback was exercised";
  }
}

TEST(EntropySelectors, EachCompletesThroughDropsAndTimeouts) {
  for (const char* entropy : {"oblivious", "bitmap", "mixed"}) {
    const FabricResult r = testing::run_virtual(experiment(fabric(entropy, "64KB", "none")));
    expect_complete(r, entropy);
    EXPECT_GT(r.generator["loss"]["timeouts"].get<uint64_t>(), 0u)
        << entropy << ": the timeout feedback was exercised";
  }
}

}  // namespace
}  // namespace spraylab::fabric
