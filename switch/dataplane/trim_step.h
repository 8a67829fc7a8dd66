// The switch's trim step on an mbuf (buffer.trim): net/trim.h cuts the frame's bytes, this cuts
// the mbuf to match. Inline: it runs on the data path, for frames beyond a port's trim threshold.
#pragma once

#include <rte_mbuf.h>

#include "net/trim.h"

namespace spraylab::dataplane {

// Cuts `m` to a trimmed frame if it is a generator data frame not trimmed yet (net/trim.h);
// returns false, leaving it as it was, for any other frame (ACKs, NACKs, headers trimmed
// already, foreign traffic). A chained mbuf loses its later segments: the headers are in the
// first.
inline bool trim_data_frame(rte_mbuf* m) {
  uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
  net::FrameInfo fi{};
  if (net::parse_frame(frame, rte_pktmbuf_data_len(m), fi) != net::FrameError::kNone ||
      !net::trimmable(net::testbed_flags(frame, fi)) ||
      rte_pktmbuf_pkt_len(m) <= net::trimmed_length(fi)) {
    return false;
  }
  const uint32_t len = net::trim_frame(frame, fi);
  if (m->next != nullptr) {
    rte_pktmbuf_free(m->next);
    m->next = nullptr;
    m->nb_segs = 1;
  }
  m->data_len = static_cast<uint16_t>(len);
  m->pkt_len = len;
  return true;
}

// The longest trimmed header (a VLAN tag and IPv4 options make it longer than 60 B).
inline constexpr uint32_t kMaxTrimmedFrame = 18 + 60 + 8 + net::kTrimmedTestbedBytes;

// Whether `m` is a header a switch trimmed (it travels in the priority class at every hop).
inline bool is_trimmed_header(rte_mbuf* m) {
  const uint8_t* frame = rte_pktmbuf_mtod(m, const uint8_t*);
  net::FrameInfo fi{};
  return net::parse_frame(frame, rte_pktmbuf_data_len(m), fi) == net::FrameError::kNone &&
         (net::testbed_flags(frame, fi) & net::kTestbedTrimmed) != 0;
}

}  // namespace spraylab::dataplane
