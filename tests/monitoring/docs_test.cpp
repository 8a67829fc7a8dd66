// docs/monitoring.md lists every metric (from the declarations), and the shipped Grafana dashboard
// and Prometheus configuration name only metrics and ports that exist.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "fabric/cli/metric_catalog.h"
#include "monitoring/exposer.h"
#include "monitoring/metric_list.h"

namespace spraylab::monitoring {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(std::filesystem::path(SPRAYLAB_SOURCE_DIR) / path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every "expr" of every panel target (rows nest panels).
void exprs(const nlohmann::json& panels, std::vector<std::string>& out) {
  for (const auto& p : panels) {
    if (p.contains("targets")) {
      for (const auto& t : p["targets"]) out.push_back(t.value("expr", ""));
    }
    if (p.contains("panels")) exprs(p["panels"], out);
  }
}

// Names a query may use: each metric, and a histogram's _bucket, _sum and _count series.
std::set<std::string> series_names() {
  std::set<std::string> out;
  for (const RoleMetric& m : fabric::all_metrics()) {
    const std::string n(m.spec.name);
    out.insert(n);
    if (m.spec.type == prometheus::MetricType::Histogram) {
      for (const char* s : {"_bucket", "_sum", "_count"}) out.insert(n + s);
    }
  }
  return out;
}

TEST(Docs, TheMetricListIsTheOneTheDeclarationsGive) {
  const std::string doc = read("docs/monitoring.md");
  ASSERT_FALSE(doc.empty()) << "docs/monitoring.md is missing";
  const std::string table = metrics_table(fabric::all_metrics());
  EXPECT_NE(doc.find(table), std::string::npos)
      << "docs/monitoring.md does not hold the current metric table; regenerate it with "
         "build/fabric/spraylab-metrics:\n"
      << table;
}

TEST(Dashboard, EveryQueryNamesOnlyDeclaredMetrics) {
  std::vector<std::string> queries;
  for (const char* file :
       {"monitoring/grafana/spraylab.json", "monitoring/grafana/spraylab-fabric.json"}) {
    const auto dash = nlohmann::json::parse(read(file));
    const size_t before = queries.size();
    exprs(dash.at("panels"), queries);
    ASSERT_GE(queries.size() - before, 5u) << file;
  }
  const std::set<std::string> known = series_names();
  const std::regex name(R"(spraylab_[a-z0-9_]+)");
  for (const std::string& q : queries) {
    EXPECT_FALSE(q.empty());
    if (q.starts_with("up{")) continue;  // Prometheus's own series: a target's last scrape worked
    int names = 0;
    for (auto it = std::sregex_iterator(q.begin(), q.end(), name); it != std::sregex_iterator();
         ++it) {
      EXPECT_TRUE(known.count(it->str())) << it->str() << " in " << q;
      ++names;
    }
    EXPECT_GT(names, 0) << q;
  }
}

TEST(Dashboard, ShowsWhatTheIssueAsksFor) {
  const auto dash = nlohmann::json::parse(read("monitoring/grafana/spraylab.json"));
  std::vector<std::string> queries;
  exprs(dash.at("panels"), queries);
  auto any = [&](const std::string& needle, const std::string& also = "") {
    for (const std::string& q : queries) {
      if (q.find(needle) != std::string::npos && q.find(also) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(any("spraylab_switch_queue_depth_bytes")) << "queue depth per port over time";
  EXPECT_TRUE(any("spraylab_switch_queue_depth_sampled_packets_bucket")) << "depth heatmap";
  EXPECT_TRUE(any("spraylab_switch_queue_max_depth", "by (algorithm)")) << "maxima per algorithm";
  EXPECT_TRUE(any("spraylab_gen_collective_completion_seconds_bucket")) << "CCT distribution";
  EXPECT_TRUE(any("spraylab_switch_drops_total", "reason")) << "drops by reason";
  EXPECT_TRUE(any("spraylab_gen_goodput_bytes_total")) << "goodput";
  bool heatmap = false;
  for (const auto& p : dash.at("panels")) heatmap = heatmap || p.value("type", "") == "heatmap";
  EXPECT_TRUE(heatmap);
}

TEST(PrometheusConfig, ScrapesEveryRoleOnItsDocumentedPort) {
  const std::string yml = read("monitoring/prometheus/prometheus.yml");
  ASSERT_FALSE(yml.empty());
  for (uint16_t port : {kSwitchPort, kGenPort}) {
    EXPECT_NE(yml.find(std::string(kDefaultHost) + ":" + std::to_string(port)), std::string::npos)
        << port;
  }
  const std::string doc = read("docs/monitoring.md");
  for (uint16_t port : {kSwitchPort, kGenPort, kToolPort}) {
    EXPECT_NE(doc.find(std::to_string(port)), std::string::npos) << port;
  }
}

}  // namespace
}  // namespace spraylab::monitoring
