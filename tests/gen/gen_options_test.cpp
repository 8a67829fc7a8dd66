#include "trafficgen/gen_options.h"

#include <gtest/gtest.h>

#include <vector>

namespace spraylab::gen {
namespace {

// add_to's parse of to_argv's command line.
GenOptions parsed(const std::vector<std::string>& argv) {
  GenOptions o;
  CLI::App app;
  o.add_to(app);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 takes them in reverse
  app.parse(reversed);
  return o;
}

TEST(GenOptions, DefaultsWriteOnlyTheRequiredOptions) {
  GenOptions o;
  o.config = "/dev/null";
  o.hosts = "h0-h3";
  EXPECT_EQ(o.to_argv(), (std::vector<std::string>{"--config", "/dev/null", "--hosts", "h0-h3"}));
}

TEST(GenOptions, EveryOptionSetSurvivesToArgvAndAddTo) {
  GenOptions o;
  o.config = "/dev/null";
  o.hosts = "h0,h1";
  o.port_map = "0,0";
  o.rate = "0.5";
  o.ack_every = 4;
  o.entropy = "packet";
  o.rto = "2ms";
  o.loss = 0.01;
  o.payload = 1400;
  o.back_to_back = true;
  o.duration = 2.5;
  o.timeout = 300;
  o.start_at = 1e9;
  o.start_file = "/run/x/start";
  o.idle_sleep = "20ms";
  o.rt_priority = 1;
  o.warmup = 0;
  o.link_wait = 120;
  o.linger = 0.5;
  o.hold = true;
  o.results = "/tmp/g.json";  // its folder must exist (kWritableFile)
  o.progress = true;
  o.stats_json = "/tmp/s.json";
  o.metrics.set_address("0.0.0.0:9562");
  const GenOptions p = parsed(o.to_argv());
  EXPECT_EQ(p.to_argv(), o.to_argv());
  EXPECT_EQ(p.config, o.config);
  EXPECT_EQ(p.hosts, o.hosts);
  EXPECT_EQ(p.port_map, o.port_map);
  EXPECT_EQ(p.rate, o.rate);
  EXPECT_EQ(p.ack_every, o.ack_every);
  EXPECT_EQ(p.entropy, o.entropy);
  EXPECT_EQ(p.rto, o.rto);
  EXPECT_EQ(p.loss, o.loss);
  EXPECT_EQ(p.payload, o.payload);
  EXPECT_EQ(p.back_to_back, o.back_to_back);
  EXPECT_EQ(p.duration, o.duration);
  EXPECT_EQ(p.timeout, o.timeout);
  EXPECT_EQ(p.start_at, o.start_at);
  EXPECT_EQ(p.start_file, o.start_file);
  EXPECT_EQ(p.idle_sleep, o.idle_sleep);
  EXPECT_EQ(p.rt_priority, o.rt_priority);
  EXPECT_EQ(p.warmup, o.warmup);
  EXPECT_EQ(p.link_wait, o.link_wait);
  EXPECT_EQ(p.linger, o.linger);
  EXPECT_EQ(p.hold, o.hold);
  EXPECT_EQ(p.results, o.results);
  EXPECT_EQ(p.progress, o.progress);
  EXPECT_EQ(p.stats_json, o.stats_json);
  EXPECT_EQ(p.metrics.to_argv(), o.metrics.to_argv());
}

}  // namespace
}  // namespace spraylab::gen

namespace spraylab::gen {
namespace {

// Values that read as "not given" (an --ack-every of 0, a negative --warmup or --linger) and an
// output file whose folder does not exist (the run went on and wrote nothing) are refused when
// the command line is read (a review found each one silently accepted).
TEST(GenOptions, ValuesThatMeantNotGivenAndUnwritableFilesAreRefused) {
  const std::vector<std::string> base = {"--config", "/dev/null", "--hosts", "h0"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), more.begin(), more.end());
    return argv;
  };
  EXPECT_EQ(parsed(with({"--ack-every", "65535"})).ack_every, 65535u);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--ack-every", "0"}, {"--ack-every", "65536"},
        {"--warmup", "-5"}, {"--linger", "-1"},
        {"--results", "/nonexistent-spraylab-dir/r.json"},
        {"--stats-json", "/nonexistent-spraylab-dir/s.json"}, {"--results", "/tmp"}}) {
    EXPECT_THROW(parsed(with(bad)), CLI::ValidationError) << bad[0] << " " << bad[1];
  }
  try {
    parsed(with({"--results", "/nonexistent-spraylab-dir/r.json"}));
  } catch (const CLI::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "the folder /nonexistent-spraylab-dir of /nonexistent-spraylab-dir/r.json "
                  "does not exist"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(parsed(with({"--warmup", "0", "--linger", "0"})).warmup, 0);
}

}  // namespace
}  // namespace spraylab::gen
