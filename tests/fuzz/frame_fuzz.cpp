// libFuzzer target: the receive-side parse of both data paths on arbitrary bytes as a frame.
//   switch:    net::parse_frame classifies the frame (a drop reason, or FrameInfo), then the
//              forwarder hashes it, decrements its TTL and may mark it CE
//              (net/frame.h).
//   generator: a UDP frame's payload is decoded as the testbed header (gen::decode,
//              trafficgen/packet.h) as HostEngine::receive does, and an ACK is made from a data
//              header.
// Malformed frames must come back as drop reasons; an out-of-bounds access (ASan), undefined
// behaviour (UBSan) or a broken property below is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "net/frame.h"
#include "net/plain_frame.h"
#include "tests/fuzz/fuzz_check.h"
#include "trafficgen/packet.h"

namespace {

using spraylab::net::FrameError;
using spraylab::net::FrameInfo;

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

// RFC 1071: a header whose checksum is right sums to 0xffff (ones' complement).
bool ip_checksum_ok(const uint8_t* ip, uint32_t header_len) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < header_len; i += 2) sum += be16(ip + i);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return sum == 0xffff;
}

// The verdict parse_frame must give, written from net/frame.h's contract and checked in this
// order: Ethernet (14 bytes) and at most one 802.1Q tag (4 more); the ethertype behind them IPv4;
// a 20-byte header in the frame; version 4 and IHL ≥ 5; a total length at least the IHL (else a
// bad header) and within the frame (else truncated); for UDP, room for its 8-byte header in the
// datagram (else truncated). `ip_offset`: where the IPv4 header starts.
FrameError expected_verdict(const uint8_t* f, uint32_t len, uint32_t& ip_offset) {
  if (len < 14) return FrameError::kTruncated;
  ip_offset = be16(f + 12) == 0x8100 ? 18 : 14;
  if (len < ip_offset) return FrameError::kTruncated;
  if (be16(f + ip_offset - 2) != 0x0800) return FrameError::kNotIpv4;
  if (len < ip_offset + 20) return FrameError::kTruncated;
  const uint8_t* ip = f + ip_offset;
  const uint32_t ihl = 4u * (ip[0] & 0x0f);
  if (ip[0] >> 4 != 4 || ihl < 20) return FrameError::kBadIpHeader;
  const uint32_t total = be16(ip + 2);
  if (total < ihl) return FrameError::kBadIpHeader;
  if (ip_offset + total > len) return FrameError::kTruncated;
  if (ip[9] == spraylab::net::kIpProtoUdp && total < ihl + 8) return FrameError::kTruncated;
  return FrameError::kNone;
}

uint32_t be32(const uint8_t* p) { return static_cast<uint32_t>(be16(p)) << 16 | be16(p + 2); }

// What parse_frame promises about a frame it accepts: every header it reports lies in the frame,
// and the fields are the bytes at the offsets expected_verdict found.
void check_accepted(const uint8_t* frame, uint32_t len, const FrameInfo& fi, uint32_t ip_offset) {
  FUZZ_CHECK(fi.ip_offset == ip_offset, "ip_offset %u, expected %u", fi.ip_offset, ip_offset);
  const uint8_t* ip = frame + fi.ip_offset;
  const uint32_t ihl = (ip[0] & 0x0f) * 4u;
  const uint32_t total = be16(ip + 2);
  FUZZ_CHECK((ip[0] >> 4) == 4 && ihl >= 20, "accepted a bad IPv4 header");
  FUZZ_CHECK(fi.l4_offset == fi.ip_offset + ihl, "l4_offset %u", fi.l4_offset);
  FUZZ_CHECK(fi.ip_offset + total <= len, "datagram of %u bytes beyond a %u-byte frame", total,
             len);
  FUZZ_CHECK(total >= ihl, "datagram shorter than its header");
  FUZZ_CHECK(fi.ip_len == total, "ip_len %u, header says %u", fi.ip_len, total);
  FUZZ_CHECK(fi.ttl == ip[8] && fi.proto == ip[9], "TTL or protocol not the header's");
  FUZZ_CHECK(fi.src_ip == be32(ip + 12) && fi.dst_ip == be32(ip + 16),
             "addresses not the header's");
  FUZZ_CHECK(fi.frame_len == len, "frame_len %u of %u", fi.frame_len, len);
  if (fi.proto == spraylab::net::kIpProtoUdp) {
    FUZZ_CHECK(fi.l4_offset + 8u <= fi.ip_offset + total, "UDP header beyond the datagram");
    FUZZ_CHECK(fi.src_port == be16(ip + ihl) && fi.dst_port == be16(ip + ihl + 2),
               "UDP ports not the header's");
  } else {
    FUZZ_CHECK(fi.src_port == 0 && fi.dst_port == 0, "ports on a datagram that is not UDP");
  }
}

// The switch's steps after a frame is accepted, on a writable copy.
void forward(uint8_t* frame, const FrameInfo& fi) {
  (void)spraylab::net::flow_hash(fi.src_ip, fi.dst_ip, fi.src_port, fi.dst_port, fi.proto);
  uint8_t* ip = frame + fi.ip_offset;
  const uint32_t ihl = (ip[0] & 0x0f) * 4u;
  const bool checksum_ok = ip_checksum_ok(ip, ihl);
  const uint8_t ttl = ip[8];
  const bool forwarded = spraylab::net::decrement_ttl(ip);
  FUZZ_CHECK(forwarded == (ttl > 1), "decrement_ttl at TTL %u", ttl);
  FUZZ_CHECK(ip[8] == (forwarded ? ttl - 1 : ttl), "TTL %u -> %u", ttl, ip[8]);
  (void)spraylab::net::mark_ce(ip);
  // RFC 1624: the incremental updates keep a right checksum right.
  if (checksum_ok) FUZZ_CHECK(ip_checksum_ok(ip, ihl), "checksum broken by TTL/ECN update");
}

// The generator's receive step for a UDP frame: the testbed header after UDP.
void receive(const uint8_t* frame, uint32_t len, const FrameInfo& fi) {
  const std::span<const uint8_t> payload = spraylab::net::udp_payload(frame, fi);
  spraylab::gen::TestbedHeader h;
  if (!spraylab::gen::decode(payload.data(), payload.size(), &h)) return;
  const uint32_t datagram_end = fi.ip_offset + be16(frame + fi.ip_offset + 2);
  FUZZ_CHECK(payload.data() + payload.size() <= frame + len, "UDP payload beyond the frame");
  // A trimmed header (net/trim.h) is its first kTrimmedHeaderBytes: decode() reads no more.
  const size_t header = payload.size() < spraylab::gen::kHeaderBytes
                            ? spraylab::gen::kTrimmedHeaderBytes
                            : spraylab::gen::kHeaderBytes;
  FUZZ_CHECK(header == spraylab::gen::kHeaderBytes || (h.flags & spraylab::gen::kTrimmed),
             "a short testbed header decoded without kTrimmed");
  FUZZ_CHECK(fi.l4_offset + 8u + header <= datagram_end,
             "testbed header read beyond the IPv4 datagram (ends at %u)", datagram_end);
  // decode() then encode() gives back the bytes on the wire.
  uint8_t again[spraylab::gen::kHeaderBytes];
  spraylab::gen::encode(h, again);
  FUZZ_CHECK(std::memcmp(again, payload.data(), header) == 0, "decode/encode round trip differs");
  if (h.flags & spraylab::gen::kData) {
    const spraylab::gen::TestbedHeader ack = spraylab::gen::make_ack(h, true, 3);
    FUZZ_CHECK(ack.message_id == h.message_id && ack.sequence == h.sequence &&
                   ack.entropy == h.entropy && ack.send_ts_ns == h.send_ts_ns &&
                   ack.flags == (spraylab::gen::kAck | spraylab::gen::kEcnEcho),
               "make_ack changed the data header's identity");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536 + 18) return 0;  // a frame's length fits parse_frame's uint32_t many times over
  // A writable copy of exactly `size` bytes: ASan flags any read or write past the frame.
  std::vector<uint8_t> frame(data, data + size);
  const auto len = static_cast<uint32_t>(size);
  FrameInfo fi;
  const FrameError r = spraylab::net::parse_frame(frame.data(), len, fi);
  uint32_t ip_offset = 0;
  const FrameError expected = expected_verdict(frame.data(), len, ip_offset);
  FUZZ_CHECK(r == expected, "parse_frame's verdict %u, expected %u", static_cast<unsigned>(r),
             static_cast<unsigned>(expected));
  // The forwarder's fast path: never a frame parse_frame rejects, and parse_frame's record.
  FrameInfo plain;
  if (spraylab::net::parse_plain_ipv4(frame.data(), len, plain)) {
    FUZZ_CHECK(r == FrameError::kNone, "parse_plain_ipv4 accepted a frame parse_frame gives %u",
               static_cast<unsigned>(r));
    FUZZ_CHECK(plain.src_ip == fi.src_ip && plain.dst_ip == fi.dst_ip &&
                   plain.src_port == fi.src_port && plain.dst_port == fi.dst_port &&
                   plain.proto == fi.proto && plain.ttl == fi.ttl &&
                   plain.ip_offset == fi.ip_offset && plain.l4_offset == fi.l4_offset &&
                   plain.ip_len == fi.ip_len && plain.frame_len == fi.frame_len,
               "parse_plain_ipv4's record differs from parse_frame's");
  }
  // Its slim form (balancers that read no more than the destination): the same verdict, and the
  // fields routing and the header rewrite read.
  FrameInfo slim;
  const bool slim_ok = spraylab::net::parse_plain_ipv4<false>(frame.data(), len, slim);
  FUZZ_CHECK(slim_ok == spraylab::net::parse_plain_ipv4(frame.data(), len, plain),
             "parse_plain_ipv4<false>'s verdict differs from parse_plain_ipv4's");
  FUZZ_CHECK(!slim_ok || (slim.ip_offset == fi.ip_offset && slim.ttl == fi.ttl &&
                          slim.dst_ip == fi.dst_ip && slim.frame_len == fi.frame_len),
             "parse_plain_ipv4<false>'s record differs from parse_frame's");
  if (r != FrameError::kNone) return 0;
  check_accepted(frame.data(), len, fi, ip_offset);
  if (fi.proto == spraylab::net::kIpProtoUdp) receive(frame.data(), len, fi);
  forward(frame.data(), fi);
  return 0;
}
