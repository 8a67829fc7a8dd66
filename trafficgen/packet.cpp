#include "trafficgen/packet.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "net/trim.h"

namespace spraylab::gen {

uint64_t packet_count(uint64_t message_bytes, uint32_t payload_bytes) {
  return (message_bytes + payload_bytes - 1) / payload_bytes;
}

// The switch trims by these (net/trim.h): the same header.
static_assert(net::kTestbedMagic == kHeaderMagic && net::kTestbedVersion == kHeaderVersion);
static_assert(net::kTestbedFlagsOffset == offsetof(WireHeader, flags));
static_assert(net::kTestbedData == kData && net::kTestbedTrimmed == kTrimmed &&
              net::kTestbedNack == kNack);
static_assert(net::kTrimmedTestbedBytes == kTrimmedHeaderBytes &&
              kTrimmedHeaderBytes == offsetof(WireHeader, offset));

bool decode(const void* in, size_t len, TestbedHeader* h) {
  if (len < kTrimmedHeaderBytes) return false;
  WireHeader w{};  // a trimmed header's missing fields read as 0
  std::memcpy(&w, in, std::min(len, sizeof(w)));
  if (from_big_endian(w.magic) != kHeaderMagic || w.version != kHeaderVersion) return false;
  if (len < sizeof(WireHeader) && !(w.flags & kTrimmed)) return false;
  h->flags = w.flags;
  h->entropy = from_big_endian(w.entropy);
  h->acked_packets = from_big_endian(w.acked_packets);
  h->message_id = from_big_endian(w.message_id);
  h->sequence = from_big_endian(w.sequence);
  h->offset = from_big_endian(w.offset);
  h->message_bytes = from_big_endian(w.message_bytes);
  h->send_ts_ns = from_big_endian(w.send_ts_ns);
  return true;
}

TestbedHeader make_ack(const TestbedHeader& data, bool ce_marked, uint16_t acked_packets) {
  TestbedHeader ack = data;
  ack.flags = static_cast<uint8_t>(kAck | (ce_marked ? kEcnEcho : 0));
  ack.acked_packets = acked_packets;
  return ack;
}

TestbedHeader make_nack(const TestbedHeader& trimmed, uint32_t payload_bytes) {
  TestbedHeader nack;
  nack.flags = kNack;
  nack.entropy = trimmed.entropy;
  nack.message_id = trimmed.message_id;
  nack.sequence = trimmed.sequence;
  nack.offset = uint64_t{trimmed.sequence} * payload_bytes;
  return nack;
}

namespace {

// RCCC's control frames (trafficgen/rccc_credits.h): a PULL carries the receiver's pull number,
// an RTS the sender's pull target, both in acked_packets (16 bits: the reader unwraps them,
// rccc_credits.h).
TestbedHeader credit_frame(uint8_t flag, uint32_t message_id, uint64_t value, uint16_t entropy) {
  TestbedHeader h;
  h.flags = flag;
  h.entropy = entropy;
  h.acked_packets = static_cast<uint16_t>(value);
  h.message_id = message_id;
  return h;
}

}  // namespace

TestbedHeader make_pull(uint32_t message_id, uint64_t pull, uint16_t entropy) {
  return credit_frame(kPull, message_id, pull, entropy);
}

TestbedHeader make_rts(uint32_t message_id, uint64_t target, uint16_t entropy) {
  return credit_frame(kRts, message_id, target, entropy);
}

}  // namespace spraylab::gen
