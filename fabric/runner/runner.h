// `spraylab run`: every variant of an experiment on one fabric engine (fabric/run/result.h), one
// results folder per variant, a comparison table and plots. Usage and files: docs/runner.md.
//
// The runner knows the engines only through run_fabric() and run_namespaced() (the namespaced
// fabric of one process per node, fabric/namespaced/run_namespaced.h), both of which give a
// FabricResult.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric/namespaced/run_namespaced.h"
#include "fabric/run/result.h"
#include "fabric/run/variants.h"

namespace spraylab::fabric {

struct RunOptions {
  Mode mode = Mode::kVirtual;
  std::string out_dir;      // the results folder; empty: results/<experiment name>
  uint32_t lcores = 0;      // in-process: worker lcores (0: every EAL worker lcore)
  uint32_t eal_lcores = 1;  // recorded in run.json
  uint32_t threads = 0;     // virtual time: FabricOptions::threads (0: the default)
  // In-process: the fastest link at this rate and the experiment slowed down alike
  // (FabricOptions::inprocess_rate_bps, run/time_scale.h); 0: the variants as written.
  double inprocess_rate_bps = 0;
  double max_wall_seconds = 600;  // per variant
  // Per variant, on the fabric's clock (0: none); the experiment's measurement.duration, when
  // shorter, still applies.
  uint64_t max_clock_ns = 0;
  std::string command_line;  // recorded in each run.json
  // Names this set of variants in the table's header beside the experiment ("run switch" for a
  // reproduction's runs, so that two tables of one experiment tell themselves apart); "": none.
  std::string title;
  // The variants are points swept over seeds (--seeds): the table of means and 95 % intervals
  // over seeds follows the table (DIR/summary_seeds.{txt,csv}).
  bool seeds = false;
  namespaced::Options namespaced;  // Mode::kNamespaced: the fabric's links, rate, name, folder
  // --resume: a variant whose folder in the earlier results holds a run of the same experiment
  // that ended as designed (resume.h) is copied from there, not run again.
  bool resume = false;
  // Interrupted after some variants completed (or were reused): those are kept, the folder
  // replaced by them without the tables, so that --resume goes on from there. Off: an interrupted
  // run leaves the earlier folder as it was.
  bool keep_completed = false;
  // In-process: each variant's switches served on a metrics endpoint while it runs
  // (FabricOptions::switch_metrics; spraylab run --metrics-address).
  SwitchMetricsHook switch_metrics;
};

// The default results folder of an experiment, results/<name>.
std::string default_out_dir(const conf::Experiment& experiment);

// Throws std::invalid_argument when the results folder of `variants` (options.out_dir or the
// default) may not receive results (fabric/results/results_folder.h). Writes nothing.
void check_out_dir(const std::vector<Variant>& variants, const RunOptions& options);

// Thrown by run_variants() when SIGINT or SIGTERM stopped it: the results folder is as it was.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `variants` in order (EAL must be initialised), writes every file and prints the table
// on stdout and progress on stderr. The results folder is replaced whole when every file is
// written (fabric/results/results_folder.h); a run that throws leaves the earlier one as it was.
// Returns 0 when every variant completed its workload, 1 otherwise. Throws
// std::invalid_argument for a results folder it may not replace, std::runtime_error when a
// fabric cannot be built or a file not written. SIGINT or SIGTERM (Ctrl-C) stops the running
// variant at its next wall-clock check and throws Interrupted: the earlier results stay, as after
// a failed run (unless options.keep_completed), and EAL and the staging folder are cleaned up; a second signal ends the process
// at once, as a killed run. (The namespaced fabric takes its signals itself, takes the fabric
// down, and then ends the same way.) Mode::kNamespaced variants are the caller's to check
// (run's check_namespaced_variant, before -n and before any folder is made); the fabric's
// bring-up checks each again (namespaced::fabric_experiment_of).

int run_variants(const std::vector<Variant>& variants, const RunOptions& options);

}  // namespace spraylab::fabric
