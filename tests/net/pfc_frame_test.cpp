// 802.1Qbb PFC frames (net/pfc_frame.h): the bytes build_pfc writes, field by field against the
// standard's layout, and what parse_pfc makes of them and of malformed MAC control frames.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "net/pfc_frame.h"

namespace spraylab::net {
namespace {

constexpr std::array<uint8_t, 6> kSrc{0x02, 0x00, 0x00, 0x00, 0x01, 0x07};

std::array<uint8_t, kPfcFrameBytes> built(const PfcFrame& f) {
  std::array<uint8_t, kPfcFrameBytes> b;
  b.fill(0xee);  // nothing of this may survive
  build_pfc(b.data(), kSrc, f);
  return b;
}

uint16_t be16(const std::array<uint8_t, kPfcFrameBytes>& b, size_t at) {
  return static_cast<uint16_t>(b[at] << 8 | b[at + 1]);
}

TEST(PfcFrame, BytesAreIeee8021QbbFieldByField) {
  PfcFrame f;
  f.class_enable = 0x81;  // classes 0 and 7
  f.quanta[0] = 0xffff;
  f.quanta[7] = 0x1234;
  const auto b = built(f);
  // Destination: the MAC control multicast address.
  const std::array<uint8_t, 6> dst{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(b[i], dst[i]) << "destination byte " << i;
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(b[6 + i], kSrc[i]) << "source byte " << i;
  EXPECT_EQ(be16(b, 12), 0x8808);  // MAC control
  EXPECT_EQ(be16(b, 14), 0x0101);  // PFC opcode
  EXPECT_EQ(be16(b, 16), 0x0081);  // class-enable vector, big-endian
  EXPECT_EQ(be16(b, 18), 0xffff);  // quanta[0]
  for (size_t c = 1; c < 7; ++c) EXPECT_EQ(be16(b, 18 + 2 * c), 0) << "quanta " << c;
  EXPECT_EQ(be16(b, 32), 0x1234);  // quanta[7]
  for (size_t i = 34; i < kPfcFrameBytes; ++i) EXPECT_EQ(b[i], 0) << "padding byte " << i;
  EXPECT_EQ(kPfcFrameBytes + 4, 64u);  // with the FCS: the minimum Ethernet frame
}

TEST(PfcFrame, ParsesWhatItBuilds) {
  const PfcFrame pause = PfcFrame::for_class(kPfcDataClass, kPfcMaxQuanta);
  const auto b = built(pause);
  PfcFrame out;
  ASSERT_EQ(parse_pfc(b.data(), kPfcFrameBytes, out), PfcParse::kPfc);
  EXPECT_EQ(out.class_enable, 1u << kPfcDataClass);
  EXPECT_EQ(out.quanta, pause.quanta);
  EXPECT_TRUE(is_mac_control(b.data(), kPfcFrameBytes));

  const auto resume = built(PfcFrame::for_class(3, 0));
  ASSERT_EQ(parse_pfc(resume.data(), kPfcFrameBytes, out), PfcParse::kPfc);
  EXPECT_EQ(out.class_enable, 1u << 3);
  EXPECT_EQ(out.quanta[3], 0);
}

TEST(PfcFrame, MalformedControlFramesAreToldApart) {
  PfcFrame out;
  const auto good = built(PfcFrame::for_class(0, 100));
  auto bad = good;
  EXPECT_EQ(parse_pfc(good.data(), kPfcFrameBytes - 1, out), PfcParse::kMalformed);  // short
  bad[5] = 0x02;  // not 01:80:C2:00:00:01
  EXPECT_EQ(parse_pfc(bad.data(), kPfcFrameBytes, out), PfcParse::kMalformed);
  bad = good;
  bad[14] = 0x00;  // opcode 0x0001: 802.3x PAUSE, no class vector
  EXPECT_EQ(parse_pfc(bad.data(), kPfcFrameBytes, out), PfcParse::kMalformed);
  bad = good;
  bad[16] = 0x01;  // a reserved class-enable bit (8)
  EXPECT_EQ(parse_pfc(bad.data(), kPfcFrameBytes, out), PfcParse::kMalformed);
  bad = good;
  bad[13] = 0x00;  // EtherType 0x8800: not MAC control at all
  EXPECT_EQ(parse_pfc(bad.data(), kPfcFrameBytes, out), PfcParse::kNotControl);
  EXPECT_FALSE(is_mac_control(bad.data(), kPfcFrameBytes));
  EXPECT_EQ(parse_pfc(good.data(), 13, out), PfcParse::kNotControl);
}

TEST(PfcFrame, QuantaAreUnitsOf512BitTimes) {
  // 0xffff quanta at 100 Gb/s: 65535 x 512 bit / 1e11 b/s = 335.5392 us, rounded up.
  EXPECT_EQ(pfc_quanta_ns(kPfcMaxQuanta, 100e9), 335540u);
  EXPECT_EQ(pfc_quanta_ns(1, 512e9), 1u);
  EXPECT_EQ(pfc_quanta_ns(0, 100e9), 0u);
}

}  // namespace
}  // namespace spraylab::net
