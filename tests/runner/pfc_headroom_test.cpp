// fabric/namespaced/pfc_headroom.h and its use by fabric_experiment: on a namespaced fabric the
// PFC headroom covers a sleep of the receiver and one of the sender at the link's rate, with a
// late sender's burst each, at most a ring each; the file's own headroom is kept; a buffer that
// cannot hold the headroom is refused before any process starts.
#include "fabric/namespaced/pfc_headroom.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "conf/buffer_defaults.h"
#include "conf/loader.h"
#include "fabric/namespaced/launcher.h"
#include "fabric/namespaced/plan.h"

namespace spraylab::fabric::namespaced {
namespace {

using ::testing::HasSubstr;

// namespaced_pfc_test.py's link: 2 Mb/s, its 1 us stretched x500, 1000 B payloads, the
// default --idle-sleep, two frames of shaper slack, a memif ring.
PollingLink test_link() { return {{2e6, 500e3}, 1000, 20'000'000, 2 * (1000 + 128), 512}; }

TEST(PollingPfcHeadroom, EachSideIsASleepAtTheRateAndABurst) {
  const PollingLink l = test_link();
  // 20 ms at 2 Mb/s is 5000 B.
  EXPECT_EQ(sleep_in_flight_bytes(l), 5000u + 2256u);
  // The wire's round trip (250 B), two 1106 B frames on the wire and the 84 B pause.
  EXPECT_EQ(conf::pfc_headroom_bytes(l.links, l.payload_bytes), 250u + 2 * 1106u + 84u);
  EXPECT_EQ(polling_pfc_headroom_bytes(l), 2546u + 2 * 7256u);
}

TEST(PollingPfcHeadroom, ARingHoldsAtMostItsFrames) {
  PollingLink l = test_link();
  l.links.rate_bps = 1e9;  // 20 ms is 2.5 MB, more than 512 frames of 1106 B
  EXPECT_EQ(sleep_in_flight_bytes(l), 512u * 1106u);
}

TEST(PollingPfcHeadroom, BusyPollingLeavesTheBursts) {
  PollingLink l = test_link();
  l.sleep_ns = 0;
  EXPECT_EQ(polling_pfc_headroom_bytes(l), 2546u + 2 * 2256u);
}

// The experiment the fabric's processes read, from a file of `buffer` at 2 Mb/s over memif.
std::string fabric_yaml(const std::string& buffer) {
  const std::string path =
      ::testing::TempDir() + "pfc_headroom_" + std::to_string(getpid()) + ".yaml";
  std::ofstream(path) << "name: nspfc\n"
                         "topology: {generator: leaf-spine, leaves: 2, spines: 1, "
                         "hosts_per_leaf: 2}\n"
                         "links: {rate: 1Gbps, delay: 1us}\n"
                      << "buffer: " << buffer << "\n"
                      << "workload: {type: incast, fan_in: 3, message_size: 48KB, payload: 1000}\n";
  Options o;
  o.experiment = path;
  o.rate = "2Mbps";
  double rate = 0, scale = 0;
  std::string yaml;
  try {
    yaml = fabric_experiment(o, &rate, &scale);
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
  std::filesystem::remove(path);
  return yaml;
}

conf::PfcSpec pfc_of(const std::string& yaml) {
  return conf::load_experiment_string(yaml, "fabric").buffer.pfc;
}

TEST(PollingPfcHeadroom, IsTheDefaultOfANamespacedFabric) {
  const conf::PfcSpec p = pfc_of(fabric_yaml("{bytes: 32KB, flow_control: pfc}"));
  EXPECT_EQ(p.headroom, 17058u);
  EXPECT_EQ(p.xoff, 32'000u - 17058u);
}

TEST(PollingPfcHeadroom, TheFilesOwnHeadroomIsKept) {
  const conf::PfcSpec p =
      pfc_of(fabric_yaml("{bytes: 32KB, flow_control: pfc, pfc: {headroom: 4KB}}"));
  EXPECT_EQ(p.headroom, 4000u);
}

TEST(PollingPfcHeadroom, ABufferThatCannotHoldItIsRefused) {
  try {
    fabric_yaml("{bytes: 16KB, flow_control: pfc}");
    FAIL() << "a 16 KB buffer took a 17058 B headroom";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("the PFC headroom its links need (17058 B"));
    EXPECT_THAT(e.what(), HasSubstr("does not fit in buffer.bytes (16000 B) with room below XOFF"));
  }
  try {
    fabric_yaml("{bytes: 32KB, flow_control: pfc, pfc: {xoff: 20KB}}");
    FAIL() << "xoff 20 KB + 17058 B took a 32 KB buffer";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("above buffer.pfc.xoff (20000 B)"));
  }
}

TEST(PollingPfcHeadroom, FlowControlOtherThanPfcSetsNone) {
  EXPECT_THAT(fabric_yaml("{bytes: 32KB}"), ::testing::Not(HasSubstr("headroom")));
}

}  // namespace
}  // namespace spraylab::fabric::namespaced
