// A run's results folder replaces an earlier run's whole, only when every file is written, and
// only if spraylab made it (issue 12, "Exposure"). fabric/results/results_folder.h.
#include "fabric/results/results_folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fabric/results/result_files.h"

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// A scratch folder of this test's own, removed afterwards.
class ResultsFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string name = (fs::temp_directory_path() / "spraylab-results-folder-XXXXXX").string();
    ASSERT_NE(mkdtemp(name.data()), nullptr);
    root_ = name;
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string path(const std::string& relative) const { return (root_ / relative).string(); }

  // Every entry below `dir`, relative to it ("a", "a/summary.json"), hidden ones included.
  static std::set<std::string> listing(const std::string& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      out.insert(fs::relative(e.path(), dir).string());
    }
    return out;
  }
  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // A complete run into `target` with one folder per variant.
  static void run(const std::string& target, const std::vector<std::string>& variants,
                  const std::string& tag,
                  ResultsFolder::Swap swap = ResultsFolder::Swap::kExchange) {
    ResultsFolder folder(target, "--out " + target);
    for (const std::string& v : variants) {
      write_file(folder.staging() + "/" + v + "/summary.json", tag);
    }
    write_file(folder.staging() + "/summary.txt", tag);
    folder.commit(swap);
  }
  std::string error_of(const std::string& target) const {
    try {
      ResultsFolder::check(target, "--out " + target);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  }
  // Hidden entries of the target's parent: what a run left beside it.
  std::set<std::string> hidden_beside() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(root_)) {
      const std::string name = e.path().filename().string();
      if (name.starts_with(".")) out.insert(name);
    }
    return out;
  }

  fs::path root_;
};

TEST_F(ResultsFolderTest, TheTargetAppearsOnlyWhenTheRunCommits) {
  const std::string out = path("runs/exp");  // its parent is created too
  ResultsFolder folder(out, "--out x");
  EXPECT_TRUE(fs::exists(fs::path(folder.staging()) / ResultsFolder::kMarker));
  EXPECT_EQ(fs::path(folder.staging()).parent_path(), fs::path(path("runs")));
  write_file(folder.staging() + "/ofan/summary.json", "{}");
  EXPECT_FALSE(fs::exists(out));
  folder.commit();
  EXPECT_EQ(listing(out),
            (std::set<std::string>{".spraylab-results", "ofan", "ofan/summary.json"}));
  EXPECT_FALSE(fs::exists(folder.staging()));
}

TEST_F(ResultsFolderTest, AFewerVariantRunLeavesNoneOfTheEarlierRunsFiles) {
  for (const auto swap : {ResultsFolder::Swap::kExchange, ResultsFolder::Swap::kTwoRenames}) {
    const std::string out = path("exp");
    run(out, {"a", "b", "c"}, "first", swap);
    run(out, {"a", "b"}, "second", swap);
    EXPECT_EQ(listing(out), (std::set<std::string>{".spraylab-results", "a", "a/summary.json", "b",
                                                   "b/summary.json", "summary.txt"}));
    EXPECT_EQ(read(out + "/a/summary.json"), "second");
    EXPECT_EQ(read(out + "/summary.txt"), "second");
    EXPECT_TRUE(hidden_beside().empty());
    fs::remove_all(out);
  }
}

TEST_F(ResultsFolderTest, ARunThatFailsHalfWayLeavesTheEarlierResultsAsTheyWere) {
  const std::string out = path("exp");
  run(out, {"a", "b", "c"}, "first");
  const auto before = listing(out);
  try {
    ResultsFolder folder(out, "--out x");
    write_file(folder.staging() + "/a/summary.json", "second");
    throw std::runtime_error("the fabric failed");  // before commit()
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(listing(out), before);
  EXPECT_EQ(read(out + "/a/summary.json"), "first");
  EXPECT_TRUE(hidden_beside().empty()) << "the staging folder stayed";
}

TEST_F(ResultsFolderTest, AnEmptyFolderIsTakenAndAFolderWithOtherFilesRefused) {
  fs::create_directories(path("empty"));
  run(path("empty"), {"a"}, "x");
  EXPECT_TRUE(fs::exists(path("empty/a/summary.json")));

  write_file(path("mine/thesis.tex"), "years of work");
  EXPECT_THAT(error_of(path("mine")),
              HasSubstr("the folder holds files and is not a spraylab results folder (it has no "
                        ".spraylab-results), so a run will not replace it"));
  EXPECT_THROW(ResultsFolder(path("mine"), "--out mine"), std::invalid_argument);
  EXPECT_EQ(read(path("mine/thesis.tex")), "years of work");
  EXPECT_EQ(listing(path("mine")), (std::set<std::string>{"thesis.tex"}));
  EXPECT_TRUE(hidden_beside().empty());

  write_file(path("file"), "x");
  EXPECT_THAT(error_of(path("file")), HasSubstr("exists and is not a folder"));
  // Below a file: refused now (-n included), not when the run ends (it failed then, exit 1).
  EXPECT_THAT(error_of(path("file/sub/o")),
              HasSubstr("cannot be made: " + path("file") + " is not a folder"));
}

// Issue 43: `make demo` once wrote results/demo/{virtual,inprocess}, where the README's next
// `spraylab run` writes; the refusal names the results folders inside and what to do.
TEST_F(ResultsFolderTest, AFolderHoldingEarlierResultsFoldersSaysSo) {
  run(path("demo/virtual"), {"a"}, "x");
  run(path("demo/inprocess"), {"a"}, "x");
  EXPECT_THAT(error_of(path("demo")),
              HasSubstr("it holds earlier runs' results folders: inprocess, virtual; move or "
                        "remove them"));
  write_file(path("mine/thesis.tex"), "years of work");
  EXPECT_THAT(error_of(path("mine")), Not(HasSubstr("earlier runs")));
}

TEST_F(ResultsFolderTest, DotDotSlashAndTheWorkingFolderAreRefused) {
  for (const char* out : {".", "..", "/", "a/..", "a/.", "./", "../"}) {
    EXPECT_THAT(error_of(out), HasSubstr("names no folder of its own")) << out;
  }
  const fs::path here = fs::current_path();
  fs::create_directories(path("w/inner"));
  fs::current_path(path("w/inner"));
  EXPECT_THAT(error_of(path("w/inner")), HasSubstr("is the working folder or a folder above it"));
  EXPECT_THAT(error_of(path("w")), HasSubstr("is the working folder or a folder above it"));
  EXPECT_THAT(error_of("../inner"), HasSubstr("is the working folder or a folder above it"));
  EXPECT_EQ(error_of("sub"), "accepted");  // relative to the working folder, below it
  fs::current_path(here);
}

TEST_F(ResultsFolderTest, ALinkToAFolderPutsTheResultsWhereItPoints) {
  fs::create_directories(path("data"));
  fs::create_directory_symlink(path("data"), path("link"));
  run(path("link"), {"a"}, "x");
  EXPECT_TRUE(fs::is_symlink(path("link")));
  EXPECT_EQ(read(path("data/a/summary.json")), "x");
  fs::create_directory_symlink(path("nowhere"), path("dangling"));
  EXPECT_THAT(error_of(path("dangling")), HasSubstr("symbolic link to nothing"));
}

TEST_F(ResultsFolderTest, LeftoversOfKilledRunsAreRemovedOnlyIfTheyAreOurs) {
  // A killed run's staging folder: the marker, unlocked. A running one's: the marker, locked.
  const std::string dead = path(".exp.spraylab-123-aaaaaa");
  const std::string foreign = path(".exp.spraylab-123-bbbbbb");
  write_file(dead + "/" + ResultsFolder::kMarker, "");
  write_file(dead + "/a/summary.json", "half");
  write_file(foreign + "/notes.txt", "not ours");
  ResultsFolder running(path("exp"), "--out exp");
  run(path("exp"), {"a"}, "x");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(foreign + "/notes.txt"));
  EXPECT_TRUE(fs::exists(fs::path(running.staging()) / ResultsFolder::kMarker));
}

TEST_F(ResultsFolderTest, ATargetThatBecameSomethingElseIsNotReplaced) {
  const std::string out = path("exp");
  ResultsFolder folder(out, "--out exp");
  write_file(folder.staging() + "/a/summary.json", "new");
  write_file(out + "/thesis.tex", "someone else's");  // appears while the run runs
  try {
    folder.commit();
    ADD_FAILURE() << "replaced a folder that is not ours";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no longer a spraylab results folder; this run's results "
                                    "are in " +
                                    folder.staging()));
  }
  EXPECT_EQ(read(out + "/thesis.tex"), "someone else's");
  EXPECT_EQ(read(folder.staging() + "/a/summary.json"), "new");
  fs::remove_all(folder.staging());
}

TEST_F(ResultsFolderTest, MessagesShowTheTargetNotTheStagingFolder) {
  ResultsFolder folder(path("exp"), "--out exp");
  EXPECT_EQ(folder.shown("3 plots in " + folder.staging() + "/plots"),
            "3 plots in " + path("exp") + "/plots");
}

}  // namespace
}  // namespace spraylab::fabric
