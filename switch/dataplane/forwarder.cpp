#include "switch/dataplane/forwarder.h"

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <cstring>

namespace spraylab::dataplane {
Forwarder::Forwarder(SwitchRuntime& rt, uint32_t worker)
    : rt_(rt),
      worker_(worker),
      c_(rt.counters(worker)),
      rng_(lb::Rng::for_lcore(rt.tables().seed ^ 0x5357u, worker)) {}

void Forwarder::drop(rte_mbuf* m, uint16_t port, DropReason r) {
  c_.port[port].drops[static_cast<size_t>(r)].inc();
  rte_pktmbuf_free(m);
}

void Forwarder::process(rte_mbuf** pkts, uint16_t n, uint16_t rx_port, uint16_t rx_queue,
                        uint64_t now_ns) {
  const SwitchTables& t = rt_.tables();
  const LiveGroups* groups = rt_.groups();
  const BalancerSet* set = rt_.balancers();
  std::array<FrameInfo, kBurst> info;
  std::array<rte_mbuf*, kBurst> ok;
  std::array<uint32_t, kBurst> dst, route, src_leaf;
  uint16_t k = 0;
  PortCounters& rx = c_.port[rx_port];
  // Parse, with the headers of packets a few ahead already on their way to the cache (l3fwd).
  constexpr uint16_t kPrefetchAhead = 4;
  for (uint16_t i = 0; i < n && i < kPrefetchAhead; ++i)
    rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
  uint32_t rx_bytes = 0;
  for (uint16_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) rte_prefetch0(rte_pktmbuf_mtod(pkts[i + kPrefetchAhead], void*));
    rte_mbuf* m = pkts[i];
    rx_bytes += rte_pktmbuf_pkt_len(m);
    const DropReason r =
        parse_frame(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), info[k]);
    if (r != DropReason::kNone) {
      drop(m, rx_port, r);
      continue;
    }
    info[k].frame_len = rte_pktmbuf_pkt_len(m);
    dst[k] = info[k].dst_ip;
    ok[k++] = m;
  }
  rx.rx_packets.add(n);  // once per burst: a per-packet store chain costs more than the count
  rx.rx_bytes.add(rx_bytes);
  if (k == 0) return;
  // Route.
  rt_.dst_routes().lookup_bulk(dst.data(), route.data(), k);
  const lb::Traits& traits = lb::traits(set->factory->algorithm());
  // Only ECMP reads the flow hash: two CRC32C steps per packet that the others would waste.
  const bool hashes = traits.flow_hash;
  if (traits.source_leaf) {
    for (uint16_t i = 0; i < k; ++i) src_leaf[i] = info[i].src_ip;
    rt_.src_leaves()->lookup_bulk(src_leaf.data(), src_leaf.data(), k);
  }
  auto& choice = choice_;
  auto& choice_of = choice_of_;
  std::array<uint16_t, kBurst> out_port;
  uint16_t nc = 0;
  for (uint16_t i = 0; i < k; ++i) {
    rte_mbuf* m = ok[i];
    if (route[i] == RouteLookup::kMiss) {
      drop(m, rx_port, DropReason::kNoRoute);
      ok[i] = nullptr;
      continue;
    }
    if (!decrement_ttl(rte_pktmbuf_mtod(m, uint8_t*) + info[i].ip_offset)) {
      drop(m, rx_port, DropReason::kTtlExpired);
      ok[i] = nullptr;
      continue;
    }
    const RouteEntry& re = t.routes[route[i]];
    const auto& cands = groups->ports[re.group];
    if (cands.empty()) {  // every candidate is down
      drop(m, rx_port, DropReason::kPortDown);
      ok[i] = nullptr;
      continue;
    }
    if (re.local || (cands.size() == 1 && !traits.every_fabric_port)) {
      out_port[i] = cands[0];
      continue;
    }
    lb::Packet& p = choice[nc];
    p.candidates = cands.data();
    p.num_candidates = static_cast<uint16_t>(cands.size());
    p.ingress_port = rx_port;
    p.rx_queue = rx_queue;
    p.dest = re.dest;
    p.dst_leaf = re.dst_leaf;
    p.src_leaf =
        traits.source_leaf
            ? (src_leaf[i] == RouteLookup::kMiss ? t.leaf_rank : t.leaf_prefixes[src_leaf[i]].rank)
            : 0;
    p.hash = hashes ? flow_hash(info[i].src_ip, info[i].dst_ip, info[i].src_port, info[i].dst_port,
                                info[i].proto)
                    : 0;
    p.bytes = info[i].frame_len;
    choice_of[nc++] = i;
  }
  // Balance: one call for the burst.
  if (nc > 0) {
    std::array<lb::PortId, kBurst> chosen;
    lb::BurstContext ctx{rt_.queue_view(*set), &rng_, now_ns};
    set->per_worker[worker_]->choose(std::span<const lb::Packet>(choice.data(), nc), ctx,
                                     chosen.data());
    for (uint16_t j = 0; j < nc; ++j) {
      const uint16_t i = choice_of[j];
      if (chosen[j] == lb::kNoPort || chosen[j] >= rt_.ports()) {
        drop(ok[i], rx_port, DropReason::kPortDown);
        ok[i] = nullptr;
        continue;
      }
      out_port[i] = chosen[j];
      ++decided_[chosen[j]];  // into the port's counter at flush: once per burst, not per packet
    }
  }
  // Enqueue, one ring operation per egress port.
  for (uint16_t i = 0; i < k; ++i) {
    if (ok[i] != nullptr) stage(ok[i], out_port[i]);
  }
  for (uint16_t j = 0; j < touched_count_; ++j) flush(touched_[j]);
  touched_count_ = 0;
}

void Forwarder::flush(uint16_t port) {
  const uint16_t n = staged_count_[port];
  staged_count_[port] = 0;
  auto& pkts = staged_[port];
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
  const SwitchTables& t = rt_.tables();
  const PortInfo& info = t.ports[port];
  // Tail drop against the buffer in bytes. Producers on other lcores may add at the same time, so
  // a queue can overshoot its buffer by at most one burst per worker.
  uint32_t depth = rt_.depth_bytes(port).load(std::memory_order_relaxed);
  uint16_t kept = 0;
  uint32_t bytes = 0;
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    const uint32_t len = rte_pktmbuf_pkt_len(m);
    if (depth + bytes + len > t.buffer_bytes) {
      drop(m, port, DropReason::kQueueFull);
      continue;
    }
    uint8_t* eth = rte_pktmbuf_mtod(m, uint8_t*);
    std::memcpy(eth, info.peer_mac.data(), 6);
    std::memcpy(eth + 6, info.mac.data(), 6);
    if (t.ecn_threshold_bytes && depth + bytes > t.ecn_threshold_bytes) {
      // parse_frame accepted it, so the IPv4 header follows Ethernet (and at most one VLAN tag).
      uint8_t* ip = eth + (eth[12] == 0x81 && eth[13] == 0x00 ? 18 : 14);
      if (mark_ce(ip)) pc.ecn_marks.inc();
    }
    bytes += len;
    pkts[kept++] = m;
  }
  if (kept == 0) return;
  // The depth grows before the packets enter the ring, never after: with two workers the port's
  // owner may send them and subtract them the moment they are in the ring, and a subtraction
  // that came first would wrap the unsigned depth, and the owner would tail-drop everything for
  // that port until this worker's addition landed. (The ring's release/acquire orders the
  // addition before the owner's subtraction.) The price: packets the ring then refuses count in
  // the depth for the moment until they are taken back, which only a ring smaller than the buffer
  // (--queue-packets) ever does.
  uint32_t np = rt_.depth_packets(port).fetch_add(kept, std::memory_order_relaxed) + kept;
  uint32_t nb = rt_.depth_bytes(port).fetch_add(bytes, std::memory_order_relaxed) + bytes;
  const unsigned queued = rte_ring_mp_enqueue_burst(
      rt_.egress(port).ring, reinterpret_cast<void**>(pkts.data()), kept, nullptr);
  if (queued < kept) {  // more packets than ring slots: take back what did not go in
    uint32_t refused = 0;
    for (unsigned i = queued; i < kept; ++i) {
      refused += rte_pktmbuf_pkt_len(pkts[i]);
      drop(pkts[i], port, DropReason::kQueueFull);
    }
    rt_.depth_packets(port).fetch_sub(kept - queued, std::memory_order_relaxed);
    rt_.depth_bytes(port).fetch_sub(refused, std::memory_order_relaxed);
    np -= kept - queued;
    nb -= refused;
  }
  rt_.note_depth(port, np, nb);
}

void Forwarder::discard(uint16_t p, EgressPort& e) {
  rte_mbuf* m[kBurst];
  uint16_t n = e.held_count;
  std::copy(e.held.begin(), e.held.begin() + n, m);
  e.held_count = 0;
  do {
    uint32_t bytes = 0;
    for (uint16_t i = 0; i < n; ++i) {
      bytes += rte_pktmbuf_pkt_len(m[i]);
      drop(m[i], p, DropReason::kPortDown);
    }
    rt_.depth_packets(p).fetch_sub(n, std::memory_order_relaxed);
    rt_.depth_bytes(p).fetch_sub(bytes, std::memory_order_relaxed);
    n = static_cast<uint16_t>(
        rte_ring_sc_dequeue_burst(e.ring, reinterpret_cast<void**>(m), kBurst, nullptr));
  } while (n > 0);
}

uint16_t Forwarder::refill(EgressPort& e) {
  e.held_count = static_cast<uint16_t>(
      rte_ring_sc_dequeue_burst(e.ring, reinterpret_cast<void**>(e.held.data()), kBurst, nullptr));
  return e.held_count;
}

}  // namespace spraylab::dataplane
