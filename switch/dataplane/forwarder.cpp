#include "switch/dataplane/forwarder.h"

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>
#include <rte_vect.h>

#include <cstring>

#include "net/credit_frame.h"
#include "net/pfc_frame.h"
#include "net/plain_frame.h"
#include "switch/dataplane/trim_step.h"

// The steps of process() and flush() are functions for the reader, and inlined for the machine:
// the burst's arrays and counts stay in the one frame (and registers) they had as one body.
#define SPRAYLAB_STEP [[gnu::always_inline]] inline
#define SPRAYLAB_LAMBDA_INLINE __attribute__((always_inline))

namespace spraylab::dataplane {

// SwitchTables::leaf_rank's value at a switch that is no leaf: a source leaf never known.
constexpr uint32_t kUnknownLeaf = UINT32_MAX;

// What the steps of one burst hand each other: the frames still forwarded (ok[i]; nullptr once
// dropped), what parse and route learned of them, and where each goes. Uninitialised: process()
// fills what it reads.
struct Forwarder::Burst {
  uint16_t rx_port;
  uint16_t rx_queue;
  uint64_t now_ns;
  uint16_t size;         // frames that parsed: the entries of the arrays below
  bool needs_src_leaf;   // the algorithm reads the source leaf (lb::Traits)
  bool hashes;           // the algorithm reads the flow hash
  bool labels;           // the algorithm reads and writes a path label (lb::Traits::path_label)
  lb::Inputs inputs;     // the fields of lb::Packet the algorithm reads (lb::Traits::inputs)
  std::array<net::FrameInfo, net::kBurst> info;
  std::array<rte_mbuf*, net::kBurst> ok;
  std::array<uint32_t, net::kBurst> dst, route;
  std::array<uint32_t, net::kBurst> src_leaf;  // source leaf rank (source_leaves())
  std::array<uint16_t, net::kBurst> out_port;
};

Forwarder::Forwarder(SwitchRuntime& rt, uint32_t worker)
    : rt_(rt),
      pfc_(rt.pfc()),
      credits_(rt.credits()),
      vcs_(rt.tables().virtual_channels),
      worker_(worker),
      c_(rt.counters(worker)),
      // The switch's own seed (tables().seed, lb::switch_seed), salted so the forwarder's stream
      // is not one the balancers' shared state draws with the same seed.
      rng_(lb::Rng::for_lcore(rt.tables().seed ^ 0x5357u, worker)),
      staged_(size_t{rt.ports()} * kStaged, nullptr),
      rewrite_at_stage_(!rt.tables().trim && rt.tables().virtual_channels <= 1) {
  for (uint16_t p = 0; p < rt.ports(); ++p) {
    const PortInfo& info = rt.tables().ports[p];
    std::memcpy(macs_[p].bytes, info.peer_mac.data(), 6);
    std::memcpy(macs_[p].bytes + 6, info.mac.data(), 6);
  }
}

namespace {

// Writes `macs` (destination, source) over the first 12 bytes of the frame at `eth`, which has
// at least 16 (parse accepted an Ethernet and an IPv4 header): one 16-byte load, a blend that
// keeps bytes 12..15 (the ethertype and what follows) and one store, as l3fwd's processx4_step3.
[[gnu::always_inline]] inline void rewrite_macs(uint8_t* eth, const uint8_t* macs) {
#if defined(__SSE4_1__)
  const __m128i header = _mm_loadu_si128(reinterpret_cast<const __m128i*>(eth));
  const __m128i pair = _mm_load_si128(reinterpret_cast<const __m128i*>(macs));
  // Words 0..5 (bytes 0..11) from the pair, words 6..7 from the header.
  _mm_storeu_si128(reinterpret_cast<__m128i*>(eth), _mm_blend_epi16(header, pair, 0x3f));
#else
  std::memcpy(eth, macs, 12);
#endif
}

}  // namespace

void Forwarder::drop(rte_mbuf* m, uint16_t port, DropReason r) {
  c_.port[port].drops[static_cast<size_t>(r)].inc();
  rte_pktmbuf_free(m);
}

void Forwarder::control_frame(rte_mbuf* m, uint16_t rx_port, uint64_t now_ns) {
  net::PfcFrame f;
  const net::PfcParse r =
      net::parse_pfc(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), f);
  if (r != net::PfcParse::kPfc || pfc_ == nullptr) {
    drop(m, rx_port, DropReason::kBadMacControl);
    return;
  }
  pfc_->received(rx_port, f, now_ns);
  rte_pktmbuf_free(m);
}

void Forwarder::credit_frame(rte_mbuf* m, uint16_t rx_port, uint64_t now_ns) {
  uint64_t freed = 0;
  uint8_t vc = 0;
  const net::CreditParse r =
      net::parse_credit(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), freed, vc);
  if (r != net::CreditParse::kCredit || credits_ == nullptr || vc >= credits_->vcs()) {
    drop(m, rx_port, DropReason::kBadCreditFrame);
    return;
  }
  credits_->received(rx_port, vc, freed, now_ns);
  rte_pktmbuf_free(m);
}

void Forwarder::process(rte_mbuf** pkts, uint16_t n, uint16_t rx_port, uint16_t rx_queue,
                        uint64_t now_ns, bool hold) {
  Burst b;
  b.rx_port = rx_port;
  b.rx_queue = rx_queue;
  b.now_ns = now_ns;
  if (pfc_ != nullptr || credits_ != nullptr) {
    // Each frame's ingress port, for the PFC or credit accounting when it leaves (drain()).
    for (uint16_t i = 0; i < n; ++i) pkts[i]->port = rx_port;
  }
  const BalancerSet* set = rt_.balancers();
  // The burst's balancer's traits, looked up once for parse, route and balance.
  const lb::Traits& traits = lb::traits(set->factory->algorithm());
  // A balancer that reads only the candidates, bytes or destination, and no source leaf: the
  // parse leaves out the source address, ports and protocol (net::parse_plain_ipv4<false>).
  const bool all_fields = traits.inputs == lb::Inputs::kAll || traits.source_leaf;
  if ((all_fields ? parse<true>(pkts, n, b) : parse<false>(pkts, n, b)) == 0) return;
  const uint16_t choices = route(b, traits);
  if (choices > 0) balance(b, choices, *set, traits, now_ns);
  enqueue(b);
  if (!hold) flush_staged();
}

// Parse four frames a step, as l3fwd's processx4 steps do: the plain frame's checks
// (net::parse_plain_ipv4) on all four, then one branch; a step with any other frame in it takes
// its frames one at a time through parse_frame, which gives the malformed ones their exact drop
// reasons. The headers of the frames two steps ahead are on their way to the cache meanwhile.
// Malformed frames are counted drops; the others fill b. Returns b.size. kAllFields: every field
// of b.info, else what route() and the rewrite read (net::parse_plain_ipv4's).
template <bool kAllFields>
SPRAYLAB_STEP uint16_t Forwarder::parse(rte_mbuf** pkts, uint16_t n, Burst& b) {
  constexpr uint16_t kStep = 4;
  constexpr uint16_t kPrefetchAhead = 2 * kStep;
  for (uint16_t i = 0; i < n && i < kPrefetchAhead; ++i)
    rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
  uint16_t k = 0;
  uint32_t rx_bytes = 0;
  // One frame on its own: into b at k when it parses, else a counted drop with parse_frame's
  // reason.
  auto one = [&](rte_mbuf* m) SPRAYLAB_LAMBDA_INLINE {
    const uint32_t len = rte_pktmbuf_pkt_len(m);
    rx_bytes += len;
    const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
    if (!net::parse_plain_ipv4<kAllFields>(data, rte_pktmbuf_data_len(m), b.info[k])) {
      if (net::is_mac_control(data, rte_pktmbuf_data_len(m))) {
        control_frame(m, b.rx_port, b.now_ns);
        return;
      }
      if (net::is_credit_frame(data, rte_pktmbuf_data_len(m))) {
        credit_frame(m, b.rx_port, b.now_ns);
        return;
      }
      const DropReason r = drop_reason(net::parse_frame(data, rte_pktmbuf_data_len(m), b.info[k]));
      if (r != DropReason::kNone) {
        drop(m, b.rx_port, r);
        return;
      }
    }
    b.info[k].frame_len = len;
    b.dst[k] = b.info[k].dst_ip;
    b.ok[k++] = m;
  };
  uint16_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    for (uint16_t j = i + kPrefetchAhead; j < i + kPrefetchAhead + kStep && j < n; ++j)
      rte_prefetch0(rte_pktmbuf_mtod(pkts[j], void*));
    // b.info[k + j] is room enough: k + j <= i + j < n.
    bool plain = true;
    for (uint16_t j = 0; j < kStep; ++j) {
      const rte_mbuf* m = pkts[i + j];
      plain &= net::parse_plain_ipv4<kAllFields>(rte_pktmbuf_mtod(m, const uint8_t*),
                                                 rte_pktmbuf_data_len(m), b.info[k + j]);
    }
    if (plain) {
      for (uint16_t j = 0; j < kStep; ++j) {
        rte_mbuf* m = pkts[i + j];
        const uint32_t len = rte_pktmbuf_pkt_len(m);
        rx_bytes += len;
        b.info[k + j].frame_len = len;
        b.dst[k + j] = b.info[k + j].dst_ip;
        b.ok[k + j] = m;
      }
      k += kStep;
      continue;
    }
    for (uint16_t j = 0; j < kStep; ++j) one(pkts[i + j]);
  }
  for (; i < n; ++i) one(pkts[i]);
  PortCounters& rx = c_.port[b.rx_port];
  rx.rx_packets.add(n);  // once per burst: a per-packet store chain costs more than the count
  rx.rx_bytes.add(rx_bytes);
  b.size = k;
  return k;
}

// Route: the destination's LPM entry gives each frame its candidate ports. A frame with one way
// out gets it now; one with a choice becomes a balancing input in choice_. Returns the choices.
SPRAYLAB_STEP uint16_t Forwarder::route(Burst& b, const lb::Traits& traits) {
  const SwitchTables& t = rt_.tables();
  const LiveGroups* groups = rt_.groups();
  const uint16_t k = b.size;
  rt_.dst_routes().lookup_bulk(b.dst.data(), b.route.data(), k);
  // Only ECMP reads the flow hash: two CRC32C steps per packet that the others would waste.
  b.hashes = traits.flow_hash;
  b.needs_src_leaf = traits.source_leaf;
  b.labels = traits.path_label;
  b.inputs = traits.inputs;
  if (traits.source_leaf) source_leaves(b);
  // In locals: describe_choice stores a pointer per frame, which the compiler must assume may be
  // the routes' own, so it read them from the tables again for every frame.
  const RouteEntry* const routes = t.routes.data();
  const bool every_fabric_port = traits.every_fabric_port;
  uint16_t nc = 0;
  for (uint16_t i = 0; i < k; ++i) {
    const std::vector<topo::PortId>* cands = candidates(b, i, *groups);
    if (cands == nullptr) continue;
    const RouteEntry& re = routes[b.route[i]];
    if (re.local || (cands->size() == 1 && !every_fabric_port)) {
      b.out_port[i] = (*cands)[0];
      continue;
    }
    describe_choice(choice_[nc], b, i, re, *cands);
    choice_of_[nc++] = i;
  }
  return nc;
}

// Each frame's source leaf as its rank (lb::Packet::src_leaf), or kUnknownLeaf. Consecutive
// frames mostly share their source (a spine's traffic comes from few leaves, a leaf's from its own
// hosts), so a one-entry cache answers most of them: one lookup per change of source instead of a
// bulk lookup and a rank load per frame.
SPRAYLAB_STEP void Forwarder::source_leaves(Burst& b) {
  const SwitchTables& t = rt_.tables();
  const RouteLookup& leaves = *rt_.src_leaves();
  uint32_t last_ip = 0, last_rank = 0;
  bool cached = false;
  for (uint16_t i = 0; i < b.size; ++i) {
    const uint32_t ip = b.info[i].src_ip;
    if (!cached || ip != last_ip) {
      const uint32_t l = leaves.lookup(ip);
      // A source in no leaf's prefix: at a leaf, the leaf itself (it entered the fabric here); at
      // a spine, unknown (candidates() drops it; t.leaf_rank is kUnknownLeaf there).
      last_rank = l == RouteLookup::kMiss ? t.leaf_rank : (*t.leaf_prefixes)[l].rank;
      last_ip = ip;
      cached = true;
    }
    b.src_leaf[i] = last_rank;
  }
}

// The live candidate ports of frame i, after its TTL is decremented; nullptr when the frame is
// dropped instead (no route, TTL expired, every candidate down).
SPRAYLAB_STEP const std::vector<topo::PortId>* Forwarder::candidates(Burst& b, uint16_t i,
                                                                     const LiveGroups& groups) {
  rte_mbuf* m = b.ok[i];
  DropReason r = DropReason::kNone;
  const std::vector<topo::PortId>* cands = nullptr;
  if (b.route[i] == RouteLookup::kMiss) {
    r = DropReason::kNoRoute;
  } else if (b.needs_src_leaf && b.src_leaf[i] == kUnknownLeaf) {
    // Polarized labels every hop by d(source leaf, here): without a source leaf a spine has no
    // allowed hop (a leaf stands in for its own hosts, below).
    r = DropReason::kUnknownSource;
  } else if (b.info[i].ttl <= 1) {
    // net::decrement_ttl's test; the decrement itself is admit()'s, beside the MAC rewrite.
    r = DropReason::kTtlExpired;
  } else {
    cands = &groups.of_route(b.route[i]);
    if (cands->empty()) r = DropReason::kPortDown;  // every candidate is down
  }
  if (r == DropReason::kNone) return cands;
  drop(m, b.rx_port, r);
  b.ok[i] = nullptr;
  return nullptr;
}

// Balancing input for frame i: what an algorithm may read of it (balancer.h).
SPRAYLAB_STEP void Forwarder::describe_choice(lb::Packet& p, const Burst& b, uint16_t i,
                                              const RouteEntry& re,
                                              const std::vector<topo::PortId>& cands) {
  // Only what the algorithm reads (lb::Inputs, each set inside the next): the rest would be
  // written, and its sources loaded, for nobody.
  p.candidates = cands.data();
  p.num_candidates = static_cast<uint16_t>(cands.size());
  if (b.inputs == lb::Inputs::kCandidates) return;
  const net::FrameInfo& f = b.info[i];
  p.bytes = f.frame_len;
  if (b.inputs == lb::Inputs::kBytes) return;
  p.dest = re.dest;
  if (b.inputs == lb::Inputs::kDestBytes) return;
  p.ingress_port = b.rx_port;
  p.rx_queue = b.rx_queue;
  p.dst_leaf = re.dst_leaf;
  p.src_leaf = b.needs_src_leaf ? b.src_leaf[i] : 0;  // source_leaves()
  p.hash = b.hashes ? net::flow_hash(f.src_ip, f.dst_ip, f.src_port, f.dst_port, f.proto) : 0;
  p.entropy = f.src_port;
  p.path_label = b.labels ? net::ip_id(rte_pktmbuf_mtod(b.ok[i], const uint8_t*) + f.ip_offset) : 0;
}

// Balance: one call for the burst's choices; a port the algorithm cannot give is a drop.
SPRAYLAB_STEP void Forwarder::balance(Burst& b, uint16_t choices, const BalancerSet& set,
                                      const lb::Traits& traits, uint64_t now_ns) {
  std::array<lb::PortId, net::kBurst> chosen;
  const lb::QueueView depths =
      traits.queue_depths ? rt_.queue_view(set, depth_snapshot_.data()) : lb::QueueView();
  std::array<uint16_t, net::kBurst> labels;
  lb::BurstContext ctx{depths, &rng_, now_ns, b.labels ? labels.data() : nullptr};
  set.per_worker[worker_]->choose(std::span<const lb::Packet>(choice_.data(), choices), ctx,
                                  chosen.data());
  // Once, not per choice: the loop's drops and label writes are stores the compiler cannot tell
  // from the tables' own, so it read the port count's vector again for every choice.
  const uint16_t ports = rt_.ports();
  for (uint16_t j = 0; j < choices; ++j) {
    const uint16_t i = choice_of_[j];
    if (chosen[j] == lb::kNoPort || chosen[j] >= ports) {
      drop(b.ok[i], b.rx_port, DropReason::kPortDown);
      b.ok[i] = nullptr;
      continue;
    }
    if (b.labels && labels[j] != choice_[j].path_label) {
      net::set_ip_id(rte_pktmbuf_mtod(b.ok[i], uint8_t*) + b.info[i].ip_offset, labels[j]);
    }
    b.out_port[i] = chosen[j];
    ++decided_[chosen[j]];  // into the port's counter at flush: once per burst, not per packet
  }
}

// Stage per egress port, in burst order; flush_staged() enqueues (or sends) per port.
SPRAYLAB_STEP void Forwarder::enqueue(Burst& b) {
  if (rewrite_at_stage_) {
    for (uint16_t i = 0; i < b.size; ++i) {
      rte_mbuf* m = b.ok[i];
      if (m == nullptr) continue;
      rewrite(rte_pktmbuf_mtod(m, uint8_t*), b.info[i].ip_offset, b.out_port[i]);
      stage(m, b.out_port[i], b.info[i].frame_len);
    }
    return;
  }
  for (uint16_t i = 0; i < b.size; ++i) {
    if (b.ok[i] != nullptr) stage(b.ok[i], b.out_port[i], b.info[i].frame_len);
  }
}

// As l3fwd's processx4_step3 and rfc1812_process do it, in the line parse() brought in. route()
// dropped the frames whose TTL is 1 or 0, so the decrement is due on every frame here.
SPRAYLAB_STEP void Forwarder::rewrite(uint8_t* eth, uint16_t ip_offset, uint16_t port) {
  rewrite_macs(eth, macs_[port].bytes);
  net::decrement_ttl(eth + ip_offset);
}

void Forwarder::flush_staged() {
  for (uint16_t j = 0; j < touched_count_; ++j) {
    listed_[touched_[j]] = false;
    flush(touched_[j]);
  }
  touched_count_ = 0;
}

void Forwarder::flush(uint16_t port) {
  const uint16_t n = staged_count_[port];
  const uint32_t staged = staged_bytes_[port];
  staged_count_[port] = 0;
  staged_bytes_[port] = 0;
  rte_mbuf** const pkts = staged_.data() + port * size_t{kStaged};
  PortCounters& pc = c_.port[port];
  pc.egress_packets.add(n);
  if (decided_[port] != 0) {
    pc.lb_decisions.add(decided_[port]);
    decided_[port] = 0;
  }
  if (!rt_.port_up(port)) {
    for (uint16_t i = 0; i < n; ++i) drop(pkts[i], port, DropReason::kPortDown);
    return;
  }
  uint32_t bytes = 0;
  const uint16_t kept = admit(port, pkts, n, staged, bytes);
  if (trimmed_count_ > 0) {
    const uint16_t queued = rt_.egress_queues().enqueue_priority(port, worker_, trimmed_.data(),
                                                                 trimmed_count_, trimmed_bytes_);
    vc_busy_[port] |= 1u;  // VC 0's queue's priority class (the loader allows no VCs with trim)
    for (uint16_t i = queued; i < trimmed_count_; ++i) {
      drop(trimmed_[i], port, DropReason::kTrimQueueFull);
    }
    trimmed_count_ = 0;
    trimmed_bytes_ = 0;
  }
  if (kept == 0) return;
  uint16_t sent = 0;
  if (may_send_direct(port)) {
    sent = send_direct(port, pkts, kept, bytes);
    if (sent == kept) return;
  }
  if (vcs_ > 1) {
    enqueue_channels(port, pkts, kept);  // no direct sends with VCs (may_send_direct)
    return;
  }
  const uint16_t queued = rt_.egress_queues().enqueue(port, worker_, pkts + sent,
                                                      static_cast<uint16_t>(kept - sent), bytes);
  for (uint16_t i = sent + queued; i < kept; ++i) {
    uncharge(pkts[i]);
    drop(pkts[i], port, DropReason::kQueueFull);
  }
}

void Forwarder::enqueue_channels(uint16_t port, rte_mbuf** pkts, uint16_t n) {
  // A ring operation per VC present, each VC's frames in burst order.
  std::array<uint8_t, kStaged> vc;
  uint32_t present = 0;  // bit v: some frame of VC v
  for (uint16_t i = 0; i < n; ++i) {
    vc[i] = vc_out(pkts[i]);
    present |= 1u << vc[i];
  }
  std::array<rte_mbuf*, kStaged> mine;
  for (uint8_t v = 0; v < vcs_; ++v) {
    if ((present & (1u << v)) == 0) continue;
    uint16_t k = 0;
    uint32_t bytes = 0;
    for (uint16_t i = 0; i < n; ++i) {
      if (vc[i] != v) continue;
      mine[k++] = pkts[i];
      bytes += rte_pktmbuf_pkt_len(pkts[i]);
    }
    const uint16_t queued = rt_.egress_queues().vc_queue(port, v).enqueue(mine.data(), k, bytes);
    if (queued > 0) vc_busy_[port] |= 1u << v;
    for (uint16_t i = queued; i < k; ++i) {
      uncharge(mine[i]);
      drop(mine[i], port, DropReason::kQueueFull);
    }
  }
}

uint16_t Forwarder::send_direct(uint16_t port, rte_mbuf** pkts, uint16_t n, uint32_t& bytes) {
  const uint16_t sent = direct_send_(direct_ctx_, port, pkts, n);
  if (sent == 0) return 0;
  // The frames the device took are its own now (net_null has freed them already): their bytes
  // are the total less those of the frames it left, which are still ours to read.
  uint32_t left = 0;
  for (uint16_t i = sent; i < n; ++i) left += rte_pktmbuf_pkt_len(pkts[i]);
  PortCounters& pc = c_.port[port];
  pc.tx_packets.add(sent);
  pc.tx_bytes.add(bytes - left);
  bytes = left;
  return sent;
}

SPRAYLAB_STEP uint16_t Forwarder::admit(uint16_t port, rte_mbuf** pkts, uint16_t n, uint32_t staged,
                                        uint32_t& bytes) {
  const SwitchTables& t = rt_.tables();
  const MacPair& macs = macs_[port];
  PortCounters& pc = c_.port[port];
  // Tail drop against the buffer in bytes. Producers on other lcores may add at the same time, so
  // a queue can overshoot its buffer by at most one burst per worker.
  const uint32_t depth = rt_.depth_bytes_now(port);
  if (rewrite_at_stage_ && pfc_ == nullptr && credits_ == nullptr) {
    // The loop below keeps a frame if the frames kept before it and it fit: when all of them fit
    // together, each does, and none is marked when even the last finds the queue at or below the
    // ECN threshold (ecn_mark() then draws nothing either).
    const uint64_t all = uint64_t{depth} + bytes + staged;
    if (all <= t.buffer_bytes && (t.ecn_threshold_bytes == 0 || all <= t.ecn_threshold_bytes)) {
      bytes += staged;
      return n;
    }
  }
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    const uint32_t len = rte_pktmbuf_pkt_len(m);
    // Trimming (UEC; the reference's CompositeQueue): a data frame beyond the threshold goes on
    // as its headers, in the priority class, where it would have been a drop or a long wait; a
    // header trimmed at an earlier hop keeps to the priority class at every later one.
    if (t.trim) {
      const bool cut =
          depth + bytes + trimmed_bytes_ + len > t.trim_threshold_bytes && trim_data_frame(m);
      if (cut || (len <= kMaxTrimmedFrame && is_trimmed_header(m))) {
        uint8_t* eth = rte_pktmbuf_mtod(m, uint8_t*);
        rewrite_macs(eth, macs.bytes);
        net::decrement_ttl(eth + (eth[12] == 0x81 && eth[13] == 0x00 ? 18 : 14));
        trimmed_[trimmed_count_++] = m;
        trimmed_bytes_ += rte_pktmbuf_pkt_len(m);
        if (cut) pc.trims.inc();
        continue;
      }
    }
    if (pfc_ != nullptr) {
      // Lossless: no egress tail drop; the frame's ingress port holds it within XOFF + headroom.
      if (!pfc_->admit(m->port, vc_arriving(m), len)) {
        drop(m, port, DropReason::kPfcHeadroom);
        continue;
      }
    } else if (credits_ != nullptr) {
      // Lossless: no egress tail drop; the frame's sender held credits for it in the buffer of
      // the port it came in on (a sender that did not: counted).
      if (!credits_->admit(m->port, vc_arriving(m), len)) {
        drop(m, port, DropReason::kCreditOverrun);
        continue;
      }
    } else if (depth + bytes + len > t.buffer_bytes) {
      drop(m, port, DropReason::kQueueFull);
      continue;
    }
    // The header's one rewrite (rewrite()), here unless enqueue() did it. parse_frame accepted
    // the frame, so the IPv4 header follows Ethernet (and at most one VLAN tag).
    uint8_t* eth = rte_pktmbuf_mtod(m, uint8_t*);
    uint8_t* ip = eth + (eth[12] == 0x81 && eth[13] == 0x00 ? 18 : 14);
    if (!rewrite_at_stage_) {
      rewrite_macs(eth, macs.bytes);
      net::decrement_ttl(ip);
    }
    if (t.ecn_threshold_bytes && ecn_mark(depth + bytes)) {
      if (net::mark_ce(ip)) pc.ecn_marks.inc();  // after the TTL's checksum update, as before
    }
    bytes += len;
    pkts[kept++] = m;
  }
  return kept;
}

SPRAYLAB_STEP bool Forwarder::ecn_mark(uint64_t depth) {
  const SwitchTables& t = rt_.tables();
  if (depth <= t.ecn_threshold_bytes) return false;
  if (depth >= t.ecn_high_bytes) return true;  // one threshold (high 0), or beyond the high one
  // Between the two: with probability (depth - low) / (high - low), as the reference's
  // CompositeQueue::decide_ECN, from the forwarder's own stream (one draw per such frame).
  const uint64_t span = t.ecn_high_bytes - t.ecn_threshold_bytes;
  return uint64_t{rng_.next()} * span < (depth - t.ecn_threshold_bytes) * (uint64_t{1} << 32);
}

void Forwarder::discard(uint16_t p) {
  rt_.egress_queues().discard(p, worker_, [this, p](rte_mbuf* m) {
    uncharge(m);
    drop(m, p, DropReason::kPortDown);
  });
}

}  // namespace spraylab::dataplane
