// Every kind of error names the file, line and column, the key path, what was expected and what
// was found (issue 2, "conf/").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/yaml_value.h"
#include "tests/conf/load_helpers.h"

namespace spraylab::conf::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(ConfigErrors, OutOfRangeValueSaysExpectedAndFound) {
  EXPECT_EQ(load_error(R"(topology:
  generator: fat-tree
  k: 5
)"),
            "test.yaml:3:6: topology.k: expected an even integer >= 2, found 5");
}

TEST(ConfigErrors, ZeroRateSaysARateAboveZero) {
  EXPECT_THAT(load_error(R"(topology: {generator: fat-tree, k: 4}
links:
  rate: 0Gbps
)"),
              HasSubstr("links.rate: expected a rate above 0, found 0Gbps"));
}

// Refused while loading, at the key, not after minutes of building (topo/size_limit.h).
TEST(ConfigErrors, TopologyTooLargeToBuildIsRefusedAtItsKey) {
  EXPECT_EQ(load_error(R"(topology:
  generator: fat-tree
  k: 1000
  levels: 3
)"),
            "test.yaml:3:6: topology.k: 250000000 hosts, more than the 4194304 supported");
  EXPECT_EQ(load_error(R"(topology:
  generator: leaf-spine
  leaves: 2
  spines: 70000
  hosts_per_leaf: 1
)"),
            "test.yaml:4:11: topology.spines: a switch would have 70001 ports, more "
            "than the 65535 supported");
  EXPECT_EQ(load_error(R"(topology:
  generator: mrls
  leaves: 4194304
  uplinks: 1
  downlinks: 2
)"),
            "test.yaml:3:11: topology.leaves: 8388608 hosts, more than the 4194304 supported");
  // Few hosts, but switches and links without them: the spines of a leaf-spine, an MRLS of one
  // host a leaf (the routing table is a byte per pair of switches).
  EXPECT_EQ(load_error(R"(topology:
  generator: leaf-spine
  leaves: 65535
  spines: 65534
  hosts_per_leaf: 1
)"),
            "test.yaml:3:11: topology.leaves: 4294836225 links, more than the 16777216 supported");
  EXPECT_EQ(load_error(R"(topology:
  generator: mrls
  leaves: 3000000
  uplinks: 2
  downlinks: 1
)"),
            "test.yaml:3:11: topology.leaves: 5000000 switches, more than the 131072 supported "
            "(the routing table holds a byte per pair of switches)");
}

TEST(ConfigErrors, WrongTypeNamesTheKeyAndTheValueFound) {
  EXPECT_EQ(load_error(R"(topology:
  generator: leaf-spine
  leaves: four
  spines: 4
  hosts_per_leaf: 4
)"),
            "test.yaml:3:11: topology.leaves: expected an integer in [1, 4294967295], found four");
}

TEST(ConfigErrors, ControlCharactersInTheInputAreEscapedSoTheErrorStaysOneLine) {
  // A quoted scalar with a newline, quoted back in "found ...".
  EXPECT_EQ(load_error("seed: \"1\\n2\\t\\x01\"\ntopology: {generator: fat-tree, k: 4}\n"),
            "test.yaml:1:7: seed: expected an integer >= 0, found 1\\n2\\t\\x01");
  // yaml-cpp's own message ends with the bad escape character, here a control character.
  EXPECT_EQ(load_error("name: \"a\\\x01\"\n"),
            "test.yaml:1:11: malformed YAML: unknown escape character: \\x01");
}

// Found by tests/fuzz/loader_fuzz.cpp (UBSan): such times were cast to uint64_t out of range.
TEST(ConfigErrors, TimeBeyondWholeNanosecondsOrInfiniteIsRejected) {
  const std::string topology = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_EQ(load_error(topology + "measurement: {duration: 2e10s}\n"),
            "test.yaml:2:25: measurement.duration: expected a whole number of nanoseconds < 2^64, "
            "found 2e10s");
  EXPECT_THAT(load_error(topology + "measurement: {queue_sample: 1e300s}\n"),
              HasSubstr("measurement.queue_sample: expected a time such as"));
  EXPECT_THAT(load_error(topology + "links: {rate: 1e300T}\n"),
              HasSubstr("links.rate: expected a rate such as"));
}

TEST(ConfigErrors, SectionThatIsNotAMapSaysWhatItFound) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nlinks: [100Gbps]\n"),
            "test.yaml:2:8: links: expected a map, found a list");
}

TEST(ConfigErrors, BadUnitNamesTheAcceptedForms) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\nlinks:\n  rate: 100Gbs\n"),
              StartsWith("test.yaml:3:9: links.rate: expected a rate such as 100Gbps"));
}

TEST(ConfigErrors, UnknownKeySuggestsTheNearestValidKey) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nbuffr:\n  bytes: 1MB\n"),
            "test.yaml:2:1: buffr: unknown key 'buffr'; did you mean 'buffer'?");
}

TEST(ConfigErrors, UnknownNestedKeyHasItsFullPath) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nbuffer:\n  ecn_treshold: 10%\n"),
            "test.yaml:3:3: buffer.ecn_treshold: unknown key 'ecn_treshold'; did you mean "
            "'ecn_threshold'?");
}

TEST(ConfigErrors, StructFieldNameUsedAsAKeySuggestsTheYamlName) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {payload_bytes: 4096}\n"),
            "test.yaml:2:12: workload.payload_bytes: unknown key 'payload_bytes'; did you mean "
            "'payload'?");
}

TEST(ConfigErrors, EmptyValueIsReportedAtItsKey) {
  EXPECT_EQ(load_error("topology:\n  generator: fat-tree\n  k:\n  levels: 3\n"),
            "test.yaml:3:3: topology.k: expected an even integer >= 2, found nothing");
}

TEST(ConfigErrors, UnknownKeyFarFromAnyListsTheValidKeys) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nlinks: {colour: red}\n"),
            "test.yaml:2:9: links.colour: unknown key 'colour'; expected one of: rate, delay");
}

TEST(ConfigErrors, UnknownChoiceSuggestsTheNearest) {
  EXPECT_EQ(load_error("topology: {generator: fattree, k: 4}\n"),
            "test.yaml:1:23: topology.generator: expected one of fat-tree, leaf-spine, mrls, "
            "explicit, dragonfly, dragonfly-plus, oft, found fattree; did you mean 'fat-tree'?");
}

TEST(ConfigErrors, MissingRequiredKeyPointsAtItsMap) {
  EXPECT_THAT(load_error("name: x\ntopology:\n  generator: fat-tree\n  levels: 3\n"),
              StartsWith("test.yaml:3:3: topology.k: missing required key 'k'"));
}

TEST(ConfigErrors, MissingTopologyIsReported) {
  EXPECT_THAT(load_error("name: x\nseed: 3\n"),
              StartsWith("test.yaml:1:1: topology: missing required key 'topology'"));
}

TEST(ConfigErrors, TraceWorkloadRequiresATraceFile) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\nworkload:\n  type: trace\n"),
              StartsWith("test.yaml:3:3: workload.trace_file: missing required key 'trace_file'"));
}

// Names of algorithms, workload types, entropy modes and queue units are parsed once, here, into
// enums: a bad one is reported at its place with every valid name (from the name tables).
TEST(ConfigErrors, UnknownAlgorithmListsTheAlgorithmsAndSuggestsOne) {
  EXPECT_EQ(
      load_error("topology: {generator: fat-tree, k: 4}\nload_balancer:\n  algorithm: ofam\n"),
      "test.yaml:3:14: load_balancer.algorithm: expected one of ecmp, rps, rr, jsq, ar, "
      "topk, psp, ofan, pofan, polarized, ksp, dragonfly-min, ugal, fpar, found ofam; did you "
      "mean 'ofan'?");
}

TEST(ConfigErrors, UnknownAlgorithmInAnOverrideHasItsPath) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nload_balancer:\n  layers:\n"
                       "    1: {algorithm: random}\n"),
            "test.yaml:4:20: load_balancer.layers.1.algorithm: expected one of ecmp, rps, rr, "
            "jsq, ar, topk, psp, ofan, pofan, polarized, ksp, dragonfly-min, ugal, fpar, found "
            "random");
}

TEST(ConfigErrors, UnknownWorkloadTypeListsTheTypes) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload:\n  type: broadcast\n"),
            "test.yaml:3:9: workload.type: expected one of permutation, all-to-all, all-to-all-v, "
            "all-reduce, incast, fsdp, trace, uniform, switch-permutation, bipartite, found "
            "broadcast");
}

TEST(ConfigErrors, AnFsdpModelDescriptionIsCheckedAtTheKeyAtFault) {
  const std::string topo = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_EQ(load_error(topo + "workload: {type: fsdp, kv_heads: 3}\n"),
            "test.yaml:2:34: workload.kv_heads: 3 KV heads do not divide the 128 query heads");
  EXPECT_EQ(load_error(topo + "workload: {type: fsdp, model: custom, model_layers: 2, hidden: 64,"
                              " heads: 4, kv_heads: 2, vocab: 100}\n"),
            "test.yaml:2:11: workload: model custom needs every architecture number; ffn is "
            "missing or 0 (the preset's ffn, or the key missing)");
  EXPECT_EQ(load_error(topo + "workload: {type: fsdp, heads: 4}\n"),
            "test.yaml:2:11: workload: 8 KV heads do not divide the 4 query heads (the "
            "preset's kv_heads, or the key missing)");
  EXPECT_EQ(load_error(topo + "workload: {type: fsdp, model: llama3-8b, layers: 40}\n"),
            "test.yaml:2:50: workload.layers: llama3-8b has 32 layers, asked for 40");
  EXPECT_EQ(load_error(topo + "workload: {type: fsdp, model: gpt-4}\n"),
            "test.yaml:2:31: workload.model: expected one of llama3-405b, llama3-70b, llama3-8b, "
            "custom, found gpt-4");
}

TEST(ConfigErrors, UnknownEntropyModeListsTheModes) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {entropy: rep}\n"),
            "test.yaml:2:21: workload.entropy: expected one of flow, packet, reps, drb, oblivious, "
            "bitmap, mixed, found rep; did you mean 'reps'?");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {entropy: mixd}\n"),
            "test.yaml:2:21: workload.entropy: expected one of flow, packet, reps, drb, oblivious, "
            "bitmap, mixed, found mixd; did you mean 'mixed'?");
}

TEST(ConfigErrors, TheUecSelectorsNeedAPowerOfTwoRangeAndBitmapKeysNeedBitmap) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy: oblivious, entropy_range: 36}\n"),
            "test.yaml:2:47: workload.entropy_range: entropy oblivious needs a power of two, "
            "found 36");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy_range: 48, entropy: mixed}\n"),
            "test.yaml:2:27: workload.entropy_range: entropy mixed needs a power of two, found 48");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy: reps, bitmap_nack_penalty: 2}\n"),
            "test.yaml:2:48: workload.bitmap_nack_penalty: read only with entropy: bitmap or "
            "mixed; found entropy: reps");
  EXPECT_EQ(
      load_error("topology: {generator: fat-tree, k: 4}\n"
                 "workload: {entropy: bitmap, bitmap_max_penalty: 0}\n"),
      "test.yaml:2:49: workload.bitmap_max_penalty: expected an integer in [1, 255], found 0");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy: bitmap, bitmap_ecn_penalty: 256}\n"),
            "test.yaml:2:49: workload.bitmap_ecn_penalty: expected an integer in [0, 255], found "
            "256");
}

TEST(ConfigErrors, EntropyRangeAndRepsKeysAreCheckedAndRepsKeysNeedReps) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {entropy_range: 0}\n"),
            "test.yaml:2:27: workload.entropy_range: expected an integer in [1, 16384], found 0");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy: reps, reps_buffer: 0}\n"),
            "test.yaml:2:40: workload.reps_buffer: expected an integer in [1, 1024], found 0");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy: reps, reps_freezing: maybe}\n"),
            "test.yaml:2:42: workload.reps_freezing: expected true or false, found maybe");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {entropy: packet, reps_buffer: 4}\n"),
            "test.yaml:2:42: workload.reps_buffer: read only with entropy: reps; found entropy: "
            "packet");
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {reps_freezing: false}\n"),
            "test.yaml:2:27: workload.reps_freezing: read only with entropy: reps; found entropy: "
            "flow");
}

TEST(ConfigErrors, UnknownQueueUnitListsTheUnits) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "load_balancer: {algorithm: jsq, queue_unit: furlongs}\n"),
            "test.yaml:2:45: load_balancer.queue_unit: expected one of packets, bytes, found "
            "furlongs");
}

TEST(ConfigErrors, ParameterOfAnotherAlgorithmSaysWhatTheChosenOneTakes) {
  EXPECT_EQ(load_error(R"(topology: {generator: fat-tree, k: 4}
load_balancer:
  algorithm: ofan
  bands: 4
)"),
            "test.yaml:4:3: load_balancer.bands: 'bands' is not a parameter of algorithm 'ofan'; "
            "ofan takes ack_size, atomic_per_packet, consolidate");
}

TEST(ConfigErrors, ParameterOfAnotherGeneratorSaysWhatTheChosenOneTakes) {
  EXPECT_EQ(load_error("topology:\n  generator: fat-tree\n  k: 4\n  spines: 2\n"),
            "test.yaml:4:3: topology.spines: 'spines' is not a parameter of generator "
            "'fat-tree'; fat-tree takes k, levels, pods");
}

TEST(ConfigErrors, AlgorithmWithoutParametersSaysSo) {
  EXPECT_THAT(
      load_error("topology: {generator: fat-tree, k: 4}\nload_balancer: {algorithm: rps, k: 2}\n"),
      HasSubstr("load_balancer.k: 'k' is not a parameter of algorithm 'rps'; rps takes no "
                "parameters"));
}

TEST(ConfigErrors, ParameterOfAnotherWorkloadTypeIsRejected) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {fan_in: 4}\n"),
              HasSubstr("workload.fan_in: 'fan_in' is not a parameter of workload type "
                        "'permutation'; permutation takes no parameters"));
}

// The keys bounded by the rank count (one rank a host) are checked against the topology's
// parameters while loading, at their line: the workload builders found them only after the
// fabric was built, with no line (conf/workload_ranks.h).
TEST(ConfigErrors, WorkloadKeysBoundedByTheHostsAreRefusedAtTheirKey) {
  // fat-tree k = 4, 2 levels: 8 hosts.
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {type: incast, fan_in: 8}\n"),
            "test.yaml:2:34: workload.fan_in: incast's fan_in must be in 1..7 with the "
            "topology's 8 hosts (one rank each), found 8");
  // The default fan_in (8) on the same 8 hosts: said at the type that chose it.
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {type: incast}\n"),
            "test.yaml:2:18: workload.type: incast's fan_in must be in 1..7 with the "
            "topology's 8 hosts (one rank each), found 8 (the default)");
  // 3 levels: 16 hosts take it.
  EXPECT_NO_THROW(load("topology: {generator: fat-tree, k: 4, levels: 3}\n"
                       "workload: {type: incast, fan_in: 15}\n"));
  EXPECT_EQ(load_error("topology: {generator: leaf-spine, leaves: 2, spines: 1, "
                       "hosts_per_leaf: 2}\n"
                       "workload: {type: all-to-all-v, skew: matrix, matrix: [[0, 1], [1, 0]]}\n"),
            "test.yaml:2:54: workload.matrix: a 4 x 4 matrix, a row and a column per host of "
            "the topology; found 2 rows");
  EXPECT_NO_THROW(load("topology: {generator: leaf-spine, leaves: 2, spines: 1, "
                       "hosts_per_leaf: 1}\n"
                       "workload: {type: all-to-all-v, skew: matrix, matrix: [[0, 1], [1, 0]]}\n"));
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {type: fsdp, dp_group: 3}\n"),
            "test.yaml:2:34: workload.dp_group: dp_group 3 does not divide the topology's 8 "
            "hosts (one rank each) into shard groups of at least 2");
  EXPECT_NO_THROW(load("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {type: fsdp, dp_group: 4}\n"));
  // One host: no pair of ranks, said as such (not as a range 1..0).
  EXPECT_EQ(load_error("topology:\n"
                       "  switches: [{name: s0, level: 0}]\n"
                       "  hosts: [h0]\n"
                       "  links: [{a: h0, b: s0}]\n"
                       "workload: {type: incast, fan_in: 1}\n"),
            "test.yaml:5:18: workload.type: incast needs at least 2 ranks (one a host); the "
            "topology has 1 host");
  // A template (a file --set or --sweep change before each variant) waits for its variants.
  EXPECT_NO_THROW(load_experiment_string("topology: {generator: fat-tree, k: 4}\n"
                                         "workload: {type: incast, fan_in: 10}\n",
                                         "test.yaml", Checks::kTemplate));
  // An explicit topology's hosts are its list's.
  EXPECT_THAT(load_error("topology:\n"
                         "  switches: [{name: s0, level: 0}]\n"
                         "  hosts: [h0, h1, h2]\n"
                         "  links: [{a: h0, b: s0}, {a: h1, b: s0}, {a: h2, b: s0}]\n"
                         "workload: {type: incast, fan_in: 3}\n"),
              HasSubstr("test.yaml:5:34: workload.fan_in: incast's fan_in must be in 1..2 with "
                        "the topology's 3 hosts"));
}

constexpr const char* kTinyExplicit = R"(topology:
  switches:
    - {name: leaf0, level: 0}
    - {name: spine0, level: 1}
  hosts: [h0, h1]
  links:
    - [h0, leaf0]
    - [h1, leaf0]
    - {a: leaf0, b: spine0}
)";

TEST(ConfigErrors, TinyExplicitTopologyIsValid) { EXPECT_NO_THROW(load(kTinyExplicit)); }

TEST(ConfigErrors, LinkToAMissingSwitchSuggestsTheNearestName) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("b: spine0"), 9, "b: spine1");
  EXPECT_EQ(load_error(yaml),
            "test.yaml:9:21: topology.links[2].b: no switch or host named 'spine1'; did you mean "
            "'spine0'?");
}

TEST(ConfigErrors, LinkEndInListFormHasItsIndexInThePath) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("[h1, leaf0]"), 11, "[h1, leaf7]");
  EXPECT_THAT(load_error(yaml), StartsWith("test.yaml:8:12: topology.links[1][1]: no switch or "
                                           "host named 'leaf7'"));
}

TEST(ConfigErrors, DuplicateNamesPointAtTheSecondAndTheFirst) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("hosts: [h0, h1]"), 15, "hosts: [h0, h0]");
  EXPECT_EQ(load_error(yaml),
            "test.yaml:5:15: topology.hosts[1]: duplicate name 'h0' (first defined at 5:11)");
}

TEST(ConfigErrors, HostAndSwitchCannotShareAName) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("hosts: [h0, h1]"), 15, "hosts: [h0, leaf0]");
  EXPECT_THAT(load_error(yaml), StartsWith("test.yaml:5:15: topology.hosts[1]: duplicate name "
                                           "'leaf0' (first defined at 3:14)"));
}

TEST(ConfigErrors, DuplicateYamlKeyIsAnError) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nseed: 1\nseed: 2\n"),
            "test.yaml:3:1: seed: duplicate key 'seed' (first at 2:7)");
}

TEST(ConfigErrors, SelfLinkIsRejected) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("b: spine0"), 9, "b: leaf0");
  EXPECT_THAT(load_error(yaml), StartsWith("test.yaml:9:7: topology.links[2]: link joins 'leaf0' "
                                           "to itself"));
}

TEST(ConfigErrors, HostWithTwoLinksIsRejectedAtTheSecond) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("[h1, leaf0]"), 11, "[h0, spine0]");
  EXPECT_THAT(load_error(yaml), StartsWith("test.yaml:8:7: topology.links[1]: host 'h0' already "
                                           "has a link (at 7:7)"));
}

TEST(ConfigErrors, HostWithoutALinkIsRejected) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("hosts: [h0, h1]"), 15, "hosts: [h0, h1, h2]");
  EXPECT_EQ(load_error(yaml),
            "test.yaml:5:19: topology.hosts[2]: host 'h2' has no link; expected one link per host");
}

TEST(ConfigErrors, LinkBetweenTwoHostsIsRejected) {
  std::string yaml = kTinyExplicit;
  yaml.replace(yaml.find("[h1, leaf0]"), 11, "[h1, h0]");
  EXPECT_THAT(load_error(yaml), HasSubstr("topology.links[1]: link joins hosts 'h1' and 'h0'"));
}

TEST(ConfigErrors, BalancerForAMissingSwitchOfAnExplicitTopology) {
  std::string yaml = std::string(kTinyExplicit) +
                     "load_balancer:\n  algorithm: ofan\n  switches:\n    leaf1: {ack_size: 64}\n";
  EXPECT_EQ(load_error(yaml),
            "test.yaml:13:5: load_balancer.switches.leaf1: no switch named 'leaf1'; did you mean "
            "'leaf0'?");
}

TEST(ConfigErrors, BalancerLayerBeyondTheTopologysLevels) {
  EXPECT_EQ(load_error(R"(topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
load_balancer:
  layers:
    2: {algorithm: rps}
)"),
            "test.yaml:4:5: load_balancer.layers.2: expected a switch level in [0, 1], found 2");
}

TEST(ConfigErrors, MrlsNeedsWholeSpineCount) {
  EXPECT_EQ(load_error("topology: {generator: mrls, leaves: 7, uplinks: 3, downlinks: 3}\n"),
            "test.yaml:1:37: topology.leaves: expected leaves * uplinks divisible by the radix "
            "uplinks + downlinks = 6, found 7 * 3 = 21");
}

TEST(ConfigErrors, MrlsNeedsAtLeastRadixLeaves) {
  EXPECT_EQ(load_error("topology: {generator: mrls, leaves: 2, uplinks: 3, downlinks: 3}\n"),
            "test.yaml:1:37: topology.leaves: expected at least radix = uplinks + downlinks = 6 "
            "leaves, found 2");
}

// One uplink a leaf with several spines is disconnected whatever the draw: every one of
// max_tries draws failed, and the advice was more tries. One spine (leaves = radix) is fine.
// An ACK counter is 16 bits in the generator: a larger ack_every was refused by spraylab-gen
// only, under an option (--ack-every) the user never gave.
// Two letters swapped are one typo (optimal string alignment): `ofna` found no suggestion.
TEST(ConfigErrors, SwappedLettersFindTheNearestName) {
  const std::vector<std::string_view> names = {"ecmp", "rps", "ofan", "pofan"};
  EXPECT_EQ(nearest("ofna", names), std::optional<std::string_view>("ofan"));
  EXPECT_EQ(nearest("ecpm", names), std::optional<std::string_view>("ecmp"));
  EXPECT_EQ(edit_distance("ofna", "ofan"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(nearest("xyz", names), std::nullopt);
}

TEST(ConfigErrors, AckEveryAbove65535IsRefusedAtItsKey) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {ack_every: 65536}\n"),
            "test.yaml:2:23: workload.ack_every: expected an integer in [1, 65535], found 65536");
}

TEST(ConfigErrors, MrlsNeedsTwoUplinksWithSeveralSpines) {
  EXPECT_EQ(load_error("topology: {generator: mrls, leaves: 8, uplinks: 1, downlinks: 1}\n"),
            "test.yaml:1:49: topology.uplinks: expected at least 2 uplinks per leaf with N2 = 4 "
            "spines: with one, each leaf reaches one spine and the leaves form 4 islands "
            "whatever the wiring");
  EXPECT_NO_THROW(load("topology: {generator: mrls, leaves: 2, uplinks: 1, downlinks: 1}\n"));
}

TEST(ConfigErrors, OftNeedsAPrimeQ) {
  EXPECT_EQ(load_error("topology: {generator: oft, q: 4, hosts_per_leaf: 5}\n"),
            "test.yaml:1:31: topology.q: expected a prime (the projective plane is built over the "
            "integers mod q; prime powers are not implemented), found 4");
}

TEST(ConfigErrors, DragonflyGroupsMustSpreadTheGlobalLinksEvenly) {
  EXPECT_EQ(load_error("topology: {generator: dragonfly, hosts_per_router: 1, routers_per_group: "
                       "4, global_links_per_router: 2, groups: 4}\n"),
            "test.yaml:1:113: topology.groups: groups - 1 = 3 must divide "
            "routers_per_group·global_links_per_router = 8, so that every pair of groups gets the "
            "same number of global links");
  EXPECT_THAT(load_error("topology: {generator: dragonfly-plus, leaves_per_group: 2, "
                         "spines_per_group: 4, hosts_per_leaf: 2, global_links_per_spine: 2, "
                         "groups: 10}\n"),
              HasSubstr("topology.groups: groups must be between 2 and "
                        "spines_per_group·global_links_per_spine + 1 = 9 (one global link per "
                        "pair of groups), got 10"));
}

TEST(ConfigErrors, DragonflyTakesOnlyItsOwnKeys) {
  EXPECT_THAT(load_error("topology: {generator: dragonfly, hosts_per_router: 1, routers_per_group: "
                         "4, global_links_per_router: 2, q: 3}\n"),
              HasSubstr("q"));
}

TEST(ConfigErrors, PspNeedsAtLeastOneBand) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "load_balancer: {algorithm: psp, bands: 0}\n"),
              StartsWith("test.yaml:2:40: load_balancer.bands: expected an integer in [1, 1024]"));
}

TEST(ConfigErrors, EcnThresholdCannotExceedTheBuffer) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "buffer: {bytes: 100KB, ecn_threshold: 200KB}\n"),
              StartsWith("test.yaml:2:39: buffer.ecn_threshold: expected a size or a percentage "
                         "of buffer.bytes, at most 100KB, found 200KB"));
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\nbuffer: {ecn_threshold: 120%}\n"),
              HasSubstr("buffer.ecn_threshold: expected a percentage in [0%, 100%], found 120%"));
}

TEST(ConfigErrors, InitialWindowIsBandwidthDelayProductsOrASize) {
  for (const char* bad : {"0BDP", "-1BDP", "xBDP", "0", "lots"}) {
    EXPECT_THAT(load_error(std::string("topology: {generator: fat-tree, k: 4}\n"
                                       "workload: {initial_window: ") +
                           bad + "}\n"),
                HasSubstr("workload.initial_window: expected bandwidth-delay products (2BDP, "
                          "0.5BDP) or a size (64KB), found " +
                          std::string(bad)))
        << bad;
  }
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {cc: reno}\n"),
              HasSubstr("workload.cc: expected one of none, dctcp, nscc, mswift"));
}

TEST(ConfigErrors, PayloadOutsideItsRange) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\nworkload: {payload: 10}\n"),
            "test.yaml:2:21: workload.payload: expected a size in [64, 9KB], found 10");
}

TEST(ConfigErrors, MalformedYamlIsReportedWithItsPosition) {
  EXPECT_THAT(load_error("topology:\n  generator: [fat-tree\n"),
              ::testing::MatchesRegex("test\\.yaml:[0-9]+:[0-9]+: malformed YAML: .+"));
}

TEST(ConfigErrors, EmptyDocumentSaysWhatWasExpected) {
  EXPECT_THAT(load_error(""), StartsWith("test.yaml: expected a map of experiment keys"));
}

TEST(ConfigErrors, MissingFileNamesTheFile) {
  try {
    load_experiment_file("/nonexistent/lab.yaml");
    ADD_FAILURE() << "loaded a missing file";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/lab.yaml: cannot open the experiment file: No such file or directory");
  }
}

TEST(ConfigErrors, ErrorCarriesItsPartsSeparately) {
  try {
    load("topology:\n  generator: fat-tree\n  k: 5\n");
    ADD_FAILURE() << "loaded an odd k";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "test.yaml");
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.column(), 6);
    EXPECT_EQ(e.path(), "topology.k");
    EXPECT_EQ(e.message(), "expected an even integer >= 2, found 5");
  }
}

// The name becomes results/<name>: anything that would leave that one folder, hide it or cut the
// path short is rejected where the file says it (issue 12, "Exposure").
TEST(ConfigErrors, ANameThatIsNotOneFolderIsRejectedAtItsPosition) {
  const std::string topology = "topology: {generator: fat-tree, k: 4}\n";
  const std::string safe =
      " (letters, digits, '-', '_' and '.' after the first character are safe)";
  EXPECT_EQ(
      load_error("seed: 1\nname: ../x\n" + topology),
      "test.yaml:2:7: name: '../x' cannot name the results folder: it starts with '.'" + safe);
  EXPECT_EQ(load_error("name: '..'\n" + topology),
            "test.yaml:1:7: name: '..' cannot name the results folder: it starts with '.'" + safe);
  EXPECT_EQ(
      load_error("name: .hidden\n" + topology),
      "test.yaml:1:7: name: '.hidden' cannot name the results folder: it starts with '.'" + safe);
  EXPECT_EQ(load_error("name: runs/../../etc\n" + topology),
            "test.yaml:1:7: name: 'runs/../../etc' cannot name the results folder: it contains "
            "'/'" +
                safe);
  EXPECT_EQ(load_error("name: /tmp/x\n" + topology),
            "test.yaml:1:7: name: '/tmp/x' cannot name the results folder: it contains '/'" + safe);
  // YAML's "\0" escape: a NUL would end the path at "a".
  EXPECT_EQ(load_error("name: \"a\\0b\"\n" + topology),
            "test.yaml:1:7: name: 'a\\x00b' cannot name the results folder: it contains the "
            "control character \\x00" +
                safe);
  EXPECT_EQ(load_error("name: \"a\\nb\"\n" + topology),
            "test.yaml:1:7: name: 'a\\x0ab' cannot name the results folder: it contains the "
            "control character \\x0a" +
                safe);
  EXPECT_THAT(load_error("name: " + std::string(256, 'n') + "\n" + topology),
              StartsWith("test.yaml:1:7: name: 'nnn"));
  EXPECT_THAT(load_error("name: " + std::string(256, 'n') + "\n" + topology),
              HasSubstr("it is longer than 255 bytes (256)"));
  EXPECT_THAT(load_error("name: ''\n" + topology), StartsWith("test.yaml:1:7: name: expected"));
}

TEST(ConfigErrors, AFolderNameWithDotsInsideIsAName) {
  EXPECT_EQ(load("name: ofan-v1.2_run..3\ntopology: {generator: fat-tree, k: 4}\n").name,
            "ofan-v1.2_run..3");
  EXPECT_EQ(load("name: " + std::string(255, 'n') + "\ntopology: {generator: fat-tree, k: 4}\n")
                .name.size(),
            255u);
}

// NSCC decreases only on an ECN echo: an experiment that turns marking off cannot run it.
TEST(ConfigErrors, NsccWithoutEcnMarkingNamesTheThreshold) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "buffer: {ecn_threshold: 0}\n"
                       "workload: {cc: nscc}\n"),
            "test.yaml:2:25: buffer.ecn_threshold: cc: nscc needs ECN marking (its only decrease "
            "is on an ECN echo): a threshold above 0, or no ecn_threshold for the default 20% of "
            "buffer.bytes");
}

// nscc+rccc runs NSCC's window: the same. Receiver credits alone read no marks.
TEST(ConfigErrors, NsccRcccWithoutEcnMarkingNamesTheThreshold) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "buffer: {ecn_threshold: 0}\n"
                         "workload: {cc: nscc+rccc}\n"),
              HasSubstr("buffer.ecn_threshold: cc: nscc+rccc needs ECN marking"));
}

// Each congestion control's keys say nothing to the others: a file setting them meant that cc.
TEST(ConfigErrors, CongestionControlKeysNeedTheirCc) {
  EXPECT_EQ(load_error("topology: {generator: fat-tree, k: 4}\n"
                       "workload: {cc: dctcp, nscc_qa_gate: 2}\n"),
            "test.yaml:2:37: workload.nscc_qa_gate: read only with cc: nscc or nscc+rccc; found "
            "cc: dctcp");
  // Receiver credits alone run no NSCC window; there is no DCTCP or MSwift with credits.
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "workload: {cc: rccc, nscc_qa_gate: 2}\n"),
              HasSubstr("workload.nscc_qa_gate: read only with cc: nscc or nscc+rccc; found cc: "
                        "rccc"));
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "workload: {cc: dctcp+rccc}\n"),
              HasSubstr("workload.cc: expected one of none, dctcp, nscc, mswift, nscc+rccc, rccc"));
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "workload: {cc: nscc, mswift_subflows: 4}\n"),
              HasSubstr("workload.mswift_subflows: read only with cc: mswift; found cc: nscc"));
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "workload: {cc: mswift, mswift_subflows: 65}\n"),
              HasSubstr("workload.mswift_subflows: expected an integer in [1, 64], found 65"));
}

}  // namespace
}  // namespace spraylab::conf::testing

namespace spraylab::conf::testing {
namespace {

TEST(ConfigErrors, TrimThresholdCannotExceedTheBuffer) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "buffer: {bytes: 100KB, trim: true, trim_threshold: 200KB}\n"),
              StartsWith("test.yaml:2:52: buffer.trim_threshold: expected a size or a percentage "
                         "of buffer.bytes, at most 100KB, found 200KB"));
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "buffer: {bytes: 100KB, trim_threshold: 50KB}\n"),
              HasSubstr("buffer.trim_threshold: read only with trim: true"));
}

TEST(ConfigErrors, EcnHighMustBeAboveTheThreshold) {
  EXPECT_THAT(load_error("topology: {generator: fat-tree, k: 4}\n"
                         "buffer: {ecn_threshold: 50KB, ecn_high: 40KB}\n"),
              HasSubstr("buffer.ecn_high: ecn_high must be above ecn_threshold (50KB), or 0"));
}

TEST(ConfigErrors, TrimOnATopologyWithoutAKnownBdpNeedsTheBufferSize) {
  EXPECT_THAT(load_error("topology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3}\n"
                         "buffer: {trim: true}\n"),
              HasSubstr("buffer.bytes"));
  EXPECT_THAT(load_error("topology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3}\n"
                         "buffer: {trim: true}\n"),
              HasSubstr("known before the build for fat-tree and leaf-spine topologies only"));
}

// buffer.flow_control and buffer.pfc (issue 39): the derived thresholds, and every nonsense
// refused at its key.
TEST(ConfigErrors, PfcThresholdsDeriveFromTheLinkAndRefuseNonsense) {
  // Headroom: the round trip (2 x 500 ns at 100 Gb/s: 12500 B) + 2 data frames on the wire
  // (2 x (4096 + 82 + 24)) + a pause frame (60 + 24); XOFF the rest of the buffer; XON two data
  // frames (4178 B each) lower.
  const Experiment e = load("topology: {generator: fat-tree, k: 4}\n"
                            "links: {rate: 100Gbps, delay: 500ns}\n"
                            "buffer: {bytes: 100KB, flow_control: pfc}\n");
  EXPECT_EQ(e.buffer.flow_control, FlowControl::kPfc);
  EXPECT_EQ(e.buffer.pfc.headroom, 12500u + 2 * 4202 + 84);
  EXPECT_EQ(e.buffer.pfc.xoff, 100'000 - e.buffer.pfc.headroom);
  EXPECT_EQ(e.buffer.pfc.xon, e.buffer.pfc.xoff - 2 * 4178);
  EXPECT_EQ(load("topology: {generator: fat-tree, k: 4}\n").buffer.flow_control,
            FlowControl::kNone);

  const std::string top = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_THAT(load_error(top + "buffer: {flow_control: pfc, pfc: {xoff: 50KB, xon: 60KB}}\n"),
              HasSubstr("buffer.pfc.xon: xon (60KB) must be at most xoff (50KB)"));
  EXPECT_THAT(
      load_error(top + "buffer: {bytes: 100KB, flow_control: pfc, pfc: {xoff: 90KB}}\n"),
      HasSubstr("buffer.pfc.xoff: xoff (90KB) + headroom"));
  EXPECT_THAT(load_error(top + "buffer: {bytes: 10KB, flow_control: pfc}\n"),
              HasSubstr("buffer.flow_control: the PFC headroom (20988) leaves nothing of "
                        "buffer.bytes (10KB) below XOFF"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: pfc, trim: true}\n"),
              HasSubstr("buffer.flow_control: flow_control: pfc and trim: true do not combine"));
  EXPECT_THAT(load_error(top + "buffer: {pfc: {xoff: 50KB}}\n"),
              HasSubstr("buffer.pfc: read only with flow_control: pfc"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: lossless}\n"),
              HasSubstr("expected one of none, pfc, credit, found lossless"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: pfc, pfc: {xoff: 50KB, xof: 1}}\n"),
              HasSubstr("xof"));
}

// A tail-drop buffer or a trim threshold smaller than one data frame: every data frame dropped
// or trimmed, and the run could never complete (it spent its whole --timeout, then ended
// incomplete).
TEST(ConfigErrors, TheBufferAndTheTrimThresholdHoldADataFrame) {
  const std::string top = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_THAT(load_error(top + "buffer: {bytes: 1000}\n"),
              HasSubstr("buffer.bytes: buffer.bytes (1KB) is less than one data frame (4178 B: "
                        "4096 B of data + 82 B of headers): every data frame would be dropped; "
                        "at least 4178 B"));
  EXPECT_THAT(load_error(top + "buffer: {bytes: 4177}\n"), HasSubstr("at least 4178 B"));
  EXPECT_EQ(load(top + "buffer: {bytes: 4178}\n").buffer.bytes, 4178u);
  EXPECT_EQ(load(top + "buffer: {bytes: 1000}\nworkload: {payload: 512}\n").buffer.bytes, 1000u);
  // Messages smaller than a packet are frames of their own size.
  EXPECT_EQ(load(top + "buffer: {bytes: 1000}\nworkload: {message_size: 256}\n").buffer.bytes,
            1000u);
  EXPECT_THAT(load_error(top + "buffer: {bytes: 300}\nworkload: {message_size: 256}\n"),
              HasSubstr("(338 B: 256 B of data + 82 B of headers)"));
  EXPECT_THAT(load_error(top + "buffer: {bytes: 800KB, trim: true, trim_threshold: 1}\n"),
              HasSubstr("buffer.trim_threshold: buffer.trim_threshold (1) is less than one data "
                        "frame (4178 B: 4096 B of data + 82 B of headers): every data frame would "
                        "be trimmed; at least 4178 B"));
  EXPECT_THAT(load_error(top + "buffer: {bytes: 1000, trim: true}\n"),
              HasSubstr("buffer.bytes: buffer.bytes (1KB) is less than one data frame"));
  // Lossless buffers have their own checks (the credit loop's, PFC's headroom).
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, credit: {bytes: 4200}}\n"),
              HasSubstr("no frame could ever start"));
}

// What the run refused only once its fabric was built (the switch's balancer factory, the host
// plan), so a dry run passed it and a sweep failed after its earlier variants had run.
TEST(ConfigErrors, WhatTheRunRefusesTheLoaderRefusesAtItsKey) {
  const std::string mrls = "topology: {generator: mrls, leaves: 14, uplinks: 3, downlinks: 3}\n";
  EXPECT_THAT(load_error(mrls + "load_balancer: {algorithm: ksp, k: 0}\n"),
              HasSubstr("load_balancer.k: ksp needs 1 to 65534 paths per leaf pair, found 0"));
  EXPECT_THAT(load_error(mrls + "load_balancer: {algorithm: ksp, k: 70000}\n"),
              HasSubstr("load_balancer.k: ksp needs 1 to 65534 paths per leaf pair, found 70000"));
  EXPECT_EQ(load(mrls + "load_balancer: {algorithm: topk, k: 0}\n").balancer.fallback.k, 0u);
  const std::string top = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_THAT(load_error(top + "workload: {type: all-to-all, injection: bernoulli}\n"),
              HasSubstr("workload.injection: all-to-all is a collective (measured by its "
                        "completion time); bernoulli injects uniform, permutation, "
                        "switch-permutation or bipartite"));
  EXPECT_THAT(
      load_error(top + "workload: {type: uniform, injection: bernoulli, message_size: 1MB}\n"),
      HasSubstr("workload.message_size: uniform with injection: bernoulli draws a destination "
                "per packet: the message (1MB) must fit one packet (payload 4096 B)"));
  EXPECT_THAT(load_error(top + "workload: {injection: bernoulli, load: feasible}\n"),
              HasSubstr("workload.load: with injection: bernoulli the load is a probability per "
                        "packet slot; feasible is a paced rate: give a number"));
  EXPECT_THAT(load_error(top + "workload: {injection: bernoulli, load: 0.00001}\n"),
              HasSubstr("workload.load: expected at least 0.0001 arrivals per packet slot with "
                        "injection: bernoulli, found 1e-05"));
  EXPECT_EQ(load(top + "workload: {injection: bernoulli, load: 0.5}\n").workload.load, 0.5);
}

// Times and rates whose frames or delays would pass the 64-bit ns clock (a typo such as 1e12s):
// accepted, they overflowed the link's arithmetic (fabric/emu/link.h) without a word.
TEST(ConfigErrors, TimesAndRatesStayWithinTheNanosecondClock) {
  const std::string top = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_THAT(load_error(top + "links: {delay: 1e12s}\n"),
              HasSubstr("links.delay: expected a time of at most 2^53 ns (about 104 days), found "
                        "1e12s"));
  EXPECT_EQ(load(top + "links: {delay: 1s}\n").links.delay_ns, 1e9);
  EXPECT_THAT(load_error(top + "links: {rate: 1e-9}\n"),
              HasSubstr("links.rate: expected a rate of at least 1 bit/s, found 1e-9"));
  EXPECT_EQ(load(top + "links: {rate: 25Kbps}\n").links.rate_bps, 25e3);
  EXPECT_THAT(load_error(top + "links: {rate: 1Kbps}\nworkload: {load: 1e-300}\n"),
              HasSubstr("workload.load: load x the slowest link's rate (1Kbps) is below 1 bit/s: "
                        "a packet would take longer than the ns clock counts"));
  EXPECT_EQ(load(top + "links: {rate: 1Kbps}\nworkload: {load: 0.001}\n").workload.load, 0.001);
}

// buffer.flow_control: credit and buffer.credit (issue 39): the derived buffer, and every
// nonsense refused at its key.
TEST(ConfigErrors, CreditBufferDerivesFromTheLinkAndRefusesNonsense) {
  // The credit loop: the round trip (2 x 500 ns at 100 Gb/s: 12500 B) + 2 data frames on the
  // wire (2 x (4096 + 82 + 24)) + a credit frame (60 + 24); credits of 64 B.
  const std::string top = "topology: {generator: fat-tree, k: 4}\n";
  const Experiment e =
      load(top + "links: {rate: 100Gbps, delay: 500ns}\nbuffer: {flow_control: credit}\n");
  EXPECT_EQ(e.buffer.flow_control, FlowControl::kCredit);
  EXPECT_EQ(e.buffer.credit.bytes, 12500u + 2 * 4202 + 84);
  EXPECT_EQ(e.buffer.credit.unit, 64u);
  const Experiment set =
      load(top + "buffer: {flow_control: credit, credit: {bytes: 64KB, unit: 256}}\n");
  EXPECT_EQ(set.buffer.credit.bytes, 64'000u);
  EXPECT_EQ(set.buffer.credit.unit, 256u);

  // A data frame is 4178 B: 66 credits of 64 B (4224 B).
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, credit: {bytes: 4200}}\n"),
              HasSubstr("buffer.credit.bytes: buffer.credit.bytes (4200) holds 65 credits of 64 "
                        "B, less than a data frame (4178 B, 66 credits): no frame could ever "
                        "start; at least 4224 B"));
  // 5000 B of 3000 B credits is 1 credit; the frame takes 2.
  EXPECT_THAT(
      load_error(top + "buffer: {flow_control: credit, credit: {bytes: 5KB, unit: 3KB}}\n"),
      HasSubstr("buffer.credit.bytes: buffer.credit.bytes (5KB) holds 1 credits of 3000 B, less "
                "than a data frame (4178 B, 2 credits)"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, credit: {unit: 30KB}}\n"),
              HasSubstr("buffer.credit.unit: buffer.credit.bytes (20988) holds 0 credits"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, trim: true}\n"),
              HasSubstr("buffer.flow_control: flow_control: credit and trim: true do not "
                        "combine"));
  EXPECT_THAT(load_error(top + "buffer: {credit: {bytes: 50KB}}\n"),
              HasSubstr("buffer.credit: read only with flow_control: credit"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: pfc, credit: {bytes: 50KB}}\n"),
              HasSubstr("buffer.credit: read only with flow_control: credit"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, credit: {unit: 0}}\n"),
              HasSubstr("unit"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, credit: {byte: 50KB}}\n"),
              HasSubstr("byte"));
}

// buffer.virtual_channels (issue 39): 1 by default, up to 8 on lossless links; above 1 without
// them, or above 8, an error at the key.
TEST(ConfigErrors, VirtualChannels) {
  const std::string top = "topology: {generator: fat-tree, k: 4}\n";
  EXPECT_EQ(load(top).buffer.virtual_channels, 1u);
  EXPECT_EQ(load(top + "buffer: {flow_control: credit, virtual_channels: 3}\n")
                .buffer.virtual_channels,
            3u);
  EXPECT_EQ(load(top + "buffer: {flow_control: pfc, virtual_channels: 8}\n")
                .buffer.virtual_channels,
            8u);
  EXPECT_THAT(load_error(top + "buffer: {virtual_channels: 3}\n"),
              HasSubstr("buffer.virtual_channels: 3 needs lossless links "
                        "(flow_control: pfc or credit)"));
  // The key once: the loader's error names it before the message.
  EXPECT_THAT(load_error(top + "buffer: {virtual_channels: 3}\n"),
              Not(HasSubstr("buffer.virtual_channels: buffer.virtual_channels")));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, virtual_channels: 9}\n"),
              HasSubstr("integer in [1, 8]"));
  EXPECT_THAT(load_error(top + "buffer: {flow_control: credit, virtual_channels: 0}\n"),
              HasSubstr("integer in [1, 8]"));
}

}  // namespace
}  // namespace spraylab::conf::testing
