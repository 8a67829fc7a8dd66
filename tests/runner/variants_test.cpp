// Variants of `spraylab run`: algorithms crossed with sweeps, values set through key paths, and
// errors that point into the file the user wrote and name the option behind them.
#include "fabric/run/variants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "conf/loader.h"

namespace spraylab::fabric {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Line numbers matter: errors are checked against them.
constexpr const char* kFile =
    "name: t\n"                  // 1
    "seed: 1\n"                  // 2
    "topology:\n"                // 3
    "  generator: leaf-spine\n"  // 4
    "  leaves: 2\n"              // 5
    "  spines: 2\n"              // 6
    "  hosts_per_leaf: 2\n"      // 7
    "load_balancer:\n"           // 8
    "  algorithm: psp\n"         // 9
    "  bands: 8\n"               // 10
    "workload:\n"                // 11
    "  type: permutation\n"      // 12
    "  message_size: 1MB\n";     // 13, the value at column 17

VariantRequest sweeps(std::vector<std::string> specs) {
  VariantRequest r;
  for (const auto& s : specs) r.sweeps.push_back(parse_sweep(s, "--sweep"));
  return r;
}

std::string error_of(const VariantRequest& r) {
  try {
    expand_variants(kFile, "exp.yaml", r);
  } catch (const conf::ConfigError& e) {
    return e.what();
  } catch (const std::invalid_argument& e) {
    return std::string("invalid: ") + e.what();
  }
  return "no error";
}

TEST(Variants, WithoutRequestIsTheFileItselfNamedByItsAlgorithm) {
  auto v = expand_variants(kFile, "exp.yaml", {});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].name, "psp");
  EXPECT_TRUE(v[0].settings.empty());
  EXPECT_EQ(v[0].experiment.balancer.fallback.bands, 8u);
  EXPECT_EQ(v[0].experiment.workload.message_bytes, 1'000'000u);
}

TEST(Variants, SweepsAreCrossedWithTheLastVaryingFastest) {
  auto v = expand_variants(kFile, "exp.yaml",
                           sweeps({"workload.message_size=64KB,1MB", "links.rate=10Gbps,100G"}));
  std::vector<std::string> names;
  for (const auto& x : v) names.push_back(x.name);
  EXPECT_THAT(names,
              ElementsAre("psp-message_size=64KB-rate=10Gbps", "psp-message_size=64KB-rate=100G",
                          "psp-message_size=1MB-rate=10Gbps", "psp-message_size=1MB-rate=100G"));
  // Each variant's experiment carries its own values; links: did not exist in the file.
  EXPECT_EQ(v[0].experiment.workload.message_bytes, 64'000u);
  EXPECT_EQ(v[0].experiment.links.rate_bps, 10e9);
  EXPECT_EQ(v[3].experiment.workload.message_bytes, 1'000'000u);
  EXPECT_EQ(v[3].experiment.links.rate_bps, 100e9);
}

TEST(Variants, AlgorithmsComeFirstAndDropParametersTheyDoNotTake) {
  VariantRequest r = sweeps({"workload.message_size=64KB,1MB"});
  r.algorithms = {"psp", "ofan"};
  auto v = expand_variants(kFile, "exp.yaml", r);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].name, "psp-message_size=64KB");
  EXPECT_EQ(v[2].name, "ofan-message_size=64KB");
  EXPECT_EQ(v[0].experiment.balancer.fallback.bands, 8u);
  EXPECT_TRUE(v[0].notes.empty());
  EXPECT_EQ(v[2].experiment.balancer.fallback.algorithm, lb::Algorithm::kOfan);
  ASSERT_EQ(v[2].notes.size(), 1u);
  EXPECT_THAT(v[2].notes[0], HasSubstr("load_balancer.bands"));
  EXPECT_THAT(v[2].yaml, Not(HasSubstr("bands")));
}

TEST(Variants, SetAppliesToEveryVariantWithoutNamingIt) {
  VariantRequest r;
  r.algorithms = {"ecmp", "rps"};
  r.sets.push_back(parse_sweep("links.rate=5Gbps", "--set"));
  auto v = expand_variants(kFile, "exp.yaml", r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].name, "ecmp");
  EXPECT_EQ(v[1].name, "rps");
  EXPECT_EQ(v[0].experiment.links.rate_bps, 5e9);
  EXPECT_EQ(v[1].experiment.links.rate_bps, 5e9);
}

TEST(Variants, ResolvedYamlLoadsToTheSameExperimentUnderAnyFileName) {
  auto v = expand_variants(kFile, "exp.yaml", sweeps({"workload.message_size=64KB"}));
  const conf::Experiment again = conf::load_experiment_string(v[0].yaml, "out/config.yaml");
  EXPECT_EQ(again.name, "t");
  EXPECT_EQ(again.workload.message_bytes, 64'000u);
  EXPECT_EQ(again.balancer.fallback.bands, 8u);
}

TEST(Variants, ResolvedYamlKeepsTheDefaultNameOfTheFile) {
  std::string unnamed = std::string(kFile).substr(std::string(kFile).find('\n') + 1);
  auto v = expand_variants(unnamed, "dir/demo.yaml", {});
  EXPECT_EQ(conf::load_experiment_string(v[0].yaml, "x/config.yaml").name, "demo");
}

TEST(Variants, ListAndMapValuesMayHoldCommas) {
  Sweep s = parse_sweep("measurement.outputs=[summary, queues],[summary]", "--sweep");
  EXPECT_THAT(s.values, ElementsAre("[summary, queues]", "[summary]"));
  VariantRequest r;
  r.sweeps.push_back(s);
  auto v = expand_variants(kFile, "exp.yaml", r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_THAT(v[0].experiment.measurement.outputs, ElementsAre("summary", "queues"));
  EXPECT_THAT(v[1].experiment.measurement.outputs, ElementsAre("summary"));
  EXPECT_NE(v[0].name, v[1].name);
}

TEST(Variants, NestedKeysAndLayerOverridesCanBeSwept) {
  auto v = expand_variants(kFile, "exp.yaml", sweeps({"load_balancer.layers.1.algorithm=jsq"}));
  EXPECT_EQ(v[0].name, "psp-algorithm=jsq");
  EXPECT_EQ(v[0].experiment.balancer.per_layer.at(1).algorithm, lb::Algorithm::kJsq);
  EXPECT_EQ(v[0].experiment.balancer.per_layer.at(1).bands, 8u);  // inherited, as in a file
}

TEST(Variants, SweepsSharingALastKeyAreNamedInFull) {
  auto v = expand_variants(
      kFile, "exp.yaml",
      sweeps({"load_balancer.layers.1.algorithm=jsq", "load_balancer.layers.0.algorithm=rr"}));
  EXPECT_EQ(v[0].name,
            "psp-load_balancer.layers.1.algorithm=jsq-load_balancer.layers.0.algorithm=rr");
}

TEST(Variants, UnknownSweptKeyIsTheLoadersErrorAtItsMapNamingTheSweep) {
  const std::string e = error_of(sweeps({"workload.mesage_size=64KB"}));
  // The key is new, so the error points at the map it went into (workload, line 12).
  EXPECT_THAT(e, StartsWith("exp.yaml:12:3: workload.mesage_size: unknown key 'mesage_size'"));
  EXPECT_THAT(e, HasSubstr("did you mean 'message_size'"));
  EXPECT_THAT(e, HasSubstr("(from --sweep workload.mesage_size=64KB)"));
}

TEST(Variants, BadSweptValueIsTheLoadersErrorAtTheValueInTheFile) {
  const std::string e = error_of(sweeps({"workload.message_size=1MB,64KQ"}));
  EXPECT_THAT(e, StartsWith("exp.yaml:13:17: workload.message_size: expected a size"));
  EXPECT_THAT(e, HasSubstr("found 64KQ"));
  EXPECT_THAT(e, HasSubstr("(from --sweep workload.message_size=64KQ)"));
}

// Refused before any variant is loaded, at the option (not at the file's key, which the option
// replaces), with the file key's did-you-mean (issue 43, point 4).
TEST(Variants, UnknownAlgorithmNamesTheAlgorithmsOption) {
  VariantRequest r;
  r.algorithms = {"ofann"};
  const std::string e = error_of(r);
  EXPECT_THAT(e, HasSubstr("--algorithms ofann: expected one of ecmp, rps,"));
  EXPECT_THAT(e, HasSubstr("found ofann; did you mean 'ofan'?"));
  r.algorithms_option = "--algorithm";
  EXPECT_THAT(error_of(r), HasSubstr("--algorithm ofann: expected one of"));
}

TEST(Variants, SweptParameterTheAlgorithmDoesNotTakeIsAnError) {
  VariantRequest r = sweeps({"load_balancer.bands=2"});
  r.algorithms = {"psp", "ofan"};
  const std::string e = error_of(r);
  EXPECT_THAT(e, HasSubstr("'bands' is not a parameter of algorithm 'ofan'"));
  EXPECT_THAT(e, HasSubstr("(from --sweep load_balancer.bands=2)"));
}

TEST(Variants, SettingBelowAScalarIsAnErrorAtTheScalar) {
  const std::string e = error_of(sweeps({"seed.x=1"}));
  EXPECT_THAT(e, StartsWith("exp.yaml:2:7: seed.x:"));
  EXPECT_THAT(e, HasSubstr("not a map"));
}

TEST(Variants, TheFilesOwnErrorsAreTheLoadersUnchanged) {
  try {
    expand_variants("topology: {generator: fat-tree, k: 5}\n", "bad.yaml", sweeps({"seed=2"}));
    FAIL() << "no error";
  } catch (const conf::ConfigError& e) {
    EXPECT_THAT(e.what(), StartsWith("bad.yaml:1:"));
    EXPECT_THAT(e.what(), Not(HasSubstr("--sweep")));
  }
}

TEST(Variants, MalformedRequestsAreRejected) {
  EXPECT_THROW(parse_sweep("workload.message_size", "--sweep"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("=1MB", "--sweep"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("a..b=1", "--sweep"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("seed=1,1", "--sweep"), std::invalid_argument);
  EXPECT_THROW(parse_sweep("seed=1,", "--sweep"), std::invalid_argument);
  EXPECT_THAT(error_of(sweeps({"load_balancer.algorithm=ofan"})), HasSubstr("--algorithms"));
  EXPECT_THAT(error_of(sweeps({"seed=1", "seed=2"})), HasSubstr("twice"));
  VariantRequest twice;
  twice.algorithms = {"ofan", "ofan"};
  EXPECT_THAT(error_of(twice), HasSubstr("listed twice"));
}

TEST(VariantName, WithoutASweptKeyIsTheSeriesOfThatKeysPlot) {
  VariantRequest r = sweeps({"links.rate=10G", "workload.message_size=64KB", "seed=3"});
  r.algorithms = {"rps"};
  auto v = expand_variants(kFile, "exp.yaml", r);
  EXPECT_EQ(v[0].name, "rps-rate=10G-message_size=64KB-seed=3");
  EXPECT_EQ(name_without(v[0], "workload.message_size"), "rps-rate=10G-seed=3");
  EXPECT_EQ(name_without(v[0], "buffer.bytes"), v[0].name);
}

TEST(VariantName, IsDirectorySafe) {
  std::vector<Sweep> s = {{"load_balancer.layers.1", {"{algorithm: jsq}"}}};
  EXPECT_EQ(variant_name("ofan", s, {0}), "ofan-1=_algorithm__jsq_");
}

// Whatever the user types, a variant is one folder below the results folder (issue 12).
TEST(VariantName, NeverLeavesOrHidesItsFolder) {
  EXPECT_EQ(variant_name("..", {}, {}), "_.");
  EXPECT_EQ(variant_name(".", {}, {}), "_");
  EXPECT_EQ(variant_name(".hidden", {}, {}), "_hidden");
  EXPECT_EQ(variant_name("../../etc", {}, {}), "_._.._etc");
  std::vector<Sweep> s = {{"measurement.outputs", {"../../x", std::string("a\0b", 3), "/abs"}}};
  EXPECT_EQ(variant_name("ofan", s, {0}), "ofan-outputs=.._.._x");
  EXPECT_EQ(variant_name("ofan", s, {1}), "ofan-outputs=a_b");
  EXPECT_EQ(variant_name("ofan", s, {2}), "ofan-outputs=_abs");
  for (size_t i = 0; i < 3; ++i) {
    const std::string name = variant_name("ofan", s, {i});
    EXPECT_EQ(name.find('/'), std::string::npos) << name;
    EXPECT_EQ(name.find('\0'), std::string::npos) << name;
  }
}

TEST(Variants, AFileWithoutANameNeedsAStemThatIsOneFolder) {
  const std::string unnamed = std::string(kFile).substr(std::string(kFile).find('\n') + 1);
  EXPECT_EQ(expand_variants(unnamed, "runs/exp.v2.yaml", {})[0].experiment.name, "exp.v2");
  try {
    expand_variants(unnamed, "runs/.exp.yaml", {});
    ADD_FAILURE() << "a variant named by the stem '.exp'";
  } catch (const conf::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "runs/.exp.yaml: name: the file has no name: and its stem '.exp' cannot name the "
                 "results folder: it starts with '.'; give the experiment a name:");
  }
}

TEST(VariantName, TooLongForAFolderIsAnErrorNamingTheSweep) {
  const std::string value = "{algorithm: " + std::string(300, ' ') + "jsq}";
  const std::string e = error_of(sweeps({"load_balancer.layers.1=" + value}));
  EXPECT_THAT(e, StartsWith("invalid: variant 'psp-1=_algorithm_"));
  EXPECT_THAT(e, HasSubstr("cannot be a results folder: its name is longer than 255 bytes"));
  EXPECT_THAT(e, HasSubstr("shorten the values of --sweep load_balancer.layers.1="));
}

}  // namespace
}  // namespace spraylab::fabric

namespace spraylab::fabric {
namespace {

// Link events name switches and links of the topology: checked when the variants are made, at
// the entry's place in the file.
std::string events_error(const std::string& events) {
  const std::string file = std::string(kFile) + "events:\n" + events;  // events from line 14
  try {
    expand_variants(file, "exp.yaml", VariantRequest{});
  } catch (const conf::ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(LinkEvents, UnknownLinksHostsAndRatesAreErrorsAtTheEntry) {
  EXPECT_EQ(events_error("  links: [{at: 1us, link: [leaf0, spine7], action: down}]\n"),
            "exp.yaml:15:27: events.links[0].link: no switch named 'spine7'; did you mean "
            "'spine0'?");
  EXPECT_EQ(events_error("  links: [{at: 1us, link: [leaf0, leaf1], action: down}]\n"),
            "exp.yaml:15:27: events.links[0].link: no link between 'leaf0' and 'leaf1'");
  EXPECT_EQ(events_error("  links: [{at: 1us, link: [h0, leaf0], action: down}]\n"),
            "exp.yaml:15:27: events.links[0].link: 'h0' is a host; events act on links between "
            "two switches");
  EXPECT_EQ(events_error("  links: [{at: 1us, link: [leaf0, spine1], action: rate, "
                         "rate: 400Gbps}]\n"),
            "exp.yaml:15:64: events.links[0].rate: 400Gbps is above the link's own rate "
            "(100Gbps); a link event may only slow a link down or restore its rate");
  EXPECT_THAT(events_error("  random_link_failures: 5\n"),
              HasSubstr("events.random_link_failures: 5 random failures, but the topology has 4 "
                        "switch-to-switch links"));
}

}  // namespace
}  // namespace spraylab::fabric
