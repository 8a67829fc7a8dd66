#include "trafficgen/packet.h"

#include <cstring>

namespace spraylab::gen {

uint64_t packet_count(uint64_t message_bytes, uint32_t payload_bytes) {
  return (message_bytes + payload_bytes - 1) / payload_bytes;
}

bool decode(const void* in, size_t len, TestbedHeader* h) {
  if (len < sizeof(WireHeader)) return false;
  WireHeader w;
  std::memcpy(&w, in, sizeof(w));
  if (from_big_endian(w.magic) != kHeaderMagic || w.version != kHeaderVersion) return false;
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

}  // namespace spraylab::gen
