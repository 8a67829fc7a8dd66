// Ofan's Theorem 6 as a model curve (fabric/reproduce/packet_size_model.h, `models:` in
// docs/reproduce.md): the closed form and its optimum, the curve drawn at every measured x, and
// the checks that read it (argmin against the model's optimum, a ratio to the model at one x).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "conf/config_error.h"
#include "fabric/reproduce/figures.h"
#include "fabric/reproduce/packet_size_model.h"
#include "fabric/reproduce/reproduction.h"

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

// The paper's default: 1 MiB at 800 Gb/s, spraylab's 106 B per packet beyond the payload,
// alpha = 7 packets of queueing, 6 us of zero-load RTT.
PacketSizeModel paper_default() { return {1048576, 106, 800e9, 7, 6000}; }

TEST(PacketSizeModel, IsTheoremSixsSendingPlusQueueingTimePlusTheRtt) {
  // 4096 B payloads: m·P/(P − H) = 2^20 · 4202 / 4096 = 1075712 B, alpha·P = 7 · 4202 = 29414 B;
  // 1105126 B at 100 B/ns = 11051.26 ns, plus 6000 ns.
  EXPECT_NEAR(paper_default().cct_ns(4096), 17051.26, 1e-6);
}

TEST(PacketSizeModel, TheOptimumIsTheSquareRootOfMessageTimesHeaderOverAlpha) {
  const PacketSizeModel m = paper_default();
  EXPECT_NEAR(m.best_payload_bytes(), std::sqrt(1048576.0 * 106 / 7), 1e-9);  // 3984.78
  EXPECT_NEAR(m.best_payload_bytes(), 3984.78, 0.01);
  const double best = m.cct_ns(m.best_payload_bytes());
  for (double f : {0.5, 0.9, 0.99, 1.01, 1.1, 2.0}) {
    EXPECT_GT(m.cct_ns(f * m.best_payload_bytes()), best) << "at " << f << " P*";
  }
}

const std::string kFile = R"(name: m
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
links: {rate: 800Gbps}
workload: {type: permutation, message_size: 1MiB}
reproduce:
  title: model curves
  runs:
    - {name: sw, algorithms: [ofan], sweep: {workload.payload: [1024, 4096, 8192]}}
  figures:
    - name: cct
      x: workload.payload
      y: cct.collective_ns
      y_divide: 1000
      models:
        - {name: T6, formula: ofan-theorem-6, alpha: 7, latency: 6us}
  checks:
    - {figure: cct, series: ofan, measure: argmin, to: T6, paper: 1, where: Thm 6, tolerance: 0.5}
    - {figure: cct, series: ofan, measure: ratio, to: T6, at: 4096, paper: 1, where: Thm 6, tolerance: 10%}
)";

// Ofan's CCT per seed s = 1..3 (in us): lowest at 4096 B for seeds 1 and 2, at 8192 B for seed 3.
std::vector<SeedRow> rows() {
  std::vector<SeedRow> out;
  for (uint64_t s = 1; s <= 3; ++s) {
    out.push_back({"cct", "ofan", 1024, "1024", s, 18.0});
    out.push_back({"cct", "ofan", 4096, "4096", s, s == 3 ? 17.6 : 17.0});
    out.push_back({"cct", "ofan", 8192, "8192", s, 17.5});
  }
  return out;
}

TEST(ModelCurves, AreDrawnAtEveryMeasuredXAndAtTheOptimumFromTheFilesMessageAndRate) {
  const Reproduction r = read_reproduction(kFile, "m.yaml", "m");
  ASSERT_EQ(r.figures[0].models.size(), 1u);
  const PacketSizeModel& m = r.figures[0].models[0].packet_size;
  EXPECT_EQ(m.message_bytes, 1048576);  // workload.message_size
  EXPECT_EQ(m.rate_bps, 800e9);         // links.rate
  EXPECT_EQ(m.header_bytes, 106);       // 82 B of headers + FCS + preamble and gap
  const FigureData d = figure_from_rows(r.figures[0], rows());
  ASSERT_EQ(d.series.size(), 2u);
  const FigureSeries& model = d.series[1];
  EXPECT_TRUE(model.model);
  EXPECT_EQ(model.name, "T6");
  ASSERT_EQ(model.points.size(), 4u);  // 1024, the optimum, 4096, 8192
  EXPECT_NEAR(model.points[1].x, 3984.78, 0.01);
  EXPECT_NEAR(model.points[2].y, 17.05126, 1e-6);  // us: the figure's y_divide
  EXPECT_TRUE(model.points[2].per_seed.empty());
  // seeds.csv holds measurements only: the curve is drawn again from the file.
  EXPECT_THAT(seeds_csv({d}), ::testing::Not(HasSubstr("T6")));
}

TEST(ModelCurves, AnArgminCheckDividesEachSeedsOptimumByTheModels) {
  const Reproduction r = read_reproduction(kFile, "m.yaml", "m");
  const std::vector<FigureData> d = {figure_from_rows(r.figures[0], rows())};
  const CheckOutcome argmin = evaluate_check(r.checks[0], d);
  ASSERT_TRUE(argmin.measured);
  const double best = 3984.775598628933;
  EXPECT_EQ(argmin.measured->n, 3u);
  EXPECT_NEAR(argmin.measured->mean, (4096 + 4096 + 8192) / 3.0 / best, 1e-9);
  EXPECT_FALSE(r.checks[0].rule.no_effect);  // an optimum's ratio has no "no effect"
  // A ratio to a model at one x: the model's one value stands for every seed.
  const CheckOutcome ratio = evaluate_check(r.checks[1], d);
  ASSERT_TRUE(ratio.measured);
  EXPECT_EQ(ratio.measured->n, 3u);
  EXPECT_NEAR(ratio.measured->mean, (17.0 + 17.0 + 17.6) / 3 / 17.05126, 1e-6);
}

// The loader's words for kFile with each `from` replaced by its `to`, or "accepted".
std::string error(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = kFile;
  for (const auto& [from, to] : edits) text.replace(text.find(from), from.size(), to);
  try {
    read_reproduction(text, "m.yaml", "m");
  } catch (const conf::ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ModelCurves, NeedAPayloadAxisAndAMessageSize) {
  const std::string workload = "workload: {type: permutation, message_size: 1MiB}";
  EXPECT_THAT(error({{"x: workload.payload", "x: workload.message_size"}}),
              HasSubstr("x: workload.payload"));
  EXPECT_THAT(error({{workload, "workload: {type: permutation}"}}), HasSubstr("message"));
  EXPECT_EQ(error({{workload, "workload: {type: permutation}"},
                   {"alpha: 7,", "alpha: 7, message: 1MiB,"}}),
            "accepted");
  // A run or the small version that changes m or C: the model must name its own.
  const std::string run = "sweep: {workload.payload: [1024, 4096, 8192]}}";
  EXPECT_THAT(error({{run, "sweep: {workload.payload: [1024, 4096, 8192]}, set: "
                           "{workload.message_size: 4MiB}}"}}),
              HasSubstr("a run or small: sets or sweeps it"));
  EXPECT_THAT(error({{"  figures:", "  small: {set: {links.rate: 400Gbps}}\n  figures:"}}),
              HasSubstr("a run or small: sets or sweeps it"));
  EXPECT_EQ(error({{"  figures:", "  small: {set: {links.rate: 400Gbps}}\n  figures:"},
                   {"alpha: 7,", "alpha: 7, rate: 800Gbps,"}}),
            "accepted");
  EXPECT_THAT(error({{"alpha: 7,", "alpha: 7, header: 0B,"}}), HasSubstr("header"));
  EXPECT_THAT(error({{"formula: ofan-theorem-6", "formula: theorem-7"}}),
              HasSubstr("ofan-theorem-6"));
  EXPECT_THAT(error({{"paper: 1, where: Thm 6, tolerance: 0.5}",
                      "at: 4096, paper: 1, where: Thm 6, tolerance: 0.5}"}}),
              HasSubstr("argmin spans every x"));
}

}  // namespace
}  // namespace spraylab::fabric
