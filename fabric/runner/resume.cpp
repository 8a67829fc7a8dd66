#include "fabric/runner/resume.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>

#include "fabric/results/summary_reader.h"
#include "fabric/run/text_file.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

// The experiment as the runs see it: the file without its reproduce: section, emitted in one
// form (key order as written, comments and quoting gone).
std::string run_settings(const std::string& yaml) {
  YAML::Node node = YAML::Load(yaml);
  if (node.IsMap()) node.remove("reproduce");
  YAML::Emitter out;
  out << node;
  return out.c_str();
}

}  // namespace

bool stopped_as_designed(std::string_view stopped_by, const conf::Experiment& experiment) {
  return stopped_by == gen::to_string(gen::StopReason::kCompleted) ||
         (stopped_by == gen::to_string(gen::StopReason::kDuration) &&
          experiment.measurement.duration_ns > 0);
}

std::optional<VariantSummary> reusable_run(const std::string& folder, const Variant& v,
                                           std::string* why_not) {
  const fs::path dir(folder);
  const auto config = read_file((dir / "config.yaml").string());
  const auto summary = read_file((dir / "summary.json").string());
  if (!config || !summary) {
    *why_not = fmt::format("{}: no earlier run (config.yaml and summary.json)", folder);
    return std::nullopt;
  }
  try {
    if (run_settings(*config) != run_settings(v.yaml)) {
      *why_not = fmt::format("{}/config.yaml: another experiment than this run's", folder);
      return std::nullopt;
    }
    // Another engine gives other numbers for the same experiment and seed: its run does not stand
    // for this one (kVirtualTimeEngine; run.json without the key: engine 1).
    const auto run = read_file((dir / "run.json").string());
    const auto run_json = nlohmann::json::parse(run.value_or("{}"), nullptr, false);
    const uint64_t engine = run_json.is_object() ? run_json.value("virtual_time_engine", 1u) : 0u;
    if (engine != kVirtualTimeEngine) {
      *why_not = fmt::format(
          "{}: made by virtual-time engine {}, this is engine {} (other numbers for the same seed)",
          folder, engine, kVirtualTimeEngine);
      return std::nullopt;
    }
    const std::string path = (dir / "summary.json").string();
    VariantSummary s = summary_from_json(nlohmann::ordered_json::parse(*summary), path);
    if (!stopped_as_designed(gen::to_string(s.stopped_by), v.experiment)) {
      *why_not =
          fmt::format("{}: the earlier run stopped by {}", folder, gen::to_string(s.stopped_by));
      return std::nullopt;
    }
    return s;
  } catch (const std::exception& e) {
    // YAML, JSON or summary errors: the folder is not a run to stand for this one; it runs again.
    *why_not = fmt::format("{}: unreadable ({})", folder, e.what());
    return std::nullopt;
  }
}

}  // namespace spraylab::fabric
