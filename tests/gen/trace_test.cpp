#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "trafficgen/workloads/trace.h"

namespace spraylab::gen {
namespace {

Schedule parse(const std::string& text, uint32_t ranks = 4) {
  std::istringstream in(text);
  return parse_trace(in, "t.csv", ranks);
}

// The error a trace raises, or "" if it parses.
std::string error_of(const std::string& text, uint32_t ranks = 4) {
  try {
    parse(text, ranks);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(Trace, RowsBecomeMessagesWithStartTimesAndDependencies) {
  const Schedule s = parse(
      "# a comment\n"
      "start_ns, src, dst, bytes, depends_on\n"
      "0,0,1,1048576,\n"
      "\n"
      "0,1,0,1048576\n"
      "500,1,2,65536,0;1\r\n");
  ASSERT_EQ(s.messages.size(), 3u);
  EXPECT_EQ(s.messages[0].bytes, 1048576u);
  EXPECT_TRUE(s.messages[1].depends_on.empty());
  EXPECT_EQ(s.messages[2].start_ns, 500u);
  EXPECT_EQ(s.messages[2].src, 1u);
  EXPECT_EQ(s.messages[2].dst, 2u);
  EXPECT_EQ(s.messages[2].depends_on, (std::vector<MessageId>{0, 1}));
  ASSERT_EQ(s.collectives.size(), 1u);
  EXPECT_EQ(s.collectives[0].name, "trace");
}

TEST(Trace, ForwardReferencesAreAllowed) {
  const Schedule s = parse("start_ns,src,dst,bytes,depends_on\n0,0,1,10,1\n0,1,0,10,\n");
  EXPECT_EQ(s.messages[0].depends_on, (std::vector<MessageId>{1}));
}

TEST(Trace, ErrorsNameTheFileLineAndColumn) {
  const std::string h = "start_ns,src,dst,bytes,depends_on\n";
  EXPECT_EQ(error_of(h + "0,0,1,10,\nx,0,1,10,\n"),
            "t.csv:3: column 'start_ns': expected a non-negative integer, got 'x'");
  EXPECT_EQ(error_of(h + "0,0,9,10,\n"), "t.csv:2: column 'dst': rank 9 out of range (4 ranks)");
  EXPECT_EQ(error_of(h + "0,0,1,0,\n"), "t.csv:2: column 'bytes': must be > 0");
  EXPECT_EQ(error_of(h + "0,2,2,10,\n"), "t.csv:2: src and dst are both 2");
  EXPECT_EQ(error_of(h + "0,0,1\n"),
            "t.csv:2: expected 5 columns (start_ns,src,dst,bytes,depends_on), got 3");
  EXPECT_EQ(error_of(h + "0,0,1,10,-1\n"),
            "t.csv:2: column 'depends_on': expected a non-negative integer, got '-1'");
  EXPECT_EQ(error_of(h + "0,0,1,10,\n0,1,0,10,5\n"),
            "t.csv:3: depends_on: no row 5 (rows are 0..1)");
  // 2^32 is no row: it used to wrap to row 0 on the cast to MessageId.
  EXPECT_EQ(error_of(h + "0,0,1,10,\n0,1,0,10,4294967296\n"),
            "t.csv:3: column 'depends_on': no row 4294967296");
  EXPECT_EQ(error_of(h + "0,0,1,10,0\n"), "t.csv:2: depends_on: row depends on itself");
  EXPECT_EQ(error_of(h + "0,0,1,10,1\n0,1,0,10,0\n"),
            "t.csv:2: depends_on: row 0 is on a dependency cycle");
  EXPECT_EQ(error_of("src,dst\n"),
            "t.csv:1: expected the header 'start_ns,src,dst,bytes,depends_on', got 'src,dst'");
  EXPECT_EQ(error_of("# only a comment\n"), "t.csv:1: empty trace: no header line");
  EXPECT_EQ(error_of(h + "0,0,1,1.5,\n"),
            "t.csv:2: column 'bytes': expected a non-negative integer, got '1.5'");
}

TEST(Trace, LoadsFromAFileAndReportsAMissingOne) {
  const std::string path = ::testing::TempDir() + "/spraylab_trace_test.csv";
  {
    std::ofstream out(path);
    out << "start_ns,src,dst,bytes,depends_on\n0,0,1,4096,\n";
  }
  EXPECT_EQ(load_trace(path, 2).messages.size(), 1u);
  EXPECT_THROW(load_trace(path + ".missing", 2), TraceError);
  // No line number for the file as a whole (was "path:0: ..."), and a directory says so (it
  // read as an empty trace).
  try {
    load_trace(path + ".missing", 2);
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ".missing: cannot open the trace file: No such file or directory");
  }
  try {
    load_trace(::testing::TempDir(), 2);
    ADD_FAILURE() << "a directory loaded as a trace";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()),
              ::testing::TempDir() + ": expected a trace file, found a directory");
  }
}

}  // namespace
}  // namespace spraylab::gen
