// Key paths as the loader prints them: parsed, set (creating maps) and located in the file.
#include "fabric/run/yaml_path.h"

#include <gtest/gtest.h>

namespace spraylab::fabric {
namespace {

TEST(KeyPath, ParsesKeysAndIndices) {
  const auto steps = parse_key_path("topology.links[2].rate");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(std::get<std::string>(steps[0]), "topology");
  EXPECT_EQ(std::get<std::string>(steps[1]), "links");
  EXPECT_EQ(std::get<size_t>(steps[2]), 2u);
  EXPECT_EQ(std::get<std::string>(steps[3]), "rate");
}

TEST(KeyPath, RejectsEmptyStepsAndBadIndices) {
  for (const char* bad : {"", ".a", "a.", "a..b", "a[]", "a[x]", "a[1", "a[1]b"}) {
    EXPECT_THROW(parse_key_path(bad), std::invalid_argument) << bad;
  }
}

TEST(SetPath, CreatesMissingMapsAndReplacesValues) {
  YAML::Node root = YAML::Load("a: {b: 1}\n");
  set_path(root, parse_key_path("a.b"), YAML::Node("2"));
  set_path(root, parse_key_path("c.d.e"), YAML::Node("3"));
  EXPECT_EQ(root["a"]["b"].as<std::string>(), "2");
  EXPECT_EQ(root["c"]["d"]["e"].as<std::string>(), "3");
}

TEST(SetPath, SetsListItemsByIndexOnly) {
  YAML::Node root = YAML::Load("l: [{r: 1}, {r: 2}]\n");
  set_path(root, parse_key_path("l[1].r"), YAML::Node("9"));
  EXPECT_EQ(root["l"][1]["r"].as<std::string>(), "9");
  EXPECT_EQ(root["l"][0]["r"].as<std::string>(), "1");
  EXPECT_THROW(set_path(root, parse_key_path("l[2].r"), YAML::Node("9")), std::invalid_argument);
  EXPECT_THROW(set_path(root, parse_key_path("l.r"), YAML::Node("9")), std::invalid_argument);
  EXPECT_EQ(root["l"].size(), 2u);  // a failed set leaves the list a list
}

TEST(SetPath, RefusesToDescendIntoAScalar) {
  YAML::Node root = YAML::Load("seed: 1\n");
  try {
    set_path(root, parse_key_path("seed.x"), YAML::Node("1"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'seed' is the value '1', not a map"), std::string::npos)
        << e.what();
  }
}

TEST(MarkOf, FindsTheValueOrItsDeepestAncestor) {
  const YAML::Node root = YAML::Load("a:\n  b: 1\n  l:\n    - x: 2\n");
  YAML::Mark m = mark_of(root, "a.b");
  EXPECT_EQ(m.line, 1);
  EXPECT_EQ(m.column, 5);
  m = mark_of(root, "a.l[0].x");
  EXPECT_EQ(m.line, 3);
  EXPECT_EQ(m.column, 9);
  m = mark_of(root, "a.missing.deeper");  // the map a: starts at line 2, column 3
  EXPECT_EQ(m.line, 1);
  EXPECT_EQ(m.column, 2);
  EXPECT_FALSE(root["a"]["missing"].IsDefined());  // looking did not insert it
}

}  // namespace
}  // namespace spraylab::fabric
