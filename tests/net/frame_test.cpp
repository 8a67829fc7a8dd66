#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "net/frame.h"
#include "net/plain_frame.h"
#include "tests/integration/test_frames.h"

namespace spraylab::net {
namespace {

using spraylab::testing::ip_checksum;

// A valid Ethernet/IPv4/UDP frame with `payload` bytes after UDP.
std::vector<uint8_t> udp_frame(uint32_t payload, uint8_t ttl = 64) {
  const uint32_t ip_len = 20 + 8 + payload;
  std::vector<uint8_t> f(14 + ip_len, 0);
  f[12] = 0x08;
  f[13] = 0x00;
  uint8_t* ip = f.data() + 14;
  ip[0] = 0x45;
  ip[2] = static_cast<uint8_t>(ip_len >> 8);
  ip[3] = static_cast<uint8_t>(ip_len);
  ip[8] = ttl;
  ip[9] = kIpProtoUdp;
  const uint8_t src[4] = {10, 0, 1, 2}, dst[4] = {10, 3, 0, 1};
  std::copy(src, src + 4, ip + 12);
  std::copy(dst, dst + 4, ip + 16);
  const uint16_t c = ip_checksum(ip, 20);
  ip[10] = static_cast<uint8_t>(c >> 8);
  ip[11] = static_cast<uint8_t>(c);
  ip[20] = 0xc0;  // UDP source port 49153
  ip[21] = 0x01;
  ip[22] = 0x12;  // destination 4791 (RoCEv2)
  ip[23] = 0xb7;
  return f;
}

TEST(Frame, ParsesAValidUdpFrame) {
  auto f = udp_frame(64);
  FrameInfo info{};
  ASSERT_EQ(parse_frame(f.data(), static_cast<uint32_t>(f.size()), info), FrameError::kNone);
  EXPECT_EQ(info.src_ip, 0x0a000102u);
  EXPECT_EQ(info.dst_ip, 0x0a030001u);
  EXPECT_EQ(info.src_port, 49153);
  EXPECT_EQ(info.dst_port, 4791);
  EXPECT_EQ(info.ttl, 64);
  EXPECT_EQ(info.l4_offset, 34);
}

// The forwarder's fast path (parse_plain_ipv4) never accepts a frame parse_frame would not, and
// fills the frame record exactly as parse_frame does: checked on every one- and two-byte change of
// a plain UDP frame's headers (and of a plain non-UDP one) and at every length.
bool same_info(const FrameInfo& a, const FrameInfo& b) {
  return a.src_ip == b.src_ip && a.dst_ip == b.dst_ip && a.src_port == b.src_port &&
         a.dst_port == b.dst_port && a.proto == b.proto && a.ttl == b.ttl &&
         a.ip_offset == b.ip_offset && a.l4_offset == b.l4_offset && a.ip_len == b.ip_len &&
         a.frame_len == b.frame_len;
}

// 1 if the fast path accepted f, 0 if it left it to parse_frame; fails the test if it accepted a
// frame parse_frame rejects or filled a field differently. Its slim form (parse_plain_ipv4<false>,
// for balancers that read no more than the destination) must give the same verdict and the fields
// routing and the rewrite read.
int check_plain(const std::vector<uint8_t>& f, uint32_t len) {
  FrameInfo fast{}, full{}, slim{};
  const bool slim_ok = parse_plain_ipv4<false>(f.data(), len, slim);
  const bool fast_ok = parse_plain_ipv4(f.data(), len, fast);
  EXPECT_EQ(slim_ok, fast_ok) << "the slim parse's verdict differs, " << len << " bytes";
  if (!fast_ok) return 0;
  const FrameError r = parse_frame(f.data(), len, full);
  EXPECT_EQ(r, FrameError::kNone) << "fast path accepted a frame of " << len << " bytes";
  EXPECT_TRUE(same_info(fast, full)) << "fast path's record differs, " << len << " bytes";
  EXPECT_TRUE(slim.ip_offset == full.ip_offset && slim.ttl == full.ttl &&
              slim.dst_ip == full.dst_ip && slim.frame_len == full.frame_len)
      << "the slim parse's record differs, " << len << " bytes";
  return 1;
}

TEST(Frame, ThePlainFramePathAgreesWithParseFrame) {
  for (const uint8_t proto : {kIpProtoUdp, uint8_t{6}}) {
    auto base = udp_frame(18);  // 60 bytes, the null bench's frame
    base[14 + 9] = proto;
    int accepted = 0, tried = 0;
    for (uint32_t len = 0; len <= base.size(); ++len, ++tried) accepted += check_plain(base, len);
    // Every byte of the headers (Ethernet, IPv4, UDP) to a few values, and the length and
    // protocol bytes in pairs.
    for (size_t at = 0; at < 42; ++at) {
      for (const uint8_t v :
           {0x00, 0x01, 0x05, 0x08, 0x11, 0x14, 0x1b, 0x1c, 0x2e, 0x45, 0x46, 0x81, 0xff}) {
        auto f = base;
        f[at] = v;
        accepted += check_plain(f, static_cast<uint32_t>(f.size()));
        ++tried;
      }
    }
    for (uint32_t total = 0; total < 64; ++total) {
      auto f = base;
      f[16] = 0;
      f[17] = static_cast<uint8_t>(total);
      for (const uint32_t len : {42u, 47u, 48u, 60u}) {
        accepted += check_plain(f, len);
        ++tried;
      }
    }
    // The plain frame itself takes the fast path, and so do most one-byte changes (addresses,
    // ports, TTL, checksum): the fast path is not a path never taken.
    EXPECT_EQ(check_plain(base, static_cast<uint32_t>(base.size())), 1);
    EXPECT_GT(accepted, tried / 2);
  }
}

TEST(Frame, ThePlainFramePathLeavesTagsOptionsAndShortFramesToParseFrame) {
  FrameInfo info{};
  auto f = udp_frame(18);
  EXPECT_TRUE(parse_plain_ipv4(f.data(), static_cast<uint32_t>(f.size()), info));
  EXPECT_FALSE(parse_plain_ipv4(f.data(), 41, info));  // below Ethernet + IPv4 + UDP headers
  auto options = f;
  options[14] = 0x46;  // IHL 6: options
  EXPECT_FALSE(parse_plain_ipv4(options.data(), static_cast<uint32_t>(options.size()), info));
  auto tagged = f;
  tagged.insert(tagged.begin() + 12, {0x81, 0x00, 0x00, 0x05});
  EXPECT_FALSE(parse_plain_ipv4(tagged.data(), static_cast<uint32_t>(tagged.size()), info));
  EXPECT_EQ(parse_frame(tagged.data(), static_cast<uint32_t>(tagged.size()), info),
            FrameError::kNone);
  auto short_udp = f;
  short_udp[16] = 0;
  short_udp[17] = 27;  // a UDP datagram without room for its header
  EXPECT_FALSE(parse_plain_ipv4(short_udp.data(), static_cast<uint32_t>(short_udp.size()), info));
}

// Found by tests/fuzz/frame_fuzz.cpp: the generator read its testbed header up to the frame's
// end, so bytes past the IPv4 datagram (Ethernet padding) could be taken for a header.
TEST(Frame, UdpPayloadEndsWithTheDatagramNotTheFrame) {
  auto f = udp_frame(24);
  f.resize(f.size() + 40, 0xee);  // trailing bytes after the datagram
  FrameInfo info{};
  ASSERT_EQ(parse_frame(f.data(), static_cast<uint32_t>(f.size()), info), FrameError::kNone);
  EXPECT_EQ(info.ip_len, 20 + 8 + 24);
  const std::span<const uint8_t> payload = udp_payload(f.data(), info);
  EXPECT_EQ(payload.data(), f.data() + 14 + 20 + 8);
  EXPECT_EQ(payload.size(), 24u);
}

TEST(Frame, EveryMalformedFrameGetsItsReason) {
  FrameInfo info{};
  auto f = udp_frame(16);
  const auto n = static_cast<uint32_t>(f.size());
  EXPECT_EQ(parse_frame(f.data(), 10, info), FrameError::kTruncated);
  EXPECT_EQ(parse_frame(f.data(), 30, info), FrameError::kTruncated);
  EXPECT_EQ(parse_frame(f.data(), n - 1, info), FrameError::kTruncated);  // IP length > frame
  auto arp = f;
  arp[13] = 0x06;
  EXPECT_EQ(parse_frame(arp.data(), n, info), FrameError::kNotIpv4);
  auto bad_ihl = f;
  bad_ihl[14] = 0x44;
  EXPECT_EQ(parse_frame(bad_ihl.data(), n, info), FrameError::kBadIpHeader);
  auto v6 = f;
  v6[14] = 0x65;
  EXPECT_EQ(parse_frame(v6.data(), n, info), FrameError::kBadIpHeader);
}

// The same frame with one 802.1Q tag (TPID 0x8100, VLAN 5) between the MACs and the ethertype.
std::vector<uint8_t> vlan_frame(uint32_t payload) {
  auto f = udp_frame(payload);
  const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
  f.insert(f.begin() + 12, tag, tag + 4);
  return f;
}

TEST(Frame, ParsesAVlanTaggedFrameFromBehindTheTag) {
  auto f = vlan_frame(64);
  FrameInfo info{};
  ASSERT_EQ(parse_frame(f.data(), static_cast<uint32_t>(f.size()), info), FrameError::kNone);
  EXPECT_EQ(info.ip_offset, 18);
  EXPECT_EQ(info.l4_offset, 38);
  EXPECT_EQ(info.ip_len, 20 + 8 + 64);
  EXPECT_EQ(info.src_ip, 0x0a000102u);
  EXPECT_EQ(info.dst_ip, 0x0a030001u);
  EXPECT_EQ(info.src_port, 49153);
  EXPECT_EQ(info.dst_port, 4791);
  EXPECT_EQ(info.ttl, 64);
  EXPECT_EQ(udp_payload(f.data(), info).data(), f.data() + 18 + 20 + 8);
  // The tag counts in every length: its IPv4 header and datagram end 4 bytes later.
  EXPECT_EQ(parse_frame(f.data(), 17, info), FrameError::kTruncated);  // the tag cut short
  EXPECT_EQ(parse_frame(f.data(), 18 + 19, info), FrameError::kTruncated);
  EXPECT_EQ(parse_frame(f.data(), static_cast<uint32_t>(f.size()) - 1, info),
            FrameError::kTruncated);
  auto arp = f;
  arp[17] = 0x06;  // the ethertype behind the tag decides
  EXPECT_EQ(parse_frame(arp.data(), static_cast<uint32_t>(arp.size()), info), FrameError::kNotIpv4);
}

// The two length checks after the IPv4 header's own: a total length shorter than the header is a
// bad header; a UDP datagram too short for the UDP header is truncated. A non-UDP datagram of just
// its header is fine.
TEST(Frame, ATotalLengthBelowTheHeaderIsABadHeaderAndAShortUdpIsTruncated) {
  FrameInfo info{};
  auto f = udp_frame(16);
  const auto n = static_cast<uint32_t>(f.size());
  const auto set_total = [](std::vector<uint8_t>& g, uint16_t total) {
    g[14 + 2] = static_cast<uint8_t>(total >> 8);
    g[14 + 3] = static_cast<uint8_t>(total);
  };
  auto below_ihl = f;
  set_total(below_ihl, 19);  // IHL 5: 20 bytes of header
  EXPECT_EQ(parse_frame(below_ihl.data(), n, info), FrameError::kBadIpHeader);
  auto options = f;
  options[14] = 0x46;      // IHL 6: 24 bytes
  set_total(options, 23);  // at least 20, still below this header
  EXPECT_EQ(parse_frame(options.data(), n, info), FrameError::kBadIpHeader);
  auto short_udp = f;
  set_total(short_udp, 20 + 7);  // one byte short of the UDP header
  EXPECT_EQ(parse_frame(short_udp.data(), n, info), FrameError::kTruncated);
  set_total(short_udp, 20 + 8);  // the UDP header exactly, no payload
  EXPECT_EQ(parse_frame(short_udp.data(), n, info), FrameError::kNone);
  auto tcp = f;
  tcp[14 + 9] = 6;
  set_total(tcp, 20);
  EXPECT_EQ(parse_frame(tcp.data(), n, info), FrameError::kNone);
  EXPECT_EQ(info.src_port, 0);
  EXPECT_EQ(info.ip_len, 20);
}

TEST(Frame, TtlDecrementKeepsTheChecksumValid) {
  for (uint8_t ttl : {2, 64, 255}) {
    auto f = udp_frame(0, ttl);
    uint8_t* ip = f.data() + 14;
    ASSERT_TRUE(decrement_ttl(ip));
    EXPECT_EQ(ip[8], ttl - 1);
    EXPECT_EQ(ip_checksum(ip, 20), 0) << "ttl " << int(ttl);
  }
}

// decrement_ttl's folded update gives the same checksum bytes as update_ip_checksum (RFC 1624
// eqn. 3) for every checksum and TTL, 0xFEFF (where a plain end-around add gives 0xFFFF) among
// them.
TEST(Frame, TtlDecrementMatchesRfc1624ForEveryChecksum) {
  for (uint32_t check = 0; check <= 0xffff; ++check) {
    for (uint8_t ttl : {2, 64, 255}) {
      auto f = udp_frame(0, ttl);
      uint8_t* ip = f.data() + 14;
      ip[10] = static_cast<uint8_t>(check >> 8);
      ip[11] = static_cast<uint8_t>(check);
      auto g = f;
      uint8_t* ref = g.data() + 14;
      const uint16_t old_word = static_cast<uint16_t>(ref[8] << 8 | ref[9]);
      ref[8]--;
      update_ip_checksum(ref, old_word, static_cast<uint16_t>(ref[8] << 8 | ref[9]));
      ASSERT_TRUE(decrement_ttl(ip));
      ASSERT_EQ(f, g) << "checksum " << check << " ttl " << int(ttl);
    }
  }
}

TEST(Frame, TtlOfOneOrZeroIsNotForwarded) {
  for (uint8_t ttl : {0, 1}) {
    auto f = udp_frame(0, ttl);
    EXPECT_FALSE(decrement_ttl(f.data() + 14));
    EXPECT_EQ(f[14 + 8], ttl);
  }
}

TEST(Frame, CeMarkingKeepsTheChecksumValidAndSparesNonEctPackets) {
  for (uint8_t ecn : {0x01, 0x02}) {
    auto f = udp_frame(0);
    uint8_t* ip = f.data() + 14;
    ip[1] = ecn;
    ip[10] = ip[11] = 0;
    const uint16_t c = ip_checksum(ip, 20);
    ip[10] = static_cast<uint8_t>(c >> 8);
    ip[11] = static_cast<uint8_t>(c);
    ASSERT_TRUE(mark_ce(ip));
    EXPECT_EQ(ip[1] & 0x03, 0x03);
    EXPECT_EQ(ip_checksum(ip, 20), 0) << "ecn " << int(ecn);
  }
  auto f = udp_frame(0);  // not ECN-capable: untouched
  EXPECT_FALSE(mark_ce(f.data() + 14));
  EXPECT_EQ(f[15] & 0x03, 0);
}

TEST(Frame, ChecksumUpdateFromALengthOfZeroMatchesAFullComputation) {
  auto f = udp_frame(100);
  uint8_t* ip = f.data() + 14;
  const uint16_t len = static_cast<uint16_t>(ip[2] << 8 | ip[3]);
  ip[2] = ip[3] = ip[10] = ip[11] = 0;
  const uint16_t c = ip_checksum(ip, 20);  // the header with a total length of 0
  ip[10] = static_cast<uint8_t>(c >> 8);
  ip[11] = static_cast<uint8_t>(c);
  ip[2] = static_cast<uint8_t>(len >> 8);
  ip[3] = static_cast<uint8_t>(len);
  update_ip_checksum(ip, 0, len);
  EXPECT_EQ(ip_checksum(ip, 20), 0);
}

TEST(Frame, FlowHashDependsOnTheEntropyPort) {
  EXPECT_EQ(flow_hash(1, 2, 3, 4, 17), flow_hash(1, 2, 3, 4, 17));
  EXPECT_NE(flow_hash(1, 2, 3, 4, 17), flow_hash(1, 2, 5, 4, 17));
}

}  // namespace
}  // namespace spraylab::net
