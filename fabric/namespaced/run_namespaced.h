// `spraylab run --mode namespaced`: one variant of an experiment on a namespaced fabric (one
// spraylab-switch per switch, one spraylab-gen per leaf's hosts, each in its own network
// namespace: fabric/namespaced/launcher.h), reported as the same FabricResult the other modes give,
// so the runner's summary, table and plots are the ones of every mode (docs/runner.md says which
// fields are wall-clock here).
//
// Per variant: `fabric up` (the variant's experiment, the rate applied), the switches' queue
// maxima reset, every generator released at one moment, the switches' queues and delivered
// bytes sampled over telemetry while they run, each generator's results and each switch's
// counters and exact queue maxima collected, then `fabric down` -- also when anything throws or
// SIGINT / SIGTERM arrives (then it throws std::runtime_error("interrupted") after the fabric is
// down).
#pragma once

#include <memory>
#include <string>

#include "fabric/namespaced/launcher.h"
#include "fabric/run/result.h"

namespace spraylab::fabric {

// Runs variants one after the other, each on a namespaced fabric. Consecutive variants that
// differ in their load_balancer section only share one fabric: the next balancer is set on
// every switch over telemetry (/spraylab/lb_set) and a fresh set of generators is started, which
// takes seconds where a new fabric takes 15-25 s here. The options are fabric up's
// (namespaced::Options: its experiment is each variant's, its name "run<pid>" when empty). A
// variant that did not complete, or threw, takes its fabric down; so does the destructor. While it
// lives, SIGINT and SIGTERM only set a flag: the next wait throws std::runtime_error("interrupted")
// and the fabric goes down.
class NamespacedRunner {
 public:
  explicit NamespacedRunner(namespaced::Options o);
  ~NamespacedRunner();
  NamespacedRunner(const NamespacedRunner&) = delete;
  NamespacedRunner& operator=(const NamespacedRunner&) = delete;

  // Runs the experiment `yaml` (a variant's whole text, as its config.yaml). Uses
  // opts.max_wall_seconds (the run, not the fabric's start), opts.max_clock_ns (experiment time:
  // stretched by the time scale), opts.progress. Needs root. Throws std::runtime_error when the
  // fabric does not come up (its logs stay in its folder).
  FabricResult run(const std::string& yaml, const FabricOptions& opts);
  // Takes the fabric down now (the destructor's work), and removes its folder's run files when
  // every variant completed.
  void finish();

 private:
  FabricResult run_once(const std::string& yaml, const FabricOptions& opts);
  // The variant's fabric up: the running one with its balancer set and fresh generators when
  // only the balancer differs, else a new one.
  void bring_up(const std::string& yaml, const FabricOptions& opts);
  void down();
  namespaced::Options o_;
  std::unique_ptr<class StopSignals> signals_;
  std::string name_, dir_;
  bool up_ = false;
  std::string fabric_key_;  // the running fabric's experiment without its load_balancer
  bool all_completed_ = true;
};

}  // namespace spraylab::fabric
