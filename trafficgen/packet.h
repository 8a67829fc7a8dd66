// Messages as packets, and the testbed header that follows UDP in every generator packet.
//
// Wire layout (40 bytes, all fields big-endian, after Eth/IPv4/UDP; DESIGN.md "Addressing"):
//   0  magic          u16  0x5350 ("SP"): lets a parser count foreign packets as malformed
//   2  version        u8   1
//   3  flags          u8   kData | kAck | kEcnEcho | kRetransmit | kTrimmed | kNack | kPull | kRts
//   4  entropy        u16  the UDP source port the data packet was sent with; an ACK echoes it,
//                          which is what REPS recycles (entropy.h)
//   6  acked_packets  u16  ACK: data packets this ACK covers (ack_every); data and RTS with cc
//                          rccc: the sender's pull target, PULL: the pull number (256 B quanta,
//                          low 16 bits; rccc_credits.h); else 0
//   8  message_id     u32
//  12  sequence       u32  packet index within the message
//  16  offset         u64  payload offset within the message
//  24  message_bytes  u64  the whole message, so a receiver knows when it is complete
//  32  send_ts_ns     u64  data: when it was sent; ACK: echoed from the data packet
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace spraylab::gen {

inline constexpr uint32_t kDefaultPayloadBytes = 4096;  // Ofan §6: 4,096 B payloads

// ---- Packetisation -------------------------------------------------------------------------

// Packets of a message: ceil(bytes / payload); a message of 0 bytes has none.
uint64_t packet_count(uint64_t message_bytes, uint32_t payload_bytes = kDefaultPayloadBytes);

struct PacketSlice {
  uint32_t sequence = 0;
  uint64_t offset = 0;
  uint32_t length = 0;  // payload bytes; payload_bytes except possibly for the last packet
  bool last = false;
};

// Packet `sequence` (< packet_count) of a message.
// Inline, as encode() below: the sender runs both once per packet.
inline PacketSlice packet_slice(uint64_t message_bytes, uint32_t sequence,
                                uint32_t payload_bytes = kDefaultPayloadBytes) {
  PacketSlice p;
  p.sequence = sequence;
  p.offset = static_cast<uint64_t>(sequence) * payload_bytes;
  const uint64_t rest = message_bytes > p.offset ? message_bytes - p.offset : 0;
  p.length = static_cast<uint32_t>(rest < payload_bytes ? rest : payload_bytes);
  p.last = rest <= payload_bytes;
  return p;
}

// ---- Byte order --------------------------------------------------------------------------

template <typename T>
constexpr T to_big_endian(T v) {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (std::endian::native == std::endian::big || sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return __builtin_bswap16(v);
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bswap32(v);
  } else {
    return __builtin_bswap64(v);
  }
}
template <typename T>
constexpr T from_big_endian(T v) {
  return to_big_endian(v);  // a byte swap is its own inverse
}

// ---- Testbed header ------------------------------------------------------------------------

enum HeaderFlag : uint8_t {
  kData = 1 << 0,
  kAck = 1 << 1,
  kEcnEcho = 1 << 2,     // ACK: the data packet arrived CE-marked
  kRetransmit = 1 << 3,  // data: sent again (after a timeout or a NACK)
  kTrimmed = 1 << 4,     // data: a switch cut it to its headers (net/trim.h), set by the switch
  kNack = 1 << 5,        // the receiver got packet `sequence` trimmed: send it again now
  // cc rccc (rccc_credits.h): control frames, forwarded as ACKs are (never trimmed).
  kPull = 1 << 6,  // receiver to sender: credit up to pull number `acked_packets`
  kRts = 1 << 7,   // sender to receiver: out of credit, pull target `acked_packets`
};
// A trimmed data frame's testbed header: its first bytes, through `sequence`.
inline constexpr size_t kTrimmedHeaderBytes = 16;

inline constexpr uint16_t kHeaderMagic = 0x5350;
inline constexpr uint8_t kHeaderVersion = 1;

// The header as it lies in the packet: a packed POD of big-endian fields. Read and write it only
// through encode()/decode(), which do the byte swaps.
struct __attribute__((packed)) WireHeader {
  uint16_t magic;
  uint8_t version;
  uint8_t flags;
  uint16_t entropy;
  uint16_t acked_packets;
  uint32_t message_id;
  uint32_t sequence;
  uint64_t offset;
  uint64_t message_bytes;
  uint64_t send_ts_ns;
};
static_assert(sizeof(WireHeader) == 40);
static_assert(std::is_trivially_copyable_v<WireHeader> && std::is_standard_layout_v<WireHeader>);
inline constexpr size_t kHeaderBytes = sizeof(WireHeader);

// The same fields in host byte order.
struct TestbedHeader {
  uint8_t flags = 0;
  uint16_t entropy = 0;
  uint16_t acked_packets = 0;
  uint32_t message_id = 0;
  uint32_t sequence = 0;
  uint64_t offset = 0;
  uint64_t message_bytes = 0;
  uint64_t send_ts_ns = 0;
  bool operator==(const TestbedHeader&) const = default;
};

// Writes kHeaderBytes bytes at `out` (any alignment).
inline void encode(const TestbedHeader& h, void* out) {
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
// Reads a header from `len` bytes at `in`; false if too short (kHeaderBytes, or
// kTrimmedHeaderBytes for a header with kTrimmed), or the magic or version is wrong.
bool decode(const void* in, size_t len, TestbedHeader* h);

// The ACK a receiver returns for data header `data`: same message, sequence, offset, entropy and
// send timestamp; kEcnEcho set if the data packet was CE-marked.
TestbedHeader make_ack(const TestbedHeader& data, bool ce_marked, uint16_t acked_packets = 1);
// The NACK a receiver returns for trimmed data header `trimmed`: same message and sequence,
// entropy echoed, offset the trimmed packet's (`payload_bytes` per packet).
TestbedHeader make_nack(const TestbedHeader& trimmed, uint32_t payload_bytes);
// cc rccc: a PULL granting credit up to pull number `pull` (low 16 bits) for the flow of message
// `message_id`; and a sender's RTS asking for credit up to pull target `target`.
TestbedHeader make_pull(uint32_t message_id, uint64_t pull, uint16_t entropy);
TestbedHeader make_rts(uint32_t message_id, uint64_t target, uint16_t entropy);

}  // namespace spraylab::gen
