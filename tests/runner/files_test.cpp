// The per-variant files: the queue series as CSV, and files written where asked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fabric/results/progress_line.h"
#include "fabric/results/result_files.h"

namespace spraylab::fabric {
namespace {

TEST(QueuesCsv, OneLinePerSampleWithThePortsNames) {
  FabricResult r;
  r.ports.resize(2);
  r.ports[0].switch_name = "leaf0";
  r.ports[0].port = 3;
  r.ports[0].peer = "spine1";
  r.ports[1].switch_name = "spine,1";  // quoted in CSV
  r.ports[1].port = 0;
  r.ports[1].peer = "leaf0";
  r.samples = {{1000, 0, 2, 8192}, {1000, 1, 0, 0}, {2000, 0, 1, 4096}};
  EXPECT_EQ(queues_csv(r),
            "t_ns,switch,port,peer,packets,bytes\n"
            "1000,leaf0,3,spine1,2,8192\n"
            "1000,\"spine,1\",0,leaf0,0,0\n"
            "2000,leaf0,3,spine1,1,4096\n");
}

TEST(QueuesCsv, SampleOfAnUnknownPortIsAnError) {
  FabricResult r;
  r.samples = {{1000, 0, 2, 8192}};
  EXPECT_THROW(queues_csv(r), std::runtime_error);
}

TEST(WriteFile, CreatesFoldersAndReportsFailures) {
  const auto dir = std::filesystem::temp_directory_path() / "spraylab_runner_write_test";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "a" / "b.json").string();
  write_file(path, json_text({{"k", 1}}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "{\n  \"k\": 1\n}\n");
  // A path below a regular file cannot be created.
  EXPECT_THROW(write_file(path + "/c.json", "x"), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST(Progress, DurationsReadInTheirUnit) {
  EXPECT_EQ(format_duration_ns(850), "850 ns");
  EXPECT_EQ(format_duration_ns(84'200), "84.2 us");
  EXPECT_EQ(format_duration_ns(1'250'000), "1.25 ms");
  EXPECT_EQ(format_duration_ns(2.5e9), "2.50 s");
  Progress p;
  p.messages_done = 3;
  p.messages_total = 16;
  p.clock_ns = 84'200;
  p.wall_seconds = 0.42;
  EXPECT_EQ(progress_text("[2/7] ofan", p), "[2/7] ofan: messages 3/16, clock 84.2 us, wall 0.4 s");
}

}  // namespace
}  // namespace spraylab::fabric
