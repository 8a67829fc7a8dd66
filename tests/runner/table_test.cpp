// The comparison table and its CSV: aligned columns, what an incomplete run shows, exact CSV.
#include "fabric/results/table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace spraylab::fabric {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Splits at every comma (the rows checked here quote nothing), keeping empty fields.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

VariantSummary row(const std::string& name, double cct_ns, uint64_t max_queue) {
  VariantSummary s;
  s.variant = name;
  s.mode = "virtual";
  s.algorithm = "ofan";
  s.completed = true;
  s.messages = s.messages_completed = 16;
  s.cct_ns = cct_ns;
  s.bound_ns = 1000;
  s.inflation = cct_ns / 1000 - 1;
  s.queue.max_bytes = max_queue;
  s.queue.p99_bytes = max_queue / 2;
  s.utilisation_mean = 0.5;
  return s;
}

TEST(Table, ColumnsLineUpUnderTheirHeadings) {
  const auto t = lines(format_table({row("ofan", 1500, 12000), row("ecmp-long-name", 25000, 800)}));
  ASSERT_EQ(t.size(), 4u);  // heading, rule, two rows
  EXPECT_EQ(t[0].substr(0, 7), "variant");
  // Right-aligned: a value ends where its heading ends.
  const size_t cct_end = t[0].find("CCT us") + 6;
  EXPECT_EQ(t[2].substr(cct_end - 3, 3), "1.5");
  EXPECT_EQ(t[3].substr(cct_end - 4, 4), "25.0");
  const size_t queue_end = t[0].find("max queue KB") + 12;
  EXPECT_EQ(t[2].substr(queue_end - 4, 4), "12.0");
  EXPECT_EQ(t[3].substr(queue_end - 3, 3), "0.8");
  EXPECT_THAT(t[2], HasSubstr("+50.0%"));
  EXPECT_THAT(t[3], HasSubstr("+2400.0%"));
  EXPECT_EQ(t[1].find_first_not_of("- "), std::string::npos);
}

TEST(Table, TheBoundIsNamedInTheLastColumnSoTheOthersReadAsBefore) {
  VariantSummary named = row("ofan", 1500, 12000);
  named.bound = "per-host";
  named.bound_capacity = "offered";
  const auto with = lines(format_table({named}));
  const auto without = lines(format_table({row("ofan", 1500, 12000)}));
  ASSERT_EQ(with.size(), 3u);
  EXPECT_EQ(with[0].substr(with[0].size() - 7), "  bound");
  EXPECT_EQ(with[2].substr(with[2].size() - 10), "  per-host");
  EXPECT_EQ(without[2].substr(without[2].size() - 3), "  -");
  // Every column before it is where it was, whatever it names.
  EXPECT_EQ(with[2].substr(0, with[2].size() - 10), without[2].substr(0, without[2].size() - 3));
}

TEST(Table, ABoundWhoseCapacityIsNotTheFabricsSaysNominal) {
  VariantSummary s = row("psp", 1500, 0);
  s.bound = "permutation-appendix-a";
  s.bound_capacity = "not-modelled";
  EXPECT_THAT(lines(format_table({s}))[2], HasSubstr("permutation-appendix-a (nominal)"));
  const auto c = lines(format_csv({s}));
  EXPECT_THAT(c[0], HasSubstr(",bound,bound_capacity"));
  EXPECT_THAT(c[1], HasSubstr(",permutation-appendix-a,not-modelled"));
}

TEST(Table, IncompleteRunSaysSoInsteadOfANumber) {
  VariantSummary s = row("rps", 0, 0);
  s.completed = false;
  s.messages_completed = 3;
  s.cct_ns.reset();
  s.inflation.reset();
  const auto t = lines(format_table({s}));
  EXPECT_THAT(t[2], HasSubstr("incomplete"));
  EXPECT_THAT(t[2], HasSubstr("3/16"));
}

TEST(Csv, HeaderAndExactValues) {
  const auto c = lines(format_csv({row("ofan", 1500, 12000)}));
  ASSERT_EQ(c.size(), 2u);
  const auto head = fields(c[0]);
  const auto values = fields(c[1]);
  ASSERT_EQ(head.size(), values.size());
  auto at = [&](const std::string& name) {
    const auto it = std::find(head.begin(), head.end(), name);
    EXPECT_NE(it, head.end()) << name;
    return it == head.end() ? std::string() : values[it - head.begin()];
  };
  EXPECT_EQ(at("variant"), "ofan");
  EXPECT_EQ(at("cct_ns"), "1500");
  EXPECT_EQ(at("inflation"), "0.5");
  EXPECT_EQ(at("max_queue_bytes"), "12000");
  EXPECT_EQ(at("p99_queue_bytes"), "6000");
  EXPECT_EQ(at("completed"), "true");
}

TEST(Csv, MissingValuesAreEmptyFields) {
  VariantSummary s = row("rps", 0, 0);
  s.cct_ns.reset();
  const auto c = lines(format_csv({s}));
  const auto head = fields(c[0]);
  const auto values = fields(c[1]);
  const size_t i = std::find(head.begin(), head.end(), "cct_ns") - head.begin();
  EXPECT_EQ(values[i], "");
}

TEST(Csv, FieldsWithCommasOrQuotesAreQuoted) {
  EXPECT_EQ(csv_field("ofan"), "ofan");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_THAT(format_csv({row("x,y", 1, 1)}), HasSubstr("\n\"x,y\",virtual,"));
}

}  // namespace
}  // namespace spraylab::fabric
