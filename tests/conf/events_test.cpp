// The events section (issue 13): link events and random failures, and their errors. Names are
// checked against the topology later (tests/runner/variants_test.cpp, "LinkEvents").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/conf/load_helpers.h"

namespace spraylab::conf::testing {
namespace {

using ::testing::HasSubstr;

const std::string kTopology =
    "topology: {generator: leaf-spine, leaves: 2, spines: 2, "
    "hosts_per_leaf: 2}\n";

TEST(Events, LinkEventsAndRandomFailuresAreRead) {
  const Experiment e = load(kTopology + R"(events:
  links:
    - {at: 20us, link: [leaf0, spine1], action: down}
    - {at: 20us, link: [leaf1, spine0], action: rate, rate: 25Gbps, from: spine0}
    - {at: 1ms, link: [leaf0, spine1], action: up}
  random_link_failures: 2
  random_failures_at: 5us
)");
  ASSERT_EQ(e.events.links.size(), 3u);
  EXPECT_EQ(e.events.links[0].at_ns, 20000u);
  EXPECT_EQ(e.events.links[0].a, "leaf0");
  EXPECT_EQ(e.events.links[0].b, "spine1");
  EXPECT_EQ(e.events.links[0].action, LinkAction::kDown);
  EXPECT_EQ(e.events.links[0].from, "");
  EXPECT_EQ(e.events.links[1].action, LinkAction::kRate);
  EXPECT_DOUBLE_EQ(e.events.links[1].rate_bps, 25e9);
  EXPECT_EQ(e.events.links[1].from, "spine0");
  EXPECT_EQ(e.events.links[1].path, "events.links[1]");
  EXPECT_EQ(e.events.links[1].line, 5);
  EXPECT_EQ(e.events.links[2].action, LinkAction::kUp);
  EXPECT_EQ(e.events.random_link_failures, 2u);
  EXPECT_EQ(e.events.random_failures_at_ns, 5000u);
  EXPECT_FALSE(e.events.empty());
  EXPECT_TRUE(load(kTopology).events.empty());
}

TEST(Events, AnEventBeforeThePreviousOneIsAnError) {
  EXPECT_EQ(load_error(kTopology + R"(events:
  links:
    - {at: 20us, link: [leaf0, spine1], action: down}
    - {at: 10us, link: [leaf0, spine1], action: up}
)"),
            "test.yaml:5:12: events.links[1].at: 10us is before the previous event's time (20us, "
            "at line 4); list events in time order");
}

TEST(Events, AnEventAtOrAfterTheDurationWouldNeverHappen) {
  EXPECT_EQ(load_error(kTopology + R"(measurement: {duration: 100us}
events:
  links: [{at: 100us, link: [leaf0, spine1], action: down}]
)"),
            "test.yaml:4:16: events.links[0].at: 100us is not before measurement.duration "
            "(100us): the event would never happen");
  EXPECT_THAT(load_error(kTopology + R"(measurement: {duration: 1ms}
events: {random_link_failures: 1, random_failures_at: 2ms}
)"),
              HasSubstr("events.random_failures_at: 2ms is not before measurement.duration"));
}

TEST(Events, ANegativeTimeIsAnError) {
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: -5us, link: [leaf0, spine1], "
                                     "action: down}]\n"),
              HasSubstr("events.links[0].at: expected a time such as"));
}

TEST(Events, BadRatesAreErrors) {
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1], "
                                     "action: rate, rate: 0Gbps}]\n"),
              HasSubstr("events.links[0].rate: expected a rate"));
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1], "
                                     "action: rate, rate: fast}]\n"),
              HasSubstr("events.links[0].rate: expected a rate such as"));
  EXPECT_EQ(
      load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1], "
                             "action: rate}]\n"),
      "test.yaml:3:11: events.links[0].rate: missing required key 'rate'; expected the link's "
      "new rate");
  EXPECT_EQ(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1], "
                                   "action: down, rate: 10Gbps}]\n"),
            "test.yaml:3:64: events.links[0].rate: a rate is read only with action: rate; found "
            "action: down");
}

TEST(Events, MalformedEntriesSayWhatIsExpected) {
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: 0ns, link: leaf0, action: down}]\n"),
              HasSubstr("events.links[0].link: expected a link [a, b]: the switches at its two "
                        "ends, found leaf0"));
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, leaf0], "
                                     "action: down}]\n"),
              HasSubstr("link joins 'leaf0' to itself"));
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1], "
                                     "action: off}]\n"),
              HasSubstr("events.links[0].action: expected one of down, up, rate"));
  EXPECT_THAT(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1]}]\n"),
              HasSubstr("missing required key 'action'"));
  EXPECT_EQ(load_error(kTopology + "events:\n  links: [{at: 0ns, link: [leaf0, spine1], "
                                   "action: down, from: spine0}]\n"),
            "test.yaml:3:64: events.links[0].from: 'spine0' is not an end of link [leaf0, "
            "spine1]; expected 'leaf0' or 'spine1'");
  EXPECT_THAT(load_error(kTopology + "events: {random_failures: 2}\n"),
              HasSubstr("events.random_failures: unknown key 'random_failures'"));
}

}  // namespace
}  // namespace spraylab::conf::testing
