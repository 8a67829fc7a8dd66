// docs/configuration.md documents every key the loader reads, with the default it applies.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "conf/loader.h"
#include "conf/schema.h"
#include "trafficgen/bounds/bound_kind.h"

namespace spraylab::conf {
namespace {

std::vector<std::string> doc_lines(const char* doc = "docs/configuration.md") {
  std::ifstream in(std::filesystem::path(SPRAYLAB_SOURCE_DIR) / doc);
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

// `name` in backticks, as the docs write names and keys. Built by appending: GCC 12 reports a
// false -Wrestrict on "`" + std::string + "`".
std::string ticked(std::string_view name) {
  std::string out(1, '`');
  out.append(name).push_back('`');
  return out;
}

// The docs row of every variant of `table` (an algorithm, a workload type) lists exactly its keys.
void expect_rows_with_keys(const std::vector<std::string>& lines, const VariantTable& table) {
  for (std::string_view name : table.names()) {
    SCOPED_TRACE(name);
    const std::string row = row_for(lines, std::string(name));
    ASSERT_FALSE(row.empty()) << "no row for " << ticked(name);
    const auto keys = table.find(name).keys;
    for (std::string_view key : keys) {
      EXPECT_NE(row.find(ticked(key)), std::string::npos) << "the row does not list " << key;
    }
    // A key of the section listed in this row but not taken by the variant.
    for (const Variant& other : table.variants) {
      for (std::string_view key : other.keys) {
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        EXPECT_EQ(row.find(ticked(key)), std::string::npos) << "the row lists " << key;
      }
    }
  }
}

// The algorithm table of docs/configuration.md, from lb::kAlgorithms; docs/algorithms.md has a
// section per algorithm.
TEST(Docs, EveryAlgorithmHasARowWithItsKeysAndASection) {
  expect_rows_with_keys(doc_lines(), balancer_algorithms());
  const auto sections = doc_lines("docs/algorithms.md");
  ASSERT_FALSE(sections.empty());
  for (const lb::AlgorithmInfo& a : lb::kAlgorithms) {
    const std::string heading = "## " + std::string(a.name);
    EXPECT_TRUE(std::any_of(sections.begin(), sections.end(),
                            [&](const std::string& line) {
                              return line == heading || line.starts_with(heading + " ");
                            }))
        << "docs/algorithms.md has no section for " << a.name;
  }
}

TEST(Docs, EveryWorkloadTypeHasARowWithItsKeys) {
  expect_rows_with_keys(doc_lines(), workload_types());
  const auto types = doc_lines("docs/workloads.md");
  for (std::string_view name : gen::kWorkloadTypeNames) {
    EXPECT_FALSE(row_for(types, std::string(name)).empty()) << "docs/workloads.md: " << name;
  }
}

// docs/workloads.md's bound table: a row per bound, and every workload type in some row (each
// type's bound is documented; trafficgen/bounds/collective_bound.h picks it).
TEST(Docs, EveryBoundHasARowAndEveryWorkloadTypeABound) {
  const auto lines = doc_lines("docs/workloads.md");
  std::string rows;
  for (std::string_view bound : gen::kBoundKindNames) {
    const std::string row = row_for(lines, std::string(bound));
    EXPECT_FALSE(row.empty()) << "docs/workloads.md has no row for the bound " << bound;
    rows += row;
  }
  for (std::string_view type : gen::kWorkloadTypeNames) {
    EXPECT_NE(rows.find(ticked(type)), std::string::npos)
        << "docs/workloads.md: no bound names the workload type " << type;
  }
}

// The rows of keys whose values are names list every name of the enum's table.
TEST(Docs, EveryEntropyModeSkewAndQueueUnitIsListed) {
  const auto lines = doc_lines();
  const auto expect_listed = [&](const std::string& path, auto names) {
    const std::string row = row_for(lines, path);
    ASSERT_FALSE(row.empty()) << path;
    for (std::string_view name : names) {
      EXPECT_NE(row.find(ticked(name)), std::string::npos) << path << " does not list " << name;
    }
  };
  expect_listed("workload.entropy", gen::kEntropyModeNames);
  expect_listed("workload.skew", gen::kSkewNames);
  expect_listed("load_balancer.queue_unit", lb::kQueueUnitNames);
  expect_listed("workload.order", gen::kAllToAllOrderNames);
  expect_listed("workload.injection", gen::kInjectionNames);
  expect_listed("load_balancer.consolidate", lb::kConsolidateNames);
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
  EXPECT_EQ(e.balancer.for_switch("edge0", 0).algorithm, lb::Algorithm::kOfan);
  EXPECT_EQ(e.balancer.for_switch("agg0", 1).algorithm, lb::Algorithm::kJsq);
  EXPECT_EQ(e.balancer.for_switch("agg0", 1).state_update_ns, 20'000u);
}

}  // namespace
}  // namespace spraylab::conf
