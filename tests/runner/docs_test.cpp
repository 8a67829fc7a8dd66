// docs/runner.md documents every key of summary.json and every column of summary.csv: a key
// added to the code and not to the docs fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "fabric/results/summary.h"
#include "fabric/results/table.h"
#include "trafficgen/stop_reason.h"

namespace spraylab::fabric {
namespace {

std::string docs(const char* doc = "docs/runner.md") {
  std::ifstream in(std::filesystem::path(SPRAYLAB_SOURCE_DIR) / doc);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A summary with every optional part present: a level, a hot port.
VariantSummary full_summary() {
  FabricResult r;
  r.ports.resize(1);
  r.ports[0].max_bytes = 1;
  r.ports[0].layer = "edge_up";
  return summarize(r, "v", "ofan", "virtual");
}

// Dotted key paths of `j`'s leaves, with list items as `[]` and level numbers as `<level>`.
void leaves(const nlohmann::ordered_json& j, const std::string& path,
            std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      const bool level = path == "queue.by_level";
      const bool layer = path == "queue.by_layer";
      const std::string step = level ? "<level>" : layer ? "<layer>" : key;
      leaves(value, path.empty() ? step : path + "." + step, out);
    }
  } else if (j.is_array() && !j.empty() && j[0].is_object()) {
    leaves(j[0], path + "[]", out);
  } else {
    out.push_back(path);
  }
}

// `key`, in backticks. Built by appending: GCC 12 reports a false -Wrestrict on
// "`" + std::string + "`".
std::string ticked(const std::string& key) {
  std::string out(1, '`');
  out.append(key).push_back('`');
  return out;
}

TEST(RunnerDocs, EverySummaryKeyIsDocumented) {
  const std::string text = docs();
  ASSERT_FALSE(text.empty());
  std::vector<std::string> keys;
  leaves(to_json(full_summary()), "", keys);
  ASSERT_GT(keys.size(), 30u);
  for (const std::string& key : keys) {
    // "queue.by_level.<level>.max_bytes" is documented as its section plus queue's own keys;
    // "hottest_ports[].switch" as the list and its item keys.
    const size_t level = key.find(".<level>.");
    const size_t layer = key.find(".<layer>.");
    const size_t item = key.find("[].");
    if (layer != std::string::npos) {
      // "queue.by_layer.<layer>.mean_bytes": its section, and queue's own keys (means included).
      EXPECT_NE(text.find("`queue.by_layer.<layer>`"), std::string::npos);
      EXPECT_NE(text.find(ticked("queue." + key.substr(layer + 9))), std::string::npos) << key;
    } else if (level != std::string::npos) {
      EXPECT_NE(text.find("`queue.by_level.<level>`"), std::string::npos);
      EXPECT_NE(text.find(ticked("queue." + key.substr(level + 9))), std::string::npos) << key;
    } else if (item != std::string::npos) {
      EXPECT_NE(text.find(ticked(key.substr(0, item + 2))), std::string::npos) << key;
      EXPECT_NE(text.find(ticked(key.substr(item + 3))), std::string::npos) << key;
    } else {
      EXPECT_NE(text.find(ticked(key)), std::string::npos) << key;
    }
  }
}

TEST(RunnerDocs, EveryCsvColumnIsDocumented) {
  const std::string text = docs();
  const std::string csv = format_csv({});
  std::stringstream header(csv.substr(0, csv.find('\n')));
  int columns = 0;
  for (std::string column; std::getline(header, column, ',');) {
    ++columns;
    // In the docs' list of columns: "`variant, mode, ..., out_of_order_fraction`".
    const std::regex listed("[\\s`]" + column + "[,`]");
    EXPECT_TRUE(std::regex_search(text, listed)) << column;
  }
  EXPECT_GT(columns, 10);
}

// The `stopped_by` rows of docs/runner.md (the fabric's runs) and docs/generator.md
// (spraylab-gen) together name every stop reason, and name nothing else.
TEST(RunnerDocs, EveryStopReasonIsDocumented) {
  std::string rows;
  for (const char* doc : {"docs/runner.md", "docs/generator.md"}) {
    std::stringstream text(docs(doc));
    for (std::string line; std::getline(text, line);) {
      if (line.starts_with("| `completed`, `stopped_by` |")) rows += line.substr(28);
    }
  }
  ASSERT_FALSE(rows.empty());
  size_t listed = 0;
  for (size_t at = rows.find('`'); at != std::string::npos; at = rows.find('`', at + 1)) {
    const size_t end = rows.find('`', at + 1);
    const std::string name = rows.substr(at + 1, end - at - 1);
    EXPECT_NE(std::find(gen::kStopReasonNames.begin(), gen::kStopReasonNames.end(), name),
              gen::kStopReasonNames.end())
        << "documented stop reason " << name << " is not in gen::kStopReasonNames";
    ++listed;
    at = end;
  }
  for (std::string_view name : gen::kStopReasonNames) {
    EXPECT_NE(rows.find(ticked(std::string(name))), std::string::npos) << name;
  }
  EXPECT_GE(listed, gen::kStopReasonNames.size());
}

}  // namespace
}  // namespace spraylab::fabric
