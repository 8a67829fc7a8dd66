#include <gtest/gtest.h>

#include <array>

#include "trafficgen/packet.h"

namespace spraylab::gen {
namespace {

TEST(Packetise, FullPacketsThenAShortLastOne) {
  EXPECT_EQ(packet_count(1'000'000), 245u);  // 244 × 4096 + 576
  const PacketSlice last = packet_slice(1'000'000, 244);
  EXPECT_EQ(last.offset, 244u * 4096u);
  EXPECT_EQ(last.length, 576u);
  EXPECT_TRUE(last.last);
  const PacketSlice first = packet_slice(1'000'000, 0);
  EXPECT_EQ(first.length, 4096u);
  EXPECT_FALSE(first.last);
  EXPECT_EQ(packet_count(8192), 2u);
  EXPECT_EQ(packet_slice(8192, 1).length, 4096u);
  EXPECT_EQ(packet_count(100, 64), 2u);
  EXPECT_EQ(packet_count(0), 0u);
}

TEST(Packetise, SlicesCoverTheMessageExactlyOnce) {
  const uint64_t bytes = 123'457;
  uint64_t next = 0;
  for (uint32_t seq = 0; seq < packet_count(bytes, 1500); ++seq) {
    const PacketSlice p = packet_slice(bytes, seq, 1500);
    EXPECT_EQ(p.offset, next);
    next += p.length;
  }
  EXPECT_EQ(next, bytes);
}

TEST(Header, IsFortyBytesOfBigEndianFieldsAtFixedOffsets) {
  TestbedHeader h{.flags = kData,
                  .entropy = 0xC123,
                  .acked_packets = 0,
                  .message_id = 0x01020304,
                  .sequence = 7,
                  .offset = 7 * 4096,
                  .message_bytes = 0x1122334455667788,
                  .send_ts_ns = 42};
  std::array<uint8_t, kHeaderBytes> wire{};
  encode(h, wire.data());
  EXPECT_EQ(wire[0], 0x53);  // magic "SP"
  EXPECT_EQ(wire[1], 0x50);
  EXPECT_EQ(wire[2], kHeaderVersion);
  EXPECT_EQ(wire[3], kData);
  EXPECT_EQ(wire[4], 0xC1);  // entropy, big-endian
  EXPECT_EQ(wire[5], 0x23);
  EXPECT_EQ(wire[8], 0x01);  // message id
  EXPECT_EQ(wire[11], 0x04);
  EXPECT_EQ(wire[15], 7);     // sequence
  EXPECT_EQ(wire[24], 0x11);  // message bytes
  EXPECT_EQ(wire[31], 0x88);
  EXPECT_EQ(wire[39], 42);  // send timestamp
  TestbedHeader back;
  ASSERT_TRUE(decode(wire.data(), wire.size(), &back));
  EXPECT_EQ(back, h);
}

TEST(Header, DecodeRejectsShortBuffersAndForeignPackets) {
  std::array<uint8_t, kHeaderBytes + 1> wire{};
  encode(TestbedHeader{}, wire.data() + 1);  // unaligned on purpose
  TestbedHeader h;
  EXPECT_TRUE(decode(wire.data() + 1, kHeaderBytes, &h));
  EXPECT_FALSE(decode(wire.data() + 1, kHeaderBytes - 1, &h));
  wire[1] = 0;  // break the magic
  EXPECT_FALSE(decode(wire.data() + 1, kHeaderBytes, &h));
}

TEST(Header, AckEchoesEntropyTimestampAndTheCeMark) {
  const TestbedHeader data{
      .flags = kData, .entropy = 50000, .message_id = 3, .sequence = 9, .send_ts_ns = 1234};
  const TestbedHeader ack = make_ack(data, true);
  EXPECT_EQ(ack.flags, kAck | kEcnEcho);
  EXPECT_EQ(ack.entropy, 50000);
  EXPECT_EQ(ack.send_ts_ns, 1234u);
  EXPECT_EQ(ack.sequence, 9u);
  EXPECT_EQ(ack.acked_packets, 1);
  EXPECT_EQ(make_ack(data, false).flags, kAck);
}

TEST(ByteOrder, SwapsOnLittleEndianHosts) {
  static_assert(std::endian::native == std::endian::little, "tests assume x86/ARM little-endian");
  EXPECT_EQ(to_big_endian<uint16_t>(0x1234), 0x3412);
  EXPECT_EQ(from_big_endian(to_big_endian<uint64_t>(0x0102030405060708)), 0x0102030405060708u);
}

}  // namespace
}  // namespace spraylab::gen
