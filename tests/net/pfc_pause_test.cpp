// A port's paused transmitter under 802.1Qbb (net/pfc_pause.h): quanta to time at the link's
// rate, a pause's expiry, resume, renewal, the classes apart, and the paused time it counts.
#include <gtest/gtest.h>

#include <cstdint>

#include "net/pfc_pause.h"

namespace spraylab::net {
namespace {

constexpr double kNs = 1e9;  // the clock: ns

TEST(PfcPause, QuantaAre512BitTimesAtTheLinkRate) {
  // 1 Gb/s: a bit is 1 ns, a quantum 512 ns; 100 Gb/s: 5.12 ns, rounded up as a whole pause.
  EXPECT_EQ(PfcPause(1e9, kNs).quanta_ticks(1), 512u);
  EXPECT_EQ(PfcPause(1e9, kNs).quanta_ticks(0xffff), 65535u * 512);
  EXPECT_EQ(PfcPause(100e9, kNs).quanta_ticks(1), 6u);
  EXPECT_EQ(PfcPause(100e9, kNs).quanta_ticks(100), 512u);
  EXPECT_EQ(PfcPause(10e9, kNs).quanta_ticks(0xffff), 3355392u);
  // Another clock: TSC cycles at 2 GHz, 10 Gb/s: 51.2 ns = 102.4 cycles -> 103.
  EXPECT_EQ(PfcPause(10e9, 2e9).quanta_ticks(1), 103u);
  EXPECT_EQ(PfcPause(1e9, kNs).quanta_ticks(0), 0u);
}

TEST(PfcPause, APauseHoldsItsClassForItsQuantaThenExpires) {
  PfcPause p(1e9, kNs);
  const auto e = p.on_frame(PfcFrame::for_class(0, 100), 1000);  // 51200 ns
  EXPECT_TRUE(e.paused);
  EXPECT_FALSE(e.resumed);
  EXPECT_TRUE(p.paused(0, 1000));
  EXPECT_TRUE(p.paused(0, 1000 + 51199));
  EXPECT_FALSE(p.paused(0, 1000 + 51200));
  EXPECT_EQ(p.paused_until(0), 1000u + 51200);
  EXPECT_EQ(p.paused_ticks(0, 1000 + 100), 100u);          // running: up to now
  EXPECT_EQ(p.paused_ticks(0, 1000 + 51200), 51200u);      // expired: in full
  EXPECT_EQ(p.paused_ticks(0, 1000000), 51200u);           // and no more after
  for (uint8_t c = 1; c < kPfcClasses; ++c) EXPECT_FALSE(p.paused(c, 2000)) << int(c);
}

TEST(PfcPause, ZeroQuantaResumeAtOnce) {
  PfcPause p(1e9, kNs);
  p.on_frame(PfcFrame::for_class(0, 0xffff), 0);
  const auto e = p.on_frame(PfcFrame::for_class(0, 0), 7000);
  EXPECT_TRUE(e.resumed);
  EXPECT_FALSE(e.paused);
  EXPECT_FALSE(p.paused(0, 7000));
  EXPECT_EQ(p.paused_ticks(0, 9000), 7000u);
  // A resume with nothing paused changes nothing but is still a resume.
  EXPECT_TRUE(p.on_frame(PfcFrame::for_class(0, 0), 8000).resumed);
  EXPECT_EQ(p.paused_ticks(0, 9000), 7000u);
}

TEST(PfcPause, ARenewalCountsFromItsOwnArrival) {
  PfcPause p(1e9, kNs);
  p.on_frame(PfcFrame::for_class(0, 10), 0);    // until 5120
  p.on_frame(PfcFrame::for_class(0, 10), 4000);  // until 9120, one pause from 0
  EXPECT_TRUE(p.paused(0, 9119));
  EXPECT_FALSE(p.paused(0, 9120));
  EXPECT_EQ(p.paused_ticks(0, 20000), 9120u);
  // A new pause after the last ran out adds its own time.
  p.on_frame(PfcFrame::for_class(0, 1), 30000);
  EXPECT_EQ(p.paused_ticks(0, 40000), 9120u + 512);
}

TEST(PfcPause, EachClassIsPausedOnItsOwn) {
  PfcPause p(1e9, kNs);
  PfcFrame f;
  f.class_enable = 0x88;  // classes 3 and 7
  f.quanta[3] = 2;
  f.quanta[7] = 0;
  f.quanta[0] = 0xffff;  // not enabled: ignored
  const auto e = p.on_frame(f, 100);
  EXPECT_TRUE(e.paused);
  EXPECT_TRUE(e.resumed);
  EXPECT_FALSE(p.paused(0, 100));
  EXPECT_TRUE(p.paused(3, 100 + 1023));
  EXPECT_FALSE(p.paused(3, 100 + 1024));
  EXPECT_FALSE(p.paused(7, 100));
  EXPECT_EQ(p.paused_ticks(0, 5000), 0u);
  EXPECT_EQ(p.paused_ticks(3, 5000), 1024u);
}

}  // namespace
}  // namespace spraylab::net
