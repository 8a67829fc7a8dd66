// Valid files load into the typed structs with the documented defaults.
#include <gtest/gtest.h>

#include "tests/conf/load_helpers.h"

namespace spraylab::conf::testing {
namespace {

constexpr const char* kFatTree = "topology: {generator: fat-tree, k: 4}\n";

TEST(Loader, MinimalFileGetsEveryDefault) {
  const Experiment e = load(kFatTree);
  EXPECT_EQ(e.source, "test.yaml");
  EXPECT_EQ(e.topology.generator, topo::Kind::kFatTree);
  EXPECT_EQ(e.topology.k, 4u);
  EXPECT_EQ(e.topology.levels, 2u);
  EXPECT_DOUBLE_EQ(e.links.rate_bps, 100e9);
  EXPECT_DOUBLE_EQ(e.links.delay_ns, 500);
  EXPECT_EQ(e.buffer.bytes, 800'000u);
  EXPECT_EQ(e.balancer.fallback.algorithm, lb::Algorithm::kEcmp);
  EXPECT_EQ(e.workload.type, gen::WorkloadType::kPermutation);
  EXPECT_EQ(e.measurement.outputs, (std::vector<std::string>{"summary", "queues", "messages"}));
}

TEST(Loader, EntropyKeysReachTheWorkload) {
  const Experiment d = load("topology: {generator: fat-tree, k: 4}\n");
  EXPECT_EQ(d.workload.entropy_range, 64u);  // the UEC htsim reference's defaults
  EXPECT_EQ(d.workload.reps_buffer, 8u);
  EXPECT_TRUE(d.workload.reps_freezing);
  const Experiment e = load(
      "topology: {generator: fat-tree, k: 4}\n"
      "workload: {entropy: reps, entropy_range: 16384, reps_buffer: 16, reps_freezing: false}\n");
  EXPECT_EQ(e.workload.entropy_range, 16384u);
  EXPECT_EQ(e.workload.reps_buffer, 16u);
  EXPECT_FALSE(e.workload.reps_freezing);
}

TEST(Loader, BitmapPenaltiesDefaultToTheReferencesAndReachTheWorkload) {
  const Experiment d = load("topology: {generator: fat-tree, k: 4}\nworkload: {entropy: mixed}\n");
  EXPECT_EQ(d.workload.entropy, gen::EntropyMode::kMixed);
  EXPECT_EQ(d.workload.bitmap_ecn_penalty, 1);  // htsim uec_mp.cpp UecMpBitmap
  EXPECT_EQ(d.workload.bitmap_nack_penalty, 4);
  EXPECT_EQ(d.workload.bitmap_max_penalty, 15);
  const Experiment e = load(
      "topology: {generator: fat-tree, k: 4}\n"
      "workload: {entropy: bitmap, entropy_range: 16, bitmap_ecn_penalty: 0,\n"
      "           bitmap_nack_penalty: 9, bitmap_max_penalty: 200}\n");
  EXPECT_EQ(e.workload.entropy_range, 16u);
  EXPECT_EQ(e.workload.bitmap_ecn_penalty, 0);
  EXPECT_EQ(e.workload.bitmap_nack_penalty, 9);
  EXPECT_EQ(e.workload.bitmap_max_penalty, 200);
}

TEST(Loader, NameDefaultsToTheFileStem) {
  EXPECT_EQ(load_experiment_string(kFatTree, "dir/my-run.yaml").name, "my-run");
  EXPECT_EQ(load(std::string(kFatTree) + "name: other\n").name, "other");
}

TEST(Loader, ExperimentSeedIsTheTopologySeedUnlessGiven) {
  const char* mrls =
      "seed: 42\ntopology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3}\n";
  EXPECT_EQ(load(mrls).topology.seed, 42u);
  const char* seeded =
      "seed: 42\ntopology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3, seed: 7}\n";
  EXPECT_EQ(load(seeded).topology.seed, 7u);
  EXPECT_EQ(load(seeded).seed, 42u);
}

TEST(Loader, UnitsReachTheStructsInBaseUnits) {
  const Experiment e = load(std::string(kFatTree) + R"(links: {rate: 800G, delay: 0.5us}
buffer: {bytes: 1MiB, ecn_threshold: 10%}
workload: {message_size: 1MB, payload: 4096, retransmit_timeout: 2ms}
measurement: {queue_sample: 1us, duration: 1s}
load_balancer: {algorithm: jsq, state_update: 20us}
)");
  EXPECT_DOUBLE_EQ(e.links.rate_bps, 800e9);
  EXPECT_DOUBLE_EQ(e.links.delay_ns, 500);
  EXPECT_EQ(e.buffer.bytes, 1'048'576u);
  EXPECT_EQ(e.buffer.ecn_threshold, 104'857u);  // 10% of 1 MiB, rounded down
  EXPECT_EQ(e.workload.message_bytes, 1'000'000u);
  EXPECT_EQ(e.workload.payload_bytes, 4096u);
  EXPECT_EQ(e.workload.retransmit_timeout_ns, 2'000'000u);
  EXPECT_EQ(e.measurement.queue_sample_ns, 1000u);
  EXPECT_EQ(e.measurement.duration_ns, 1'000'000'000u);
  EXPECT_EQ(e.balancer.fallback.state_update_ns, 20'000u);
}

TEST(Loader, EcnThresholdMayBeAPlainSize) {
  EXPECT_EQ(load(std::string(kFatTree) + "buffer: {ecn_threshold: 80KB}\n").buffer.ecn_threshold,
            80'000u);
}

TEST(Loader, CongestionControlIsNoneByDefaultAndDctcpMarksAtAFifthOfTheBuffer) {
  const Experiment none = load(kFatTree);
  EXPECT_EQ(none.workload.cc, gen::CongestionControl::kNone);
  EXPECT_EQ(none.buffer.ecn_threshold, 0u);
  EXPECT_DOUBLE_EQ(none.workload.initial_window_bdp, 2);
  EXPECT_EQ(none.workload.initial_window_bytes, 0u);
  const Experiment dctcp = load(std::string(kFatTree) + "workload: {cc: dctcp}\n");
  EXPECT_EQ(dctcp.workload.cc, gen::CongestionControl::kDctcp);
  EXPECT_EQ(dctcp.buffer.ecn_threshold, 160'000u);  // 20% of 800 KB
  // A threshold the file gives is kept, 0 (no marking) included.
  EXPECT_EQ(load(std::string(kFatTree) + "buffer: {ecn_threshold: 50KB}\nworkload: {cc: dctcp}\n")
                .buffer.ecn_threshold,
            50'000u);
  EXPECT_EQ(load(std::string(kFatTree) + "buffer: {ecn_threshold: 0}\nworkload: {cc: dctcp}\n")
                .buffer.ecn_threshold,
            0u);
}

TEST(Loader, NsccMarksAtAFifthOfTheBufferAndTakesTheReferencesDefaults) {
  const Experiment nscc = load(std::string(kFatTree) + "workload: {cc: nscc}\n");
  EXPECT_EQ(nscc.workload.cc, gen::CongestionControl::kNscc);
  // Its buffer and ECN band are the UEC reference's (NsccDefaultsToFiveBdps... below).
  EXPECT_GT(nscc.buffer.ecn_threshold, 0u);
  EXPECT_GT(nscc.buffer.ecn_high, nscc.buffer.ecn_threshold);
  EXPECT_EQ(nscc.workload.tuning.nscc_target_delay_ns, 0u);  // the fabric's RTT
  EXPECT_EQ(nscc.workload.tuning.nscc_qa_gate, 3u);
  EXPECT_TRUE(nscc.workload.tuning.nscc_quick_adapt);
  EXPECT_FALSE(nscc.workload.tuning.initial_window_given);
  const Experiment set = load(std::string(kFatTree) +
                              "workload: {cc: nscc, nscc_target_delay: 3us, nscc_qa_gate: 2, "
                              "nscc_quick_adapt: false, initial_window: 1BDP}\n");
  EXPECT_EQ(set.workload.tuning.nscc_target_delay_ns, 3'000u);
  EXPECT_EQ(set.workload.tuning.nscc_qa_gate, 2u);
  EXPECT_FALSE(set.workload.tuning.nscc_quick_adapt);
  EXPECT_TRUE(set.workload.tuning.initial_window_given);
  const Experiment mswift = load(std::string(kFatTree) +
                                 "workload: {cc: mswift, mswift_subflows: 4, mswift_beta: 0.5}\n");
  EXPECT_EQ(mswift.workload.cc, gen::CongestionControl::kMswift);
  EXPECT_EQ(mswift.buffer.ecn_threshold, 0u);  // delay only: no marking by default
  EXPECT_EQ(mswift.workload.tuning.mswift_subflows, 4u);
  EXPECT_DOUBLE_EQ(mswift.workload.tuning.mswift_beta, 0.5);
  EXPECT_DOUBLE_EQ(mswift.workload.tuning.mswift_max_mdf, 0.5);
}

TEST(Loader, ReceiverCreditsWithNsccOrAlone) {
  const Experiment both =
      load(std::string(kFatTree) + "workload: {cc: nscc+rccc, nscc_qa_gate: 2}\n");
  EXPECT_EQ(both.workload.cc, gen::CongestionControl::kNsccRccc);
  EXPECT_EQ(gen::sender_cc(both.workload.cc), gen::CongestionControl::kNscc);
  EXPECT_TRUE(gen::receiver_credits(both.workload.cc));
  EXPECT_EQ(both.workload.tuning.nscc_qa_gate, 2u);  // NSCC's keys apply
  EXPECT_GT(both.buffer.ecn_threshold, 0u);   // and its ECN band
  EXPECT_GT(both.buffer.ecn_high, both.buffer.ecn_threshold);
  const Experiment alone = load(std::string(kFatTree) + "workload: {cc: rccc}\n");
  EXPECT_EQ(alone.workload.cc, gen::CongestionControl::kRccc);
  EXPECT_EQ(gen::sender_cc(alone.workload.cc), gen::CongestionControl::kNone);
  EXPECT_TRUE(gen::receiver_credits(alone.workload.cc));
  EXPECT_EQ(alone.buffer.ecn_threshold, 0u);  // no window to mark for
  EXPECT_FALSE(gen::receiver_credits(gen::CongestionControl::kNscc));
}

TEST(Loader, InitialWindowInBandwidthDelayProductsOrBytes) {
  const Experiment bdp = load(std::string(kFatTree) + "workload: {initial_window: 1.5BDP}\n");
  EXPECT_DOUBLE_EQ(bdp.workload.initial_window_bdp, 1.5);
  EXPECT_EQ(bdp.workload.initial_window_bytes, 0u);
  const Experiment bytes = load(std::string(kFatTree) + "workload: {initial_window: 64KB}\n");
  EXPECT_EQ(bytes.workload.initial_window_bytes, 64'000u);
}

TEST(Loader, ThreeLevelFatTree) {
  const Experiment e = load("topology: {generator: fat-tree, k: 12, levels: 3}\n");
  EXPECT_EQ(e.topology.k, 12u);
  EXPECT_EQ(e.topology.levels, 3u);
}

TEST(Loader, LeafSpineKeys) {
  const Experiment e =
      load("topology: {generator: leaf-spine, leaves: 4, spines: 2, hosts_per_leaf: 8}\n");
  EXPECT_EQ(e.topology.leaves, 4u);
  EXPECT_EQ(e.topology.spines, 2u);
  EXPECT_EQ(e.topology.hosts_per_leaf, 8u);
}

TEST(Loader, ExplicitIsImpliedBySwitchesAndKeepsPerLinkOverrides) {
  const Experiment e = load(R"(links: {rate: 100Gbps}
topology:
  switches: [{name: leaf0, level: 0}, {name: spine0, level: 1}]
  hosts: [h0]
  links:
    - [h0, leaf0]
    - {a: leaf0, b: spine0, rate: 400Gbps, delay: 1us}
)");
  const TopologySpec& t = e.topology;
  EXPECT_EQ(t.generator, topo::Kind::kExplicit);
  ASSERT_EQ(t.switches.size(), 2u);
  EXPECT_EQ(t.switches[1].name, "spine0");
  EXPECT_EQ(t.switches[1].level, 1u);
  EXPECT_EQ(t.hosts, std::vector<std::string>{"h0"});
  ASSERT_EQ(t.links.size(), 2u);
  EXPECT_EQ(t.links[0].a, "h0");
  EXPECT_FALSE(t.links[0].rate_bps.has_value());  // links.rate applies
  EXPECT_EQ(t.links[0].line, 6);
  EXPECT_EQ(t.links[1].b, "spine0");
  EXPECT_DOUBLE_EQ(*t.links[1].rate_bps, 400e9);
  EXPECT_DOUBLE_EQ(*t.links[1].delay_ns, 1000);
}

TEST(Loader, WorkloadTypeKeys) {
  const Experiment incast =
      load(std::string(kFatTree) + "workload: {type: incast, fan_in: 5, iterations: 3}\n");
  EXPECT_EQ(incast.workload.type, gen::WorkloadType::kIncast);
  EXPECT_EQ(incast.workload.fan_in, 5u);
  EXPECT_EQ(incast.workload.iterations, 3u);

  // Two hosts for a 2 x 2 matrix (the loader holds the matrix to the topology's hosts).
  const Experiment skewed = load("topology: {generator: leaf-spine, leaves: 2, spines: 1, "
                                 "hosts_per_leaf: 1}\n"
                                 "workload: {type: all-to-all-v, skew: matrix, "
                                 "matrix: [[0, 1], [2, 0]]}\n");
  EXPECT_EQ(skewed.workload.matrix, (std::vector<std::vector<double>>{{0, 1}, {2, 0}}));
}

TEST(Loader, MatrixMustBeSquareAndMatchSkew) {
  EXPECT_NE(load_error(std::string(kFatTree) +
                       "workload: {type: all-to-all-v, skew: matrix, matrix: [[0, 1]]}\n")
                .find("workload.matrix[0]: expected a row of 1 numbers"),
            std::string::npos);
  EXPECT_NE(load_error(std::string(kFatTree) + "workload: {type: all-to-all-v, matrix: [[0]]}\n")
                .find("workload.matrix: a matrix is read only with skew: matrix"),
            std::string::npos);
}

TEST(Loader, TraceFileIsRelativeToTheExperimentFile) {
  const std::string yaml = std::string(kFatTree) + "workload: {type: trace, trace_file: t.csv}\n";
  EXPECT_EQ(load_experiment_string(yaml, "runs/a.yaml").workload.trace_file, "runs/t.csv");
  const std::string absolute =
      std::string(kFatTree) + "workload: {type: trace, trace_file: /data/t.csv}\n";
  EXPECT_EQ(load_experiment_string(absolute, "runs/a.yaml").workload.trace_file, "/data/t.csv");
}

TEST(Loader, OutputsAreCheckedNamesWithoutRepeats) {
  EXPECT_EQ(load(std::string(kFatTree) + "measurement: {outputs: [summary, plots]}\n")
                .measurement.outputs,
            (std::vector<std::string>{"summary", "plots"}));
  EXPECT_NE(load_error(std::string(kFatTree) + "measurement: {outputs: [summary, summary]}\n")
                .find("duplicate output 'summary'"),
            std::string::npos);
}

TEST(Loader, PofanPipeIsQueueOrPortsW) {
  const std::string lb = std::string(kFatTree) + "load_balancer: {algorithm: pofan, pipe: ";
  EXPECT_EQ(load(lb + "ports:4}\n").balancer.fallback.pipe_ports, 4u);
  EXPECT_EQ(load(lb + "queue}\n").balancer.fallback.pipe_ports, 0u);  // one pipe per rx queue
  EXPECT_NE(load_error(lb + "ports:0}\n").find("expected 'queue' or 'ports:W' with W >= 1"),
            std::string::npos);
}

TEST(Loader, BooleansAndNumbers) {
  const Experiment e = load(std::string(kFatTree) +
                            "load_balancer: {algorithm: ofan, atomic_per_packet: true, "
                            "ack_size: 64}\nworkload: {load: 0.5}\n");
  EXPECT_TRUE(e.balancer.fallback.atomic_per_packet);
  EXPECT_EQ(e.balancer.fallback.ack_size, 64u);
  EXPECT_DOUBLE_EQ(e.workload.load, 0.5);
  EXPECT_NE(load_error(std::string(kFatTree) + "workload: {load: 0}\n")
                .find("expected a number in (0, 1], found 0"),
            std::string::npos);
}

}  // namespace
}  // namespace spraylab::conf::testing

namespace spraylab::conf::testing {
namespace {

// kFatTree's longest path: 4 links of 100 Gb/s and 500 ns; a 4178 B data frame out and an
// 86 B ACK back over each: 5365.8 ns, 67 KB, 17 frames (the reference rounds up to frames).
constexpr uint64_t kFrame = 4096 + 82;
constexpr uint64_t kBdpFrames = 17;

TEST(Loader, TrimmingDefaultsToOneBdpOfBufferTrimmedAtItsEnd) {
  const Experiment e = load(std::string(kFatTree) + "buffer: {trim: true}\n");
  EXPECT_TRUE(e.buffer.trim);
  EXPECT_EQ(e.buffer.bytes, kBdpFrames * kFrame);
  EXPECT_EQ(e.buffer.trim_threshold, e.buffer.bytes);
  EXPECT_EQ(e.buffer.ecn_threshold, 0u);  // cc none: no marking
  // What the file sets is kept.
  const Experiment set =
      load(std::string(kFatTree) + "buffer: {bytes: 400KB, trim: true, trim_threshold: 50%}\n");
  EXPECT_EQ(set.buffer.bytes, 400'000u);
  EXPECT_EQ(set.buffer.trim_threshold, 200'000u);
}

TEST(Loader, NsccDefaultsToFiveBdpsAndMarksBetweenAFifthAndFourFifthsOfABdp) {
  const Experiment e = load(std::string(kFatTree) + "workload: {cc: nscc}\n");
  EXPECT_FALSE(e.buffer.trim);
  EXPECT_EQ(e.buffer.bytes, 5 * kBdpFrames * kFrame);
  EXPECT_EQ(e.buffer.ecn_threshold, 4 * kFrame);  // ceil(0.2 x 17) frames
  EXPECT_EQ(e.buffer.ecn_high, 14 * kFrame);      // ceil(0.8 x 17) frames
  const Experiment trim =
      load(std::string(kFatTree) + "buffer: {trim: true}\nworkload: {cc: nscc}\n");
  EXPECT_EQ(trim.buffer.bytes, kBdpFrames * kFrame);
  EXPECT_EQ(trim.buffer.ecn_high, 14 * kFrame);
  // A threshold the file sets is kept (and no band is made up around it).
  const Experiment own =
      load(std::string(kFatTree) + "buffer: {ecn_threshold: 30KB}\nworkload: {cc: nscc}\n");
  EXPECT_EQ(own.buffer.ecn_threshold, 30'000u);
  EXPECT_EQ(own.buffer.ecn_high, 0u);
}

TEST(Loader, OtherExperimentsKeepTheirBuffer) {
  const Experiment none = load(kFatTree);
  EXPECT_EQ(none.buffer.bytes, 800'000u);
  EXPECT_FALSE(none.buffer.trim);
  EXPECT_EQ(none.buffer.ecn_high, 0u);
  EXPECT_EQ(load(std::string(kFatTree) + "workload: {cc: dctcp}\n").buffer.bytes, 800'000u);
}

}  // namespace
}  // namespace spraylab::conf::testing
