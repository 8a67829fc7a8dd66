#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "net/frame.h"
#include "trafficgen/frame_template.h"

namespace spraylab::gen {
namespace {

// The one's complement sum of an IPv4 header, its checksum included: 0xffff when it is right.
uint16_t header_sum(const uint8_t* ip) {
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += static_cast<uint32_t>(ip[i] << 8 | ip[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}

const std::array<uint8_t, 6> kDstMac = {0x02, 0, 0, 0, 0, 0x07};
const std::array<uint8_t, 6> kSrcMac = {0x02, 0, 0, 0, 0, 0x01};
constexpr uint32_t kSrcIp = 0x0a000001;
constexpr uint32_t kDstIp = 0x0a010203;

void expect_valid_frames(uint32_t src_ip, uint32_t dst_ip) {
  const FrameTemplate t = make_frame_template(kDstMac, kSrcMac, src_ip, dst_ip, 4792, 0x02);
  TestbedHeader h{.flags = kData,
                  .entropy = 0xC0DE,
                  .message_id = 7,
                  .sequence = 3,
                  .offset = 12288,
                  .message_bytes = 1 << 20,
                  .send_ts_ns = 123456789};
  // Every length from a bare ACK (82 B) to a jumbo frame: the checksum is computed from the
  // template's, not patched, so each length is its own case.
  for (uint32_t len = 82; len <= 9018; ++len) {
    std::vector<uint8_t> frame(len, 0xee);
    h.sequence = len;
    write_frame(frame.data(), t, len, static_cast<uint16_t>(0xC000 + len % 0x4000), h);
    net::FrameInfo fi{};
    ASSERT_EQ(net::parse_frame(frame.data(), len, fi), net::FrameError::kNone) << len;
    ASSERT_EQ(header_sum(frame.data() + 14), 0xffff) << "IPv4 checksum wrong at length " << len;
    ASSERT_EQ(fi.frame_len, len);
    ASSERT_EQ(frame[16] << 8 | frame[17], static_cast<int>(len - 14));  // IPv4 total length
    ASSERT_EQ(frame[38] << 8 | frame[39], static_cast<int>(len - 34));  // UDP length
    ASSERT_EQ(fi.src_port, 0xC000 + len % 0x4000);
    ASSERT_EQ(fi.dst_port, 4792);
    ASSERT_EQ(fi.src_ip, src_ip);
    ASSERT_EQ(fi.dst_ip, dst_ip);
    ASSERT_EQ(fi.ttl, 64);
    ASSERT_EQ(frame[15] & 0x03, 0x02);  // ECT(0)
    TestbedHeader back;
    ASSERT_TRUE(decode(frame.data() + FrameTemplate::kBytes, len - FrameTemplate::kBytes, &back));
    ASSERT_EQ(back, h);
    if (len > 82) {
      ASSERT_EQ(frame[82], 0xee) << "the payload is not the frame writer's";
    }
  }
}

TEST(FrameTemplate, WritesAFrameTheSwitchParsesWithAValidChecksumAtEveryLength) {
  expect_valid_frames(kSrcIp, kDstIp);
  // 30.0.0.1 to 28.220.0.0: the header's words sum to 0xfff0 with a total length of 0, so adding
  // any frame's length carries out of 16 bits.
  expect_valid_frames(0x1e000001, 0x1cdc0000);
}

TEST(FrameTemplate, AddressesAndFlagsComeFromTheTemplate) {
  const FrameTemplate t = make_frame_template(kDstMac, kSrcMac, kSrcIp, kDstIp, 9, 0x00);
  std::array<uint8_t, 82> frame{};
  write_frame(frame.data(), t, 82, 1234, TestbedHeader{.flags = kAck});
  EXPECT_TRUE(std::equal(kDstMac.begin(), kDstMac.end(), frame.begin()));
  EXPECT_TRUE(std::equal(kSrcMac.begin(), kSrcMac.end(), frame.begin() + 6));
  EXPECT_EQ(frame[12] << 8 | frame[13], 0x0800);
  EXPECT_EQ(frame[14], 0x45);
  EXPECT_EQ(frame[15], 0x00);
  EXPECT_EQ(frame[20], 0x40);  // don't fragment
  EXPECT_EQ(frame[23], 17);
  EXPECT_EQ(frame[36] << 8 | frame[37], 9);
  EXPECT_EQ(frame[40] << 8 | frame[41], 0);  // no UDP checksum
  EXPECT_EQ(header_sum(frame.data() + 14), 0xffff);
}

}  // namespace
}  // namespace spraylab::gen
