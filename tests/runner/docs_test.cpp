// docs/runner.md documents every key of summary.json and every column of summary.csv: a key
// added to the code and not to the docs fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "fabric/summary.h"
#include "fabric/table.h"

namespace spraylab::fabric {
namespace {

std::string docs() {
  std::ifstream in(std::filesystem::path(SPRAYLAB_SOURCE_DIR) / "docs/runner.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A summary with every optional part present: a level, a hot port.
VariantSummary full_summary() {
  FabricResult r;
  r.ports.resize(1);
  r.ports[0].max_bytes = 1;
  return summarize(r, "v", "ofan", "virtual");
}

// Dotted key paths of `j`'s leaves, with list items as `[]` and level numbers as `<level>`.
void leaves(const nlohmann::ordered_json& j, const std::string& path,
            std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      const bool level = path == "queue.by_level";
      const std::string step = level ? "<level>" : key;
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
    const size_t item = key.find("[].");
    if (level != std::string::npos) {
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

}  // namespace
}  // namespace spraylab::fabric
