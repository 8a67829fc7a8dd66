#include "trafficgen/packet.h"

#include <cstring>

namespace spraylab::gen {

uint64_t packet_count(uint64_t message_bytes, uint32_t payload_bytes) {
  return (message_bytes + payload_bytes - 1) / payload_bytes;
}

PacketSlice packet_slice(uint64_t message_bytes, uint32_t sequence, uint32_t payload_bytes) {
  PacketSlice p;
  p.sequence = sequence;
  p.offset = static_cast<uint64_t>(sequence) * payload_bytes;
  const uint64_t rest = message_bytes > p.offset ? message_bytes - p.offset : 0;
  p.length = static_cast<uint32_t>(rest < payload_bytes ? rest : payload_bytes);
  p.last = rest <= payload_bytes;
  return p;
}

void encode(const TestbedHeader& h, void* out) {
  const WireHeader w{
      .magic = to_big_endian(kHeaderMagic),
      .version = kHeaderVersion,
      .flags = h.flags,
      .entropy = to_big_endian(h.entropy),
      .acked_packets = to_big_endian(h.acked_packets),
      .message_id = to_big_endian(h.message_id),
      .sequence = to_big_endian(h.sequence),
      .offset = to_big_endian(h.offset),
      .message_bytes = to_big_endian(h.message_bytes),
      .send_ts_ns = to_big_endian(h.send_ts_ns),
  };
  std::memcpy(out, &w, sizeof(w));  // memcpy: `out` may be unaligned inside a packet
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
