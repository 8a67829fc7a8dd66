// docs/configuration.md documents every key the loader reads, with the default it applies.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "conf/loader.h"
#include "conf/schema.h"

namespace spraylab::conf {
namespace {

std::vector<std::string> doc_lines() {
  std::ifstream in(std::filesystem::path(SPRAYLAB_SOURCE_DIR) / "docs/configuration.md");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The table row "| `path` | type | default | meaning |" for a key, or "" if there is none.
std::string row_for(const std::vector<std::string>& lines, const std::string& path) {
  const std::string cell = "| `" + path + "` |";
  for (const std::string& line : lines) {
    if (line.starts_with(cell)) return line;
  }
  return "";
}

TEST(Docs, EveryKeyHasARowWithItsDefault) {
  const auto lines = doc_lines();
  ASSERT_FALSE(lines.empty()) << "docs/configuration.md is missing";
  for (const KeyDoc& key : documented_keys()) {
    SCOPED_TRACE(key.path);
    const std::string row = row_for(lines, key.path);
    ASSERT_FALSE(row.empty()) << "no row for `" << key.path << "`";
    EXPECT_NE(row.find(key.default_value), std::string::npos)
        << "the row does not give the default " << key.default_value << ":\n"
        << row;
  }
}

TEST(Docs, EveryRowOfAKeyTableIsAKeyTheLoaderReads) {
  const auto keys = documented_keys();
  bool in_key_table = false;  // rows below a "| key | type | default | meaning |" header
  int rows = 0;
  for (const std::string& line : doc_lines()) {
    if (line.starts_with("| key | type | default | meaning |")) in_key_table = true;
    if (!line.starts_with("|")) in_key_table = false;
    if (!in_key_table || !line.starts_with("| `")) continue;
    const std::string path = line.substr(3, line.find('`', 3) - 3);
    const bool known =
        std::any_of(keys.begin(), keys.end(), [&](const KeyDoc& key) { return key.path == path; });
    EXPECT_TRUE(known) << "docs/configuration.md documents `" << path << "`, which is not read";
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<int>(keys.size()));  // one row per key, none twice
}

TEST(Docs, TheCompleteExampleLoads) {
  const auto lines = doc_lines();
  auto start = std::find(lines.begin(), lines.end(), "```yaml");
  ASSERT_NE(start, lines.end());
  auto end = std::find(start + 1, lines.end(), "```");
  std::string yaml;
  for (auto it = start + 1; it != end; ++it) yaml += *it + "\n";
  const Experiment e = load_experiment_string(yaml, "docs/configuration.md");
  EXPECT_EQ(e.name, "psp-vs-ofan");
  EXPECT_EQ(e.balancer.for_switch("leaf0", 0).algorithm, lb::Algorithm::kOfan);
  EXPECT_EQ(e.balancer.for_switch("agg0", 1).algorithm, lb::Algorithm::kJsq);
  EXPECT_EQ(e.balancer.for_switch("agg0", 1).state_update_ns, 20'000u);
}

}  // namespace
}  // namespace spraylab::conf
