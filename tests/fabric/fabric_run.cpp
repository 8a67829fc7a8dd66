// A test-only driver of the fabric: runs one experiment in one mode and prints the result as JSON
// (the generator's results, the port summaries, the run's figures) on standard output. The
// integration tests and bench/virtual-432 use it; users run `spraylab run`.
//   fabric_run --config FILE [--mode virtual|inprocess] [--algorithm ALG] [--rate R] [--threads N]
//              [--progress]
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/emu/eal.h"
#include "fabric/emu/run_fabric.h"
#include "fabric/results/progress_line.h"
#include "fabric/run/result.h"

int main(int argc, char** argv) {
  using namespace spraylab;
  std::string config, mode = "virtual", algorithm, rate;
  uint32_t lcores = 1;
  uint64_t max_clock_ns = 0;
  uint32_t repeat = 1;
  uint32_t threads = 1;
  bool samples = false, messages = false, progress = false;
  CLI::App app{"fabric_run: one experiment on the in-process fabric (test driver)"};
  app.add_option("--config", config)->required()->check(CLI::ExistingFile);
  app.add_option("--mode", mode)->check(CLI::IsMember({"virtual", "inprocess"}));
  app.add_option("--algorithm", algorithm, "override load_balancer.algorithm");
  app.add_option("--rate", rate, "in-process link rate, e.g. 2Gbps");
  app.add_option("--lcores", lcores, "EAL lcores (in-process: 1 + workers)");
  app.add_option("--max-clock-ns", max_clock_ns, "stop the fabric clock here");
  app.add_option("--threads", threads, "virtual time: partitions, one thread each")
      ->check(CLI::PositiveNumber);
  double max_wall_seconds = 600;
  app.add_option("--max-wall-seconds", max_wall_seconds,
                 "stop the run after this much wall time (FabricOptions::max_wall_seconds)");
  app.add_option("--repeat", repeat,
                 "run this many times in this process (the mempool is filled once); the result "
                 "is the last run's, wall_seconds the fastest's");
  app.add_flag("--samples", samples, "include the queue samples");
  app.add_flag("--messages", messages, "keep the generator's per-message list");
  app.add_flag("--progress", progress, "a progress line on stderr every 5 s of wall time");
  CLI11_PARSE(app, argc, argv);
  try {
    conf::Experiment exp = conf::load_experiment_file(config);
    if (!algorithm.empty()) {
      exp.balancer = conf::BalancerPlan{};
      exp.balancer.fallback =
          conf::load_balancer_string("{algorithm: " + algorithm + "}", "--algorithm");
    }
    fabric::EalOptions eo;
    eo.lcores = lcores;
    eo.memory_mb = fabric::fabric_memory_mb(exp, threads);
    fabric::init_eal(eo, "fabric_run");
    fabric::FabricOptions fo;
    fo.mode = fabric::parse_mode(mode);
    fo.max_clock_ns = max_clock_ns;
    fo.max_wall_seconds = max_wall_seconds;
    fo.threads = threads;
    if (!rate.empty()) fo.inprocess_rate_bps = conf::parse_rate_bps(rate).value_or(0);
    if (progress) {
      fo.progress_period_ns = 5'000'000'000;
      fo.progress = [&exp](const fabric::Progress& p) {
        fmt::print(stderr, "{}\n", fabric::progress_text(exp.name, p));
      };
    }
    fabric::FabricResult r = fabric::run_fabric(exp, fo);
    double fastest = r.wall_seconds;
    for (uint32_t i = 1; i < repeat; ++i) {
      r = fabric::run_fabric(exp, fo);
      fastest = std::min(fastest, r.wall_seconds);
    }
    r.wall_seconds = fastest;
    nlohmann::ordered_json j;
    j["mode"] = fabric::mode_name(r.mode);
    j["completed"] = r.completed;
    j["stopped_by"] = std::string(gen::to_string(r.stopped_by));
    j["clock_ns"] = r.clock_ns;
    j["wall_seconds"] = r.wall_seconds;
    j["events"] = r.events;
    j["threads"] = r.threads;
    j["frame_pool"] = {{"frames", r.pool_frames}, {"grown_in_window", r.pool_grown_in_window}};
    j["stalled_ns"] = r.stalled_ns;
    j["time_scale"] = r.time_scale;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    j["peak_rss_kb"] = ru.ru_maxrss;  // the process's, over every --repeat
    j["generator"] = r.generator;
    if (!messages) j["generator"].erase("messages");
    for (const auto& p : r.ports) {
      j["ports"].push_back({{"switch", p.switch_name},
                            {"port", p.port},
                            {"peer", p.peer},
                            {"level", p.level},
                            {"max_packets", p.max_packets},
                            {"max_bytes", p.max_bytes},
                            {"p99_bytes", p.p99_bytes},
                            {"tx_packets", p.tx_packets},
                            {"tx_bytes", p.tx_bytes},
                            {"utilisation", p.utilisation},
                            {"drops", p.drops},
                            {"trims", p.trims},
                            {"ecn_marks", p.ecn_marks}});
    }
    if (samples) {
      for (const auto& s : r.samples)
        j["samples"].push_back({s.t_ns, s.port_index, s.packets, s.bytes});
    }
    fmt::print("{}\n", j.dump());
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabric_run: {}\n", e.what());
    return 2;
  }
}
