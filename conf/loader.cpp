#include "conf/loader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "conf/bernoulli_check.h"
#include "conf/buffer_defaults.h"
#include "conf/schema.h"
#include "conf/sections.h"
#include "conf/units.h"
#include "conf/workload_ranks.h"

namespace spraylab::conf {
namespace {

constexpr std::array<std::string_view, 10> kTopLevel = {
    "name",          "seed",     "topology",    "links",  "buffer",
    "load_balancer", "workload", "measurement", "events", "reproduce"};

// injection: bernoulli's rule (conf/bernoulli_check.h), said at the file's key: the host plan
// would refuse the same once the fabric is built.
void check_bernoulli(const Map& map, const WorkloadSpec& w) {
  const std::optional<BernoulliProblem> problem =
      bernoulli_problem(w.type, w.message_bytes, w.payload_bytes, w.load_feasible, w.load);
  if (!problem) return;
  const Value* at = map.find(problem->key);
  (at != nullptr ? *at : *map.find("injection")).fail(problem->message);
}

// Paced hosts send at load x their link's rate: below 1 bit/s a packet's gap passes the ns clock,
// as a link slower than that would (Value::as_rate). Bernoulli's load is a probability instead.
void check_paced_rate(const Map& top, const Experiment& e) {
  const WorkloadSpec& w = e.workload;
  if (w.load_feasible || w.injection == gen::Injection::kBernoulli) return;
  double slowest = e.links.rate_bps;
  for (const ExplicitLink& l : e.topology.links) {
    slowest = std::min(slowest, l.rate_bps.value_or(slowest));
  }
  if (w.load * slowest >= 1) return;
  // Rates are >= 1 bit/s and load <= 1, so a load below 1 was written.
  Map(*top.find("workload"))
      .find("load")
      ->fail(fmt::format("load x the slowest link's rate ({}) is below 1 bit/s: a packet would "
                         "take longer than the ns clock counts",
                         format_rate(slowest)));
}

void read_workload(const Map& map, WorkloadSpec& workload) {
  const VariantTable& types = workload_types();
  if (const Value* type = map.find("type")) {
    workload.type = type->as_enum<gen::WorkloadType>(gen::kWorkloadTypeNames);
  }
  check_variant_keys(map, types, gen::to_string(workload.type), workload_fields());
  read_present(map, workload_fields(), workload);
  // skew and matrix only exist for all-to-all-v; they must agree.
  const Value* matrix = map.find("matrix");
  const std::string_view matrix_skew = gen::to_string(gen::Skew::kMatrix);
  if (workload.skew == gen::Skew::kMatrix && matrix == nullptr) {
    map.require("matrix",
                fmt::format("a square list of lists of numbers when skew is {}", matrix_skew));
  }
  if (workload.skew != gen::Skew::kMatrix && matrix != nullptr) {
    matrix->fail(fmt::format("a matrix is read only with skew: {}; found skew: {}", matrix_skew,
                             gen::to_string(workload.skew)));
  }
  if (workload.injection == gen::Injection::kBernoulli) check_bernoulli(map, workload);
  // REPS's own keys say nothing to the other modes: a file setting them meant reps.
  for (const char* key : {"reps_buffer", "reps_freezing"}) {
    const Value* v = map.find(key);
    if (v != nullptr && workload.entropy != gen::EntropyMode::kReps) {
      v->fail(fmt::format("read only with entropy: reps; found entropy: {}",
                          gen::to_string(workload.entropy)));
    }
  }
  // Likewise the bitmap selector's penalties, which mixed uses too.
  for (const char* key : {"bitmap_ecn_penalty", "bitmap_nack_penalty", "bitmap_max_penalty"}) {
    const Value* v = map.find(key);
    if (v != nullptr && !gen::uses_bitmap(workload.entropy)) {
      v->fail(fmt::format("read only with entropy: bitmap or mixed; found entropy: {}",
                          gen::to_string(workload.entropy)));
    }
  }
  // The UEC selectors index a flow's values with a mask (uec_mp.cpp: "must be a power of 2").
  // (The default, 64, is one.)
  const Value* range = map.find("entropy_range");
  if (range != nullptr && gen::needs_power_of_two_range(workload.entropy) &&
      !gen::is_power_of_two(workload.entropy_range)) {
    range->fail(fmt::format("entropy {} needs a power of two, found {}",
                            gen::to_string(workload.entropy), workload.entropy_range));
  }
  // fsdp: the model description is checked here, at the key at fault.
  if (workload.type == gen::WorkloadType::kFsdp) {
    if (const auto problem = gen::resolve_numbers(workload.fsdp).problem) {
      if (const Value* v = map.find(problem->key)) v->fail(problem->detail);
      map.self().fail(fmt::format("{} (the preset's {}, or the key missing)", problem->detail,
                                  problem->key));
    }
  }
  // So are each congestion control's.
  workload.tuning.initial_window_given = map.find("initial_window") != nullptr;
  for (const auto& [prefix, cc] : {std::pair{"nscc_", gen::CongestionControl::kNscc},
                                   std::pair{"mswift_", gen::CongestionControl::kMswift}}) {
    for (const auto& field : workload_fields()) {
      const Value* v = field.key.starts_with(prefix) ? map.find(field.key) : nullptr;
      if (v != nullptr && gen::sender_cc(workload.cc) != cc) {
        // nscc+rccc runs NSCC's window too: its keys apply there.
        v->fail(fmt::format("read only with cc: {}{}; found cc: {}", gen::to_string(cc),
                            cc == gen::CongestionControl::kNscc ? " or nscc+rccc" : "",
                            gen::to_string(workload.cc)));
      }
    }
  }
}

// DCTCP and NSCC react to ECN marks: with cc: dctcp or nscc and no buffer.ecn_threshold in the
// file, switches mark beyond 20% of the buffer (an explicit threshold, 0 included, is kept for
// DCTCP; NSCC cannot run without marks: its decrease needs an echo).
void default_ecn_threshold(const Map& top, Experiment& experiment) {
  // nscc+rccc's window is NSCC's; rccc alone reads no marks.
  const gen::CongestionControl cc = gen::sender_cc(experiment.workload.cc);
  if (cc != gen::CongestionControl::kDctcp && cc != gen::CongestionControl::kNscc) return;
  const Value* buffer = top.find("buffer");
  if (buffer != nullptr) {
    const Map section(*buffer);  // find() points into it: keep it while the value is used
    if (const Value* threshold = section.find("ecn_threshold")) {
      if (experiment.buffer.ecn_threshold == 0 && cc == gen::CongestionControl::kNscc) {
        threshold->fail(fmt::format(
            "cc: {} needs ECN marking (its only decrease is on an ECN echo): a threshold above 0, "
            "or no ecn_threshold for the default 20% of buffer.bytes",
            gen::to_string(experiment.workload.cc)));
      }
      return;
    }
  }
  experiment.buffer.ecn_threshold = static_cast<uint64_t>(
      BufferSpec::kDctcpEcnShare * static_cast<double>(experiment.buffer.bytes));
}

Experiment read_experiment(const Value& document, Checks checks) {
  if (!document.node().IsMap()) {
    document.expected("a map of experiment keys (" + join(kTopLevel) + ")");
  }
  const Map top(document);
  top.allow_only(kTopLevel);

  Experiment experiment;
  experiment.source = document.source();
  experiment.name = std::filesystem::path(document.source()).stem().string();
  read_present(top, experiment_fields(), experiment);
  experiment.topology.seed = experiment.seed;  // unless topology.seed overrides it

  read_topology(top.require("topology", "a map with a generator and its keys").as_map(),
                experiment.topology);
  if (const Value* links = top.find("links"))
    read_section(links->as_map(), link_fields(), experiment.links);
  const Value* buffer = top.find("buffer");
  const Value* workload = top.find("workload");
  {
    // The UEC defaults size the buffer by the workload's packets: read it first, as it will be.
    WorkloadSpec early = experiment.workload;
    if (workload != nullptr) read_workload(workload->as_map(), early);
    if (buffer != nullptr) buffer->as_map();  // "expected a map" before reading into it
    default_buffer_bytes(top, buffer, early, experiment);
  }
  if (buffer != nullptr) read_section(buffer->as_map(), buffer_fields(), experiment.buffer);
  if (const Value* balancer = top.find("load_balancer")) {
    read_balancer_plan(balancer->as_map(), experiment.topology, experiment.balancer);
  }
  if (workload != nullptr) {
    read_workload(workload->as_map(), experiment.workload);
    if (checks == Checks::kRun) check_workload_ranks(workload->as_map(), experiment);
  }
  default_ecn_threshold(top, experiment);
  check_paced_rate(top, experiment);
  default_uec_buffer(buffer, experiment);
  default_pfc(buffer, experiment);
  default_credit(buffer, experiment);
  check_virtual_channels(buffer, experiment);
  check_holds_a_frame(buffer, experiment);
  if (const Value* measurement = top.find("measurement")) {
    read_section(measurement->as_map(), measurement_fields(), experiment.measurement);
  }
  if (const Value* events = top.find("events")) {
    read_events(events->as_map(), experiment.measurement.duration_ns, experiment.events);
  }
  // A reproduction's runs, figures and checks (docs/reproduce.md) are read by `spraylab
  // reproduce`, not by the experiment: here it only has to be a map.
  if (const Value* reproduce = top.find("reproduce")) reproduce->as_map();
  return experiment;
}

// yaml-cpp's parse errors in the loader's one-line format.
YAML::Node parse_yaml(const std::string& yaml, const std::string& source_name) {
  try {
    return YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source_name, e.mark.line + 1, e.mark.column + 1, "",
                      "malformed YAML: " + e.msg);
  }
}

}  // namespace

Experiment load_experiment_string(const std::string& yaml, const std::string& source_name,
                                  Checks checks) {
  return read_experiment(Value(parse_yaml(yaml, source_name), "", &source_name), checks);
}

BalancerSpec load_balancer_string(const std::string& yaml, const std::string& source_name) {
  const Value document(parse_yaml(yaml, source_name), "load_balancer", &source_name);
  if (!document.node().IsMap()) document.expected("a map of load-balancer keys");
  return read_single_balancer(Map(document));
}

Experiment load_experiment_file(const std::string& path) {
  return load_experiment_string(read_experiment_text(path), path);
}

std::string read_experiment_text(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw ConfigError(path, 0, 0, "", "expected an experiment file, found a directory");
  }
  std::ifstream in(path);
  if (!in) {
    throw ConfigError(path, 0, 0, "",
                      fmt::format("cannot open the experiment file: {}", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace spraylab::conf
