#include "trafficgen/host_engine.h"

#include <rte_ethdev.h>
#include <rte_pause.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <unordered_map>

#include "net/frame.h"

namespace spraylab::gen {
namespace {

constexpr uint8_t kEct0 = 0x02;
constexpr uint8_t kCe = 0x03;

}  // namespace

HostEngine::HostEngine(const EngineSetup& s)
    : plan_(*s.plan),
      pool_(s.pool),
      tsc_hz_(s.tsc_hz),
      epoch_tsc_(s.epoch_tsc),
      epoch_ns_(s.epoch_ns),
      bernoulli_(s.plan->injection == Injection::kBernoulli),
      windowed_(sender_cc(s.plan->cc) != CongestionControl::kNone),
      rccc_(receiver_credits(s.plan->cc)),
      gated_(windowed_ || rccc_),
      loss_rng_(flow_seed(s.plan->seed ^ 0x6c6f7373, s.engine_id, 0)),
      rx_(s.rx),
      tx_(s.tx),
      tsc_clock_(s.tsc_clock) {
  if (s.message_slots != nullptr) slots_ = s.message_slots;
  ns_per_tsc_q32_ = static_cast<uint64_t>(1e9 * 4294967296.0 / static_cast<double>(tsc_hz_));
  const double hz = static_cast<double>(tsc_hz_);
  cycles_per_byte_q16_ =
      plan_.rate_bps > 0 ? static_cast<uint64_t>(hz * 8.0 / plan_.rate_bps * 65536.0) : 0;
  rto_cycles_ = static_cast<uint64_t>(static_cast<double>(plan_.retransmit_timeout_ns) * hz / 1e9);
  // The pacer may catch up at most two full frames after a late turn of the loop.
  burst_slack_q16_ =
      2 * (plan_.payload_bytes + kFrameHeaderBytes + net::kWireOverhead) * cycles_per_byte_q16_;
  loss_threshold_ = static_cast<uint64_t>(plan_.loss * 18446744073709551615.0);
  if (bernoulli_) {
    // A slot is a full data frame on the wire at the host link's rate, whatever the pacer's.
    const double link_bps = plan_.link_rate_bps > 0 ? plan_.link_rate_bps : plan_.rate_bps;
    slot_q16_ = std::max<uint64_t>(
        1, static_cast<uint64_t>(static_cast<double>(frame_credit(plan_.payload_bytes)) * hz * 8.0 /
                                 link_bps * 65536.0));
  }

  pace_base_tsc_ = s.start_tsc;
  if (rccc_) {
    // The reference's configured maxwnd (initRccc()): 1.5 x the fabric's unloaded RTT (as NSCC's,
    // the longest path of the workload's messages) x the link rate, here in wire bytes.
    const uint32_t most_hops = plan_.most_hops;
    const double link_bps = plan_.link_rate_bps > 0 ? plan_.link_rate_bps : plan_.rate_bps;
    const double bdp = path_rtt_ns(plan_, most_hops) * link_bps / 8e9;
    rccc_params_.packet_bytes = frame_credit(plan_.payload_bytes);
    rccc_params_.max_credit = std::clamp<uint64_t>(static_cast<uint64_t>(1.5 * bdp),
                                                   rccc_params_.packet_bytes, kRcccMaxCreditCap);
    rccc_params_.credit_per_pull = quanta_floor(uint64_t{kRcccMtusPerPull} * plan_.payload_bytes);
    pull_cycles_per_quantum_q16_ = static_cast<uint64_t>(
        hz * 8.0 * static_cast<double>(kPullQuantum) / link_bps / kRcccPullRate * 65536.0);
  }
  const std::vector<int32_t> slot_of_rank = add_hosts(s.hosts);
  add_messages(slot_of_rank);
  if (rccc_) add_credit_flows(slot_of_rank);
  add_dependents();
  add_ack_queues();
  build_header_templates();
  for (HostState& h : hosts_) h.active.reserve(sends_.size());
  waiting_start_.reserve(sends_.size());
  outstanding_.reserve(sends_.size());
  for (SendState& st : sends_) {
    if (st.pending_deps == 0) {
      st.ready_tsc = s.start_tsc;
      make_ready(st, s.start_tsc);
    }
  }
  update_finished();
}

// The local hosts, each on its port's slot (hosts may share a port). Returns each rank's host
// slot, -1 for a rank not local.
std::vector<int32_t> HostEngine::add_hosts(const std::vector<uint32_t>& hosts) {
  std::vector<int32_t> slot_of_rank(plan_.ranks.size(), -1);
  for (uint32_t hi : hosts) {
    HostState h;
    h.index = hi;
    h.port = plan_.hosts[hi].port;
    h.next_tx_q16 = 0;  // free from the start (pace_base_tsc_)
    auto it = std::find_if(ports_.begin(), ports_.end(),
                           [&](const PortSlot& p) { return p.port == h.port; });
    if (it == ports_.end()) {
      ports_.push_back(PortSlot{});
      ports_.back().port = h.port;
      // Quanta count bit times of the host link (the topology's: every host's link runs at the
      // slowest host link's rate in the plan).
      ports_.back().pause = net::PfcPause(plan_.link_rate_bps, tsc_hz_d());
      it = ports_.end() - 1;
    }
    h.port_slot = static_cast<uint32_t>(it - ports_.begin());
    it->hosts.emplace_back(plan_.hosts[hi].ip, static_cast<uint32_t>(hosts_.size()));
    slot_of_rank[plan_.hosts[hi].rank] = static_cast<int32_t>(hosts_.size());
    // Each host's own stream, from the seed and its rank: the same arrivals in every mode and
    // however the hosts are spread over engines.
    if (bernoulli_) {
      h.arrivals = BernoulliArrivals(plan_.injection_load,
                                     flow_seed(plan_.seed ^ 0x696e6a65, plan_.hosts[hi].rank, 0));
    }
    hosts_.push_back(std::move(h));
  }
  return slot_of_rank;
}

// The messages local hosts send and receive, in message order; flows: one per (local sender,
// destination), in message order.
void HostEngine::add_messages(const std::vector<int32_t>& slot_of_rank) {
  const Schedule& sch = plan_.schedule;
  const size_t n = sch.messages.size();
  if (slots_->send.size() != n) {  // the first engine of a shared table, or an own table
    slots_->send.assign(n, -1);
    slots_->recv.assign(n, -1);
  }
  std::vector<std::vector<int32_t>> flow_of(hosts_.size(),
                                            std::vector<int32_t>(plan_.ranks.size(), -1));
  // The local hosts' messages in the schedule's order (flows and states are numbered in it): a
  // message between two local hosts is in both ranks' lists.
  std::vector<MessageId> mine;
  for (const HostState& h : hosts_) {
    const uint32_t r = plan_.hosts[h.index].rank;
    mine.insert(mine.end(), plan_.rank_messages.begin() + plan_.rank_message_start[r],
                plan_.rank_messages.begin() + plan_.rank_message_start[r + 1]);
  }
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  // Their states' room at once: growing, the vectors moved every state (a receive's holds its
  // reorder tracker) about twice.
  size_t sending = 0, receiving = 0;
  for (const MessageId id : mine) {
    sending += slot_of_rank[sch.messages[id].src] >= 0;
    receiving += slot_of_rank[sch.messages[id].dst] >= 0;
  }
  sends_.reserve(sends_.size() + sending);
  recvs_.reserve(recvs_.size() + receiving);
  for (const MessageId id : mine) {
    const Message& m = sch.messages[id];
    const int32_t hs = slot_of_rank[m.src];
    if (hs >= 0) {
      int32_t& f = flow_of[hs][m.dst];
      if (f < 0) {
        f = static_cast<int32_t>(flows_.size());
        flows_.emplace_back(plan_.entropy, flow_seed(plan_.seed, m.src, m.dst),
                            plan_.entropy_params);
        if (windowed_) windows_.push_back(make_window(m));
        if (gated_) parked_head_.push_back(UINT32_MAX);
        if (rccc_) {
          credits_.emplace_back(rccc_params_);
          flow_backlog_.push_back(0);
          flow_host_.push_back(static_cast<uint32_t>(hs));
        }
      }
      add_send(m, static_cast<uint32_t>(hs), static_cast<uint32_t>(f));
    }
    const int32_t hr = slot_of_rank[m.dst];
    if (hr >= 0) add_recv(m, static_cast<uint32_t>(hr));
  }
}

void HostEngine::add_send(const Message& m, uint32_t host_slot, uint32_t flow) {
  SendState st;
  st.id = m.id;
  st.host = host_slot;
  st.dst = m.dst;
  st.flow = flow;
  st.bytes = m.bytes;
  st.packets = static_cast<uint32_t>(packet_count(m.bytes, plan_.payload_bytes));
  st.acked_bits.assign((st.packets + 63) / 64, 0);
  st.pending_deps = static_cast<uint32_t>(m.depends_on.size());
  slots_->send[m.id] = static_cast<int32_t>(sends_.size());
  sends_.push_back(std::move(st));
}

void HostEngine::add_recv(const Message& m, uint32_t host_slot) {
  RecvState r;
  r.id = m.id;
  r.host = host_slot;
  r.src = m.src;
  r.bytes = m.bytes;
  r.packets = static_cast<uint32_t>(packet_count(m.bytes, plan_.payload_bytes));
  r.reorder.reserve(r.packets);
  slots_->recv[m.id] = static_cast<int32_t>(recvs_.size());
  recvs_.push_back(std::move(r));
}

// cc rccc: one sink flow per (local receiving host, source rank), its pacer's rings sized for
// the sources of each host.
void HostEngine::add_credit_flows(const std::vector<int32_t>& slot_of_rank) {
  (void)slot_of_rank;
  std::unordered_map<uint64_t, uint32_t> index;  // host slot x ranks + source rank -> sink flow
  std::vector<uint32_t> per_host(hosts_.size(), 0);
  const uint64_t ranks = plan_.ranks.size();
  for (RecvState& r : recvs_) {
    const auto [it, fresh] =
        index.try_emplace(r.host * ranks + r.src, static_cast<uint32_t>(sink_flows_.size()));
    if (fresh) {
      sink_flows_.emplace_back();
      sink_peers_.push_back({.host = r.host, .tmpl = 0, .message = r.id, .entropy = 0});
      ++per_host[r.host];
    }
    r.sink_flow = it->second;
  }
  for (size_t i = 0; i < hosts_.size(); ++i) hosts_[i].pacer.reserve(per_host[i]);
}

// Which local sends each local send and receive releases, in message order of the dependents.
// Dependencies are local to the sender (schedule.h): it sent d or received it.
void HostEngine::add_dependents() {
  after_send_.resize(sends_.size());
  after_recv_.resize(recvs_.size());
  for (uint32_t i = 0; i < sends_.size(); ++i) {
    const Message& m = plan_.schedule.messages[sends_[i].id];
    for (MessageId d : m.depends_on) {
      const Message& dm = plan_.schedule.messages[d];
      const int32_t at = dm.src == m.src ? send_of(d) : recv_of(d);
      if (at < 0) continue;  // not local: it never completes here
      (dm.src == m.src ? after_send_ : after_recv_)[at].push_back(i);
    }
  }
}

// Each host's ACK queue: room for an ACK per data packet it receives (a quarter more for
// retransmissions, a burst of slack), a power of two, kAckQueue at most. It drains at the
// host's line rate, ACKs before data, so it seldom holds more than a burst; a full queue drops
// the ACK and counts it (ack_queue_full). Sized per host, not kAckQueue each: 4096 ACKs are
// 229 KB, 1.8 GB for 8192 hosts.
void HostEngine::add_ack_queues() {
  std::vector<uint64_t> packets(hosts_.size(), 0), sent(hosts_.size(), 0);
  for (const RecvState& r : recvs_) packets[r.host] += r.packets;
  for (const SendState& s : sends_) sent[s.host] += s.packets;
  const auto ring = [](uint64_t want) {
    uint32_t slots = 64;
    while (slots < want && slots < kAckQueue) slots <<= 1;
    return slots;
  };
  std::vector<uint32_t> slots(hosts_.size());
  size_t total = 0;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    // cc rccc: PULLs share the ring, about one per kRcccMtusPerPull packets, and slow pulls.
    const uint64_t pulls = rccc_ ? packets[i] / 2 + 64 : 0;
    slots[i] = ring(packets[i] + packets[i] / 4 + pulls + net::kBurst);
    total += slots[i];
  }
  static_assert(std::is_trivially_copyable_v<PendingAck>, "mapped, written before read");
  if (total == 0) return;
  ack_store_.bytes = total * sizeof(PendingAck);
  void* mem = mmap(nullptr, ack_store_.bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) throw std::bad_alloc();
  ack_store_.at = static_cast<PendingAck*>(mem);
  size_t at = 0;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    hosts_[i].acks = ack_store_.at + at;
    hosts_[i].ack_mask = slots[i] - 1;
    at += slots[i];
    // Resends (NACKs; buffer.trim): as many as packets it sends, at most kAckQueue. Only with
    // trimming: a ring per host is 32 KB at most, for 8192 hosts 256 MB.
    if (plan_.trim) {
      const uint32_t resend = ring(sent[i] + net::kBurst);
      hosts_[i].resend.resize(resend);
      hosts_[i].resend_mask = resend - 1;
    }
  }
}

HostEngine::AckStore::~AckStore() {
  if (at != nullptr) munmap(at, bytes);
}

HostEngine::~HostEngine() {
  for (PortSlot& p : ports_) rte_pktmbuf_free_bulk(p.tx.data(), p.tx_count);
  rte_pktmbuf_free_bulk(mbuf_cache_.data(), mbuf_cache_count_);
}

void HostEngine::move_start(uint64_t start_tsc) {
  // Only the messages made ready by the constructor wait yet; their ready times are the old
  // start plus their own start_ns.
  const uint64_t old_start = pace_base_tsc_;
  pace_base_tsc_ = start_tsc;
  earliest_start_ = UINT64_MAX;
  for (uint32_t i : waiting_start_) {
    SendState& st = sends_[i];
    st.ready_tsc = st.ready_tsc - old_start + start_tsc;
    earliest_start_ = std::min(earliest_start_, st.ready_tsc);
  }
}

void HostEngine::make_ready(SendState& s, uint64_t now) {
  const uint64_t delay = plan_.schedule.messages[s.id].start_ns * tsc_hz_ / 1'000'000'000;
  s.ready_tsc = std::max(s.ready_tsc, now) + delay;
  waiting_start_.push_back(static_cast<uint32_t>(&s - sends_.data()));
  earliest_start_ = std::min(earliest_start_, s.ready_tsc);
}

void HostEngine::start_due(uint64_t now) {
  if (now < earliest_start_) return;
  earliest_start_ = UINT64_MAX;
  for (size_t i = 0; i < waiting_start_.size();) {
    SendState& s = sends_[waiting_start_[i]];
    if (s.ready_tsc <= now) {
      s.started = true;
      s.active = true;
      hosts_[s.host].active.push_back(waiting_start_[i]);
      outstanding_.push_back(waiting_start_[i]);
      if (rccc_) {  // its frames join the flow's backlog; out of credit, the flow asks for more
        set_backlog(s, s.bytes + uint64_t{s.packets} * frame_credit(0));
        const RcccSender& c = credits_[s.flow];
        if (!c.speculating() && !c.may_send()) send_rts(s);
      }
      waiting_start_[i] = waiting_start_.back();
      waiting_start_.pop_back();
    } else {
      earliest_start_ = std::min(earliest_start_, s.ready_tsc);
      ++i;
    }
  }
}

void HostEngine::release_dependents(const std::vector<uint32_t>& list, uint64_t now) {
  for (uint32_t i : list) {
    if (--sends_[i].pending_deps == 0) make_ready(sends_[i], now);
  }
}

void HostEngine::update_finished() {
  done_count_.store(sends_done_ + recvs_done_, std::memory_order_relaxed);
  sends_acked_.store(sends_done_, std::memory_order_relaxed);
  if (sends_done_ == sends_.size() && recvs_done_ == recvs_.size()) {
    finished_.store(true, std::memory_order_release);
  }
}

void HostEngine::complete_send(SendState& s, uint64_t now) {
  s.done = true;
  s.done_tsc = now;
  ++sends_done_;
  if (rccc_) set_backlog(s, 0);
  acked_bytes_.fetch_add(s.bytes, std::memory_order_relaxed);
  release_dependents(after_send_[&s - sends_.data()], now);
  update_finished();
}

void HostEngine::complete_recv(RecvState& r, uint64_t now) {
  r.done = true;
  r.done_tsc = now;
  ++recvs_done_;
  release_dependents(after_recv_[&r - recvs_.data()], now);
  update_finished();
}

// ---- Receive ---------------------------------------------------------------------------------

void HostEngine::receive(PortSlot& p, rte_mbuf* m, uint64_t now) {
  const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
  const uint32_t len = rte_pktmbuf_data_len(m);
  if (net::is_mac_control(data, len)) {
    on_mac_control(p, data, len, now);
    return;
  }
  net::FrameInfo fi;
  if (net::parse_frame(data, len, fi) != net::FrameError::kNone || fi.proto != net::kIpProtoUdp ||
      fi.dst_port != kGenUdpPort) {
    count(GenCounter::kRxForeign);
    return;
  }
  uint32_t slot = UINT32_MAX;
  for (const auto& [ip, s] : p.hosts) {
    if (ip == fi.dst_ip) slot = s;
  }
  if (slot == UINT32_MAX) {
    count(GenCounter::kRxForeign);
    return;
  }
  TestbedHeader h;
  const std::span<const uint8_t> payload = net::udp_payload(data, fi);
  if (!decode(payload.data(), payload.size(), &h)) {
    count(GenCounter::kRxMalformed);
    return;
  }
  if (loss_threshold_ != 0 && loss_rng_.next() < loss_threshold_) {
    count(h.flags & kData ? GenCounter::kLossData : GenCounter::kLossAck);
    return;
  }
  count(GenCounter::kRxBytes, rte_pktmbuf_pkt_len(m));
  if (h.flags & kTrimmed) {
    on_trimmed(slot, h, now);
  } else if (h.flags & kData) {
    on_data(slot, h, (data[fi.ip_offset + 1] & 0x03) == kCe, fi.ttl, now);
  } else if (h.flags & kPull) {
    on_pull(slot, h, now);
  } else if (h.flags & kRts) {
    on_rts(slot, h, now);
  } else if (h.flags & kAck) {
    on_ack(slot, h, now);
  } else if (h.flags & kNack) {
    on_nack(slot, h, now);
  } else {
    count(GenCounter::kRxMalformed);
  }
}

// 802.1Qbb (docs/generator.md, "PFC pauses"): the peer (the host's leaf) pauses or resumes
// priority classes of this port's link; the tx step offers the device nothing of a paused class.
// Every frame the generator sends is data class (net::kPfcDataClass): ACKs included, as a NIC
// sends them in the flow's class.
void HostEngine::on_mac_control(PortSlot& p, const uint8_t* data, uint32_t len, uint64_t now) {
  net::PfcFrame f;
  if (net::parse_pfc(data, len, f) != net::PfcParse::kPfc) {
    count(GenCounter::kRxBadControl);
    return;
  }
  pfc_seen_ = true;
  const net::PfcPause::Effect e = p.pause.on_frame(f, now);
  if (e.paused) count(GenCounter::kRxPfcPause);
  if (e.resumed) count(GenCounter::kRxPfcResume);
}

// The data class's paused time so far, over the engine's ports, in ns (a running pause up to
// `now`): set whole each turn, so a scrape sees it grow while a pause holds.
void HostEngine::count_paused_time(uint64_t now) {
  uint64_t ticks = 0;
  for (const PortSlot& p : ports_) ticks += p.pause.paused_ticks(net::kPfcDataClass, now);
  counters_[static_cast<size_t>(GenCounter::kPfcPausedNs)] = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(ticks) * ns_per_tsc_q32_) >> 32);
}

void HostEngine::on_data(uint32_t host_slot, const TestbedHeader& h, bool ce, uint8_t ttl,
                         uint64_t now) {
  const int32_t ri = recv_of(h.message_id);
  if (ri < 0 || recvs_[ri].host != host_slot || h.sequence >= recvs_[ri].packets) {
    count(GenCounter::kRxMalformed);
    return;
  }
  RecvState& r = recvs_[ri];
  count(GenCounter::kRxData);
  if (rccc_) {
    sink_peers_[r.sink_flow].message = r.id;
    sink_target(r, h.acked_packets, false, now);
  }
  // The path's length in switches: what the TTL lost on the way (a TTL above what was sent is
  // not ours to explain; it counts as 0 switches).
  ++path_switches_[ttl <= kSentTtl ? kSentTtl - ttl : 0];
  const uint64_t now_ns = ns_of(now);
  if (h.send_ts_ns <= now_ns) one_way_.record(now_ns - h.send_ts_ns);
  if (r.first_rx_tsc == 0) r.first_rx_tsc = now;
  const uint64_t unique_before = r.reorder.unique();
  r.reorder.on_packet(h.sequence);
  const bool duplicate = r.reorder.unique() == unique_before;
  if (!duplicate) {
    // Every packet carries a full payload but the message's last, which has what is left.
    const uint64_t offset = uint64_t{h.sequence} * plan_.payload_bytes;
    const uint64_t payload = std::min<uint64_t>(plan_.payload_bytes, r.bytes - offset);
    delivered_bytes_ += payload;
    hosts_[host_slot].delivered_bytes += payload;
  }
  while (r.cum < r.packets && r.reorder.seen(r.cum)) ++r.cum;
  if (ce) {
    count(GenCounter::kRxCe);
    r.ce_since_ack = true;
  }
  ++r.since_ack;
  bool completed_now = false;
  if (!r.done && r.reorder.unique() == r.packets) {
    complete_recv(r, now);
    completed_now = true;
  }
  // ACK every ack_every packets, and at once for the last packet, a duplicate or a
  // retransmission: the sender is then waiting on this ACK.
  if (r.since_ack < plan_.ack_every && !completed_now && !duplicate && !(h.flags & kRetransmit)) {
    return;
  }
  HostState& host = hosts_[host_slot];
  if (host.ack_count == host.ack_mask + 1) {
    count(GenCounter::kAckQueueFull);
    return;
  }
  PendingAck& a = host.acks[(host.ack_head + host.ack_count) & host.ack_mask];
  ++host.ack_count;
  a.header = make_ack(h, r.ce_since_ack, static_cast<uint16_t>(std::min(r.since_ack, 65535u)));
  // An ACK's offset is cumulative: every byte below it has arrived (docs/generator.md).
  a.header.offset = std::min<uint64_t>(static_cast<uint64_t>(r.cum) * plan_.payload_bytes, r.bytes);
  a.tmpl = r.tmpl;
  r.since_ack = 0;
  r.ce_since_ack = false;
}

// A switch trimmed data packet h.sequence (buffer.trim): NACK it at once, ahead of the ACKs
// waiting, unless the packet itself arrived already (a retransmission overtook its header).
void HostEngine::on_trimmed(uint32_t host_slot, const TestbedHeader& h, uint64_t now) {
  const int32_t ri = recv_of(h.message_id);
  if (ri < 0 || recvs_[ri].host != host_slot || h.sequence >= recvs_[ri].packets) {
    count(GenCounter::kRxMalformed);
    return;
  }
  const RecvState& r = recvs_[ri];
  count(GenCounter::kRxTrimmed);
  if (r.reorder.seen(h.sequence)) return;
  // cc rccc: the sender resends it, with credit: its receiver pulls (processTrimmed()).
  if (rccc_) sink_target(r, h.acked_packets, true, now);
  HostState& host = hosts_[host_slot];
  if (host.ack_count == host.ack_mask + 1) {
    count(GenCounter::kAckQueueFull);
    return;
  }
  host.ack_head = (host.ack_head - 1) & host.ack_mask;
  ++host.ack_count;
  host.acks[host.ack_head] = {make_nack(h, plan_.payload_bytes), r.tmpl};
}

// The receiver got packet h.sequence trimmed: send it again at once (send_resends), unless it is
// acknowledged already. The flow's entropy and window learn of it; for DCTCP a NACK is a
// congestion signal like an ECN echo (a cut, at most once per window of data). It is progress
// too: the peer answers, so no timeout is due.
void HostEngine::on_nack(uint32_t host_slot, const TestbedHeader& h, uint64_t now) {
  const int32_t si = send_of(h.message_id);
  if (si < 0 || sends_[si].host != host_slot || h.sequence >= sends_[si].packets) {
    count(GenCounter::kRxMalformed);
    return;
  }
  SendState& s = sends_[si];
  count(GenCounter::kRxNack);
  const uint64_t now_ns = ns_of(now);
  flows_[s.flow].on_nack(h.entropy, now_ns);
  if (rccc_) credits_[s.flow].stop_speculating();
  if (windowed_ && h.sequence < s.packets) {
    // A trimmed header carries no send time: no RTT sample.
    windows_[s.flow].on_nack(packet_slice(s.bytes, h.sequence, plan_.payload_bytes).length,
                             h.entropy, 0, now_ns);
  }
  if (s.done || (s.acked_bits[h.sequence >> 6] >> (h.sequence & 63) & 1)) return;
  s.last_progress_tsc = std::max(s.last_progress_tsc, now);
  HostState& host = hosts_[s.host];
  if (host.resend_count == host.resend.size()) {
    count(GenCounter::kNackQueueFull);
    return;
  }
  host.resend[(host.resend_head + host.resend_count) & host.resend_mask] = {
      static_cast<uint32_t>(si), h.sequence};
  ++host.resend_count;
  if (rccc_) {
    set_backlog(s, s.credit_backlog +
                       frame_credit(packet_slice(s.bytes, h.sequence, plan_.payload_bytes).length));
  }
}

bool HostEngine::mark_acked(SendState& s, uint32_t seq) {
  uint64_t& w = s.acked_bits[seq >> 6];
  const uint64_t bit = uint64_t{1} << (seq & 63);
  if (w & bit) return false;
  w |= bit;
  ++s.acked;
  return true;
}

void HostEngine::on_ack(uint32_t host_slot, const TestbedHeader& h, uint64_t now) {
  const int32_t si = send_of(h.message_id);
  if (si < 0 || sends_[si].host != host_slot || h.sequence >= sends_[si].packets ||
      h.offset > sends_[si].bytes) {
    count(GenCounter::kRxMalformed);
    return;
  }
  SendState& s = sends_[si];
  count(GenCounter::kRxAck);
  const uint64_t now_ns = ns_of(now);
  if (h.send_ts_ns <= now_ns) rtt_.record(now_ns - h.send_ts_ns);
  const bool echo = h.flags & kEcnEcho;
  if (echo) {
    count(GenCounter::kRxEcnEcho);
    ++s.ecn_echoes;
  }
  flows_[s.flow].on_ack(h.entropy, echo, now_ns);
  if (rccc_) credits_[s.flow].stop_speculating();
  const uint64_t rtt_ns = h.send_ts_ns <= now_ns ? now_ns - h.send_ts_ns : 0;
  AckSignal signal{
      .acked = 0, .ecn_echo = echo, .rtt_ns = rtt_ns, .entropy = h.entropy, .now_ns = now_ns};
  if (s.done) {
    if (gated_) window_on_ack(s, signal);
    return;
  }
  const uint32_t before = s.acked;
  uint64_t acked_bytes = 0;  // windowed_: payload newly acknowledged
  const auto ack = [&](uint32_t seq) {
    if (mark_acked(s, seq) && gated_) {
      acked_bytes += packet_slice(s.bytes, seq, plan_.payload_bytes).length;
    }
  };
  ack(h.sequence);
  const uint32_t cum =
      h.offset == s.bytes ? s.packets : static_cast<uint32_t>(h.offset / plan_.payload_bytes);
  while (s.cum_acked < cum) ack(s.cum_acked++);
  while (s.cum_acked < s.packets && (s.acked_bits[s.cum_acked >> 6] >> (s.cum_acked & 63) & 1)) {
    ++s.cum_acked;
  }
  if (s.acked != before) s.last_progress_tsc = now;
  if (gated_) {
    signal.acked = acked_bytes;
    window_on_ack(s, signal);
  }
  if (s.acked == s.packets) complete_send(s, now);
}

// The flow's window learns of an ACK of `s`: what left the flight, the echo, an RTT sample. If
// that opens the window, the flow's parked messages go back on their host's active list.
void HostEngine::window_on_ack(SendState& s, const AckSignal& a) {
  // A complete message has nothing in flight, whatever the per-packet accounting says.
  const uint64_t left = s.acked == s.packets ? s.flight_bytes : std::min(s.flight_bytes, a.acked);
  s.flight_bytes -= left;
  if (windowed_) {
    FlowWindow& w = windows_[s.flow];
    w.release(left);
    w.on_ack(a);
  }
  wake_parked(s.flow);
}

// The window `workload.cc` names for the flow of message `m` (docs/generator.md, "Congestion
// control": where each value comes from).
FlowWindow HostEngine::make_window(const Message& m) const {
  const uint32_t hops = plan_.message_hops[m.id];
  const CcTuning& t = plan_.cc_tuning;
  if (sender_cc(plan_.cc) == CongestionControl::kNscc) {
    // The reference scales NSCC by the fabric's unloaded RTT (main_uec.cpp: the topology's
    // diameter): here the longest path of the workload's messages.
    const uint32_t most_hops = plan_.most_hops;
    NsccParams p;
    p.mss = plan_.payload_bytes;
    p.link_rate_bps = plan_.link_rate_bps;
    p.network_rtt_ns = static_cast<uint64_t>(path_rtt_ns(plan_, most_hops));
    p.base_rtt_ns = t.nscc_accurate_base_rtt ? static_cast<uint64_t>(path_rtt_ns(plan_, hops)) : 0;
    p.target_delay_ns = t.nscc_target_delay_ns;
    p.trimming = plan_.trim;
    p.qa_gate = t.nscc_qa_gate;
    p.quick_adapt = t.nscc_quick_adapt;
    p.initial_window = t.initial_window_given ? initial_window_bytes(plan_, hops) : 0;
    p.min_rto_ns = plan_.retransmit_timeout_ns;
    return FlowWindow(NsccWindow(p));
  }
  if (plan_.cc == CongestionControl::kMswift) {
    MswiftParams p;
    p.mss = plan_.payload_bytes;
    p.subflows = t.mswift_subflows;
    p.initial_window = initial_window_bytes(plan_, hops);
    p.ai = t.mswift_ai;
    p.beta = t.mswift_beta;
    p.max_mdf = t.mswift_max_mdf;
    p.hops = hops;
    p.base_target_ns = t.mswift_base_target_ns ? t.mswift_base_target_ns
                                               : static_cast<uint64_t>(path_rtt_ns(plan_, hops));
    const double frame_bits = 8.0 * (plan_.payload_bytes + kFrameHeaderBytes + net::kWireOverhead);
    p.hop_scale_ns = t.mswift_hop_scale_ns
                         ? t.mswift_hop_scale_ns
                         : static_cast<uint64_t>(frame_bits / plan_.link_rate_bps * 1e9);
    p.fs_range_ns = t.mswift_fs_range_ns;
    p.min_rto_ns = plan_.retransmit_timeout_ns;
    return FlowWindow(MswiftWindow(p));
  }
  DctcpParams p;
  p.mss = plan_.payload_bytes;
  p.initial_window = initial_window_bytes(plan_, hops);
  p.min_rto_ns = plan_.retransmit_timeout_ns;
  return FlowWindow(DctcpWindow(p));
}

// A message whose flow's window is full leaves the active list (next_data) and waits in its
// flow's list; its retransmission deadline runs meanwhile, so a window that no ACK will open
// again (everything in flight lost) still ends in a timeout.
void HostEngine::park(uint32_t send_idx) {
  SendState& s = sends_[send_idx];
  if (s.parked) return;  // still listed: a timeout re-activated it before the window opened
  s.parked = true;
  s.next_parked = parked_head_[s.flow];
  parked_head_[s.flow] = send_idx;
}

void HostEngine::wake_parked(uint32_t flow) {
  uint32_t i = parked_head_[flow];
  if (i == UINT32_MAX || !flow_open(flow)) return;
  parked_head_[flow] = UINT32_MAX;
  while (i != UINT32_MAX) {
    SendState& s = sends_[i];
    const uint32_t next = s.next_parked;
    s.parked = false;
    s.next_parked = UINT32_MAX;
    if (!s.active && !s.done) {
      s.active = true;
      hosts_[s.host].active.push_back(i);
    }
    i = next;
  }
}

// ---- Send ------------------------------------------------------------------------------------

void HostEngine::build_header_templates() {
  // One per (local host, peer) that exchanges frames: the destinations of its messages (data)
  // and the sources of the messages it receives (ACKs). ECN-capable (ECT(0)): switches may mark
  // CE, the receiver echoes it. (One per local host and rank was 48 B x hosts x ranks: 3.2 GB
  // over the engines of an 8192-host fabric.)
  std::unordered_map<uint64_t, uint32_t> index;  // host slot x ranks + rank -> template
  const uint64_t ranks = plan_.ranks.size();
  auto tmpl_for = [&](uint32_t host_slot, uint32_t rank) {
    const auto [it, fresh] =
        index.try_emplace(host_slot * ranks + rank, static_cast<uint32_t>(frame_tmpl_.size()));
    if (fresh) {
      const HostSpec& me = plan_.hosts[hosts_[host_slot].index];
      frame_tmpl_.push_back(make_frame_template(plan_.ranks[rank].next_hop, me.mac, me.ip,
                                                plan_.ranks[rank].ip, kGenUdpPort, kEct0));
    }
    return it->second;
  };
  frame_tmpl_.clear();
  for (SendState& s : sends_) s.tmpl = tmpl_for(s.host, s.dst);
  for (RecvState& r : recvs_) r.tmpl = tmpl_for(r.host, r.src);
  if (rccc_) {
    for (const RecvState& r : recvs_) sink_peers_[r.sink_flow].tmpl = r.tmpl;
  }
}

// The next mbuf for a frame, from a bulk allocation: one mempool access per burst.
inline rte_mbuf* HostEngine::take_mbuf() {
  if (mbuf_cache_count_ == 0) {
    if (rte_pktmbuf_alloc_bulk(pool_, mbuf_cache_.data(), net::kBurst) != 0) {
      count(GenCounter::kNoMbuf);
      return nullptr;
    }
    mbuf_cache_count_ = net::kBurst;
  }
  return mbuf_cache_[--mbuf_cache_count_];
}

inline rte_mbuf* HostEngine::build(const FrameTemplate& tmpl, const TestbedHeader& t,
                                   uint32_t payload, uint16_t sport) {
  rte_mbuf* m = take_mbuf();
  if (m == nullptr) return nullptr;
  const uint32_t len = kFrameHeaderBytes + payload;
  write_frame(rte_pktmbuf_mtod(m, uint8_t*), tmpl, len, sport, t);
  m->data_len = static_cast<uint16_t>(len);
  m->pkt_len = len;
  return m;
}

// A run of packets from one message: with one message active, every first-pass packet that fits
// (round robin over one message is that message); otherwise one packet, from next_data().
inline bool HostEngine::next_run(HostState& h, uint32_t max, DataRun* run) {
  if (h.active.size() == 1) {
    SendState& s = sends_[h.active[0]];
    uint32_t n = 0;
    if (s.first_pass_left()) {
      n = std::min(max, s.packets - s.next_seq);
      if (windowed_) n = std::min(n, windows_[s.flow].packets_allowed());
      if (rccc_) n = std::min(n, credits_[s.flow].packets_allowed(rccc_params_.packet_bytes));
    }
    if (n > 0) {  // else next_data() parks it (a full window) or takes it off the list
      *run = {h.active[0], s.next_seq, n, false};
      s.next_seq += run->count;
      h.rr = 1;  // where next_data() leaves it after a packet of the only message
      return true;
    }
  }
  uint32_t si = 0, seq = 0;
  bool retx = false;
  if (!next_data(h, &si, &seq, &retx)) return false;
  *run = {si, seq, 1, retx};
  return true;
}

bool HostEngine::next_data(HostState& h, uint32_t* send_idx, uint32_t* seq, bool* retx) {
  while (!h.active.empty()) {
    if (h.rr >= h.active.size()) h.rr = 0;
    const uint32_t idx = h.active[h.rr];
    SendState& s = sends_[idx];
    if (!s.done && gated_ && (s.first_pass_left() || s.retx_pass) && !flow_open(s.flow)) {
      park(idx);  // and leave the active list below: an ACK of its flow brings it back
    } else if (!s.done) {
      if (s.first_pass_left()) {
        *send_idx = idx;
        *seq = s.next_seq++;
        *retx = false;
        ++h.rr;
        return true;
      }
      if (s.retx_pass) {
        uint32_t c = std::max(s.retx_cursor, s.cum_acked);
        while (c < s.packets && (s.acked_bits[c >> 6] >> (c & 63) & 1)) ++c;
        if (c < s.packets) {
          s.retx_cursor = c + 1;
          *send_idx = idx;
          *seq = c;
          *retx = true;
          ++h.rr;
          return true;
        }
        s.retx_pass = false;
      }
    }
    // Nothing left to send now: leave the active list (a timeout may bring it back).
    s.active = false;
    if (!s.done) timeout_due_ = std::min(timeout_due_, s.last_progress_tsc + rto_of(s));
    h.active[h.rr] = h.active.back();
    h.active.pop_back();
  }
  return false;
}

// One send() turn's state, in locals written back once: the frame stores go through byte
// pointers, which may alias any member, so members used in the loops would be reloaded after
// every frame. send_acks() and send_data() are always inlined into send(), where the compiler
// keeps this struct in registers.
struct HostEngine::TxTurn {
  PortSlot& port;
  const FrameTemplate* tmpl;  // the engine's (SendState::tmpl, PendingAck::tmpl)
  uint64_t now, now_ns;
  uint64_t pace_now;         // now - pace_base_tsc_: the pacer's clock
  uint64_t cycles_per_byte;  // pacing (x 2^16); 0: unpaced
  uint32_t cap, queued;      // the port's tx slots
  uint64_t next_tx;          // the pacer (x 2^16)
  uint64_t tx_acks = 0, tx_data = 0, retransmits = 0, tx_bytes = 0;
  bool mbufs = true;  // the pool gave every mbuf asked for

  // A frame may go in the tick its slot starts in. The pacer's time stays exact, so this never
  // runs ahead over time; on a coarse clock (virtual time ticks whole ns) waiting for the next
  // whole tick would idle the link for the fraction at every slot.
  bool may_send() const {
    return queued < cap && (cycles_per_byte == 0 || (next_tx >> 16) <= pace_now);
  }
  void queue(rte_mbuf* m) {
    const uint32_t frame = m->pkt_len;
    tx_bytes += frame;
    port.tx[queued++] = m;
    next_tx += (frame + net::kWireOverhead) * cycles_per_byte;
  }
};

void HostEngine::send(HostState& h, uint64_t now) {
  PortSlot& port = ports_[h.port_slot];
  const bool paced = cycles_per_byte_q16_ != 0;
  if (paced && now < pace_base_tsc_) return;  // the pacer's link is free from the start only
  const uint64_t pace_now = now - std::min(now, pace_base_tsc_);
  const uint64_t now_q16 = pace_now << 16;
  if (bernoulli_) h.arrivals.advance_to(slots_started(now));
  if (h.ack_count == 0 && h.active.empty() && h.resend_count == 0) {
    if (h.next_tx_q16 < now_q16) h.next_tx_q16 = now_q16;  // an idle link earns no credit
    return;
  }
  if (paced && h.next_tx_q16 + burst_slack_q16_ < now_q16)
    h.next_tx_q16 = now_q16 - burst_slack_q16_;
  TxTurn t{port,
           frame_tmpl_.data(),
           now,
           ns_of(now),
           pace_now,
           cycles_per_byte_q16_,
           static_cast<uint32_t>(port.tx.size()),
           port.tx_count,
           h.next_tx_q16};
  // ACKs first: a peer's messages wait on them.
  send_acks(h, t);
  if (!data_stopped_.load(std::memory_order_relaxed)) {
    if (h.resend_count > 0) send_resends(h, t);
    send_data(h, t);
  }
  port.tx_count = t.queued;
  if (paced) h.next_tx_q16 = t.next_tx;
  count(GenCounter::kTxAck, t.tx_acks);
  count(GenCounter::kTxData, t.tx_data);
  count(GenCounter::kRetransmits, t.retransmits);
  count(GenCounter::kTxBytes, t.tx_bytes);
}

[[gnu::always_inline]] inline void HostEngine::send_acks(HostState& h, TxTurn& t) {
  while (h.ack_count > 0 && t.may_send()) {
    const PendingAck& a = h.acks[h.ack_head];
    rte_mbuf* m = build(t.tmpl[a.tmpl], a.header, 0, a.header.entropy);
    if (m == nullptr) {
      t.mbufs = false;
      return;
    }
    if (a.header.flags & kNack) {
      count(GenCounter::kTxNack);
    } else if (a.header.flags & kPull) {
      count(GenCounter::kTxPull);
    } else if (a.header.flags & kRts) {
      count(GenCounter::kTxRts);
    } else {
      ++t.tx_acks;
    }
    h.ack_head = (h.ack_head + 1) & h.ack_mask;
    --h.ack_count;
    t.queue(m);
  }
}

// Data of the host's active messages while the pacer and the tx slots allow: runs of one
// message's packets (next_run), each frame with its own entropy.
[[gnu::always_inline]] inline void HostEngine::send_data(HostState& h, TxTurn& t) {
  const uint32_t payload_bytes = plan_.payload_bytes;
  // workload.injection bernoulli: a data frame per arrival not yet sent (first pass or timeout
  // retransmission alike); paced, no limit but the pacer's.
  uint64_t arrived = bernoulli_ ? h.arrivals.arrivals() - h.injected : UINT64_MAX;
  while (arrived > 0 && t.mbufs && t.may_send()) {
    DataRun run;
    if (!next_run(h, static_cast<uint32_t>(std::min<uint64_t>(t.cap - t.queued, arrived)), &run))
      break;
    SendState& s = sends_[run.send_idx];
    const FrameTemplate& ft = t.tmpl[s.tmpl];
    PathEntropy& flow = flows_[s.flow];
    TestbedHeader th;
    th.flags = static_cast<uint8_t>(kData | (run.retx ? kRetransmit : 0));
    th.message_id = s.id;
    th.message_bytes = s.bytes;
    th.send_ts_ns = t.now_ns;
    uint32_t sent = 0;
    uint64_t payload_sent = 0;
    do {  // the run's first frame always fits: may_send() held
      const uint32_t seq = run.first + sent;
      const PacketSlice slice = packet_slice(th.message_bytes, seq, payload_bytes);
      th.entropy = flow.next();
      th.sequence = seq;
      th.offset = slice.offset;
      if (rccc_) th.acked_packets = spend_credit(s, slice.length);
      rte_mbuf* m = build(ft, th, slice.length, th.entropy);
      if (m == nullptr) {
        if (rccc_) refund_credit(s, slice.length);
        t.mbufs = false;
        break;
      }
      t.queue(m);
      payload_sent += slice.length;
    } while (++sent < run.count && t.may_send());
    if (sent < run.count) {  // give the rest back: it goes out on a later turn
      if (run.retx) {
        s.retx_cursor = run.first + sent;
      } else {
        s.next_seq -= run.count - sent;
      }
    }
    if (sent == 0) break;
    if (bernoulli_) {
      arrived -= sent;
      h.injected += sent;
    }
    if (gated_) s.flight_bytes += payload_sent;
    if (windowed_) windows_[s.flow].on_send(payload_sent);
    if (s.first_tx_tsc == 0) s.first_tx_tsc = t.now;
    if (s.last_progress_tsc < t.now) s.last_progress_tsc = t.now;
    s.tx_packets += sent;
    t.tx_data += sent;
    if (run.retx) {
      s.retransmits += sent;
      t.retransmits += sent;
    }
  }
}

// The packets NACKed (on_nack), each again at once, ahead of the host's other data and whatever
// its flow's window says: it replaces a packet that was in flight and still counts there.
// cc rccc: a resend needs credit as any data (the reference's sendRtxPacket()); one whose flow
// has none goes to the ring's back, and waits for a PULL.
void HostEngine::send_resends(HostState& h, TxTurn& t) {
  uint32_t turns = h.resend_count;  // each entry once per turn (cc rccc may put some back)
  while (turns-- > 0 && h.resend_count > 0 && t.mbufs && t.may_send()) {
    const auto [send_idx, seq] = h.resend[h.resend_head];
    SendState& s = sends_[send_idx];
    if (rccc_ && !s.done && !(s.acked_bits[seq >> 6] >> (seq & 63) & 1) &&
        !credits_[s.flow].may_send()) {
      h.resend[(h.resend_head + h.resend_count) & h.resend_mask] = h.resend[h.resend_head];
      h.resend_head = (h.resend_head + 1) & h.resend_mask;
      continue;
    }
    if (!s.done && !(s.acked_bits[seq >> 6] >> (seq & 63) & 1)) {
      const PacketSlice slice = packet_slice(s.bytes, seq, plan_.payload_bytes);
      TestbedHeader th;
      th.flags = kData | kRetransmit;
      th.entropy = flows_[s.flow].next();
      th.message_id = s.id;
      th.sequence = seq;
      th.offset = slice.offset;
      th.message_bytes = s.bytes;
      th.send_ts_ns = t.now_ns;
      if (rccc_) th.acked_packets = spend_credit(s, slice.length);
      rte_mbuf* m = build(t.tmpl[s.tmpl], th, slice.length, th.entropy);
      if (m == nullptr) {
        if (rccc_) refund_credit(s, slice.length);
        t.mbufs = false;
        return;
      }
      t.queue(m);
      ++s.tx_packets;
      ++s.retransmits;
      ++t.tx_data;
      ++t.retransmits;
      count(GenCounter::kNackRetransmits);
      if (s.last_progress_tsc < t.now) s.last_progress_tsc = t.now;
    }
    h.resend_head = (h.resend_head + 1) & h.resend_mask;
    --h.resend_count;
  }
}

// ---- Receiver credits (cc rccc) -----------------------------------------------------------

// Message `s` counts `bytes` (wire) in its flow's backlog; the host counts its flows with one.
void HostEngine::set_backlog(SendState& s, uint64_t bytes) {
  uint64_t& flow = flow_backlog_[s.flow];
  const bool before = flow > 0;
  flow = flow - std::min(flow, s.credit_backlog) + bytes;
  s.credit_backlog = bytes;
  const bool after = flow > 0;
  uint32_t& n = hosts_[flow_host_[s.flow]].backlogged_flows;
  if (after && !before) ++n;
  if (before && !after) --n;
}

uint16_t HostEngine::pull_target(const SendState& s) const {
  const double window = windowed_ ? windows_[s.flow].cwnd() : 0;
  const uint64_t target = credits_[s.flow].pull_target(
      flow_backlog_[s.flow], window, std::max(1u, hosts_[s.host].backlogged_flows));
  return static_cast<uint16_t>(target);
}

uint16_t HostEngine::spend_credit(SendState& s, uint32_t payload) {
  const uint32_t bytes = frame_credit(payload);
  credits_[s.flow].on_send(bytes);
  count(GenCounter::kCreditSpent, bytes);
  set_backlog(s, s.credit_backlog - std::min<uint64_t>(s.credit_backlog, bytes));
  return pull_target(s);
}

void HostEngine::refund_credit(SendState& s, uint32_t payload) {
  const uint32_t bytes = frame_credit(payload);
  credits_[s.flow].refund(bytes);
  counters_[static_cast<size_t>(GenCounter::kCreditSpent)] -= bytes;
  set_backlog(s, s.credit_backlog + bytes);
}

// A control frame (PULL, RTS) in the host's ACK queue: sent ahead of data, as ACKs are.
void HostEngine::queue_control(HostState& h, const TestbedHeader& header, uint32_t tmpl) {
  if (h.ack_count == h.ack_mask + 1) {
    count(GenCounter::kAckQueueFull);
    return;
  }
  h.acks[(h.ack_head + h.ack_count) & h.ack_mask] = {header, tmpl};
  ++h.ack_count;
}

// Out of credit with a backlog the receiver may not know of (a new message on a flow, a
// timeout): ask for credit (the reference sends its RTS on a timeout; here at once as well).
void HostEngine::send_rts(SendState& s) {
  queue_control(hosts_[s.host], make_rts(s.id, pull_target(s), kEntropyMin), s.tmpl);
}

// A pull target from the source of `r` (data, trimmed header, RTS): if it advances, or
// `request` (a trimmed header, an RTS: the sender waits on credit), the flow wants pulls.
void HostEngine::sink_target(const RecvState& r, uint16_t wire_target, bool request, uint64_t now) {
  RcccSinkFlow& f = sink_flows_[r.sink_flow];
  const bool advanced = f.on_target(f.unwrap_target(wire_target));
  if (!advanced && !request) return;
  HostState& h = hosts_[r.host];
  h.pacer.request(r.sink_flow, f);
  if (!h.pull_armed) {  // an idle pacer turns at once (requestPull())
    h.pull_armed = true;
    h.next_pull_q16 = std::max(h.next_pull_q16, (now - std::min(now, pace_base_tsc_)) << 16);
  }
}

// The pull pacer's turns due by `now`: each a PULL in the ACK queue, the next after its credit's
// wire time (at least 1024 B's) at kRcccPullRate of the link; with no flow to pull, it stops.
void HostEngine::run_pacer(HostState& h, uint64_t now) {
  const uint64_t now_q16 = (now - std::min(now, pace_base_tsc_)) << 16;
  while (h.pull_armed && h.next_pull_q16 <= now_q16) {
    RcccPullPacer::Pull p;
    if (!h.pacer.turn(sink_flows_, rccc_params_, &p)) {
      h.pull_armed = false;
      break;
    }
    SinkPeer& peer = sink_peers_[p.flow];
    const auto entropy = static_cast<uint16_t>(kEntropyMin | (peer.entropy++ & 0x7f));
    queue_control(h, make_pull(peer.message, p.number, entropy), peer.tmpl);
    count(GenCounter::kCreditGranted, quanta_bytes(p.quanta));
    h.next_pull_q16 += RcccPullPacer::turn_quanta(p) * pull_cycles_per_quantum_q16_;
  }
}

void HostEngine::on_pull(uint32_t host_slot, const TestbedHeader& h, uint64_t now) {
  (void)now;
  const int32_t si = send_of(h.message_id);
  if (!rccc_ || si < 0 || sends_[si].host != host_slot) {
    count(GenCounter::kRxMalformed);
    return;
  }
  count(GenCounter::kRxPull);
  RcccSender& c = credits_[sends_[si].flow];
  c.stop_speculating();
  c.on_pull(c.unwrap_pull(h.acked_packets));
  wake_parked(sends_[si].flow);
}

void HostEngine::on_rts(uint32_t host_slot, const TestbedHeader& h, uint64_t now) {
  const int32_t ri = recv_of(h.message_id);
  if (!rccc_ || ri < 0 || recvs_[ri].host != host_slot) {
    count(GenCounter::kRxMalformed);
    return;
  }
  sink_peers_[recvs_[ri].sink_flow].message = recvs_[ri].id;
  sink_target(recvs_[ri], h.acked_packets, true, now);
}

// A host's resends that may go now: any, or with cc rccc any whose flow has credit (or that is
// acknowledged already: send_resends() drops it).
bool HostEngine::resend_ready(const HostState& h) const {
  if (h.resend_count == 0 || !rccc_) return h.resend_count > 0;
  for (uint32_t i = 0; i < h.resend_count; ++i) {
    const auto [send_idx, seq] = h.resend[(h.resend_head + i) & h.resend_mask];
    const SendState& s = sends_[send_idx];
    if (s.done || (s.acked_bits[seq >> 6] >> (seq & 63) & 1) || credits_[s.flow].may_send()) {
      return true;
    }
  }
  return false;
}

// Retransmission on timeout: a started message with unacknowledged packets and no progress
// (no new ACK, nothing sent) for the timeout sends every unacknowledged packet again.
void HostEngine::check_timeouts(uint64_t now) {
  if (now < timeout_due_) return;
  timeout_due_ = UINT64_MAX;
  for (size_t i = 0; i < outstanding_.size();) {
    const uint32_t idx = outstanding_[i];
    SendState& s = sends_[idx];
    if (s.done) {
      outstanding_[i] = outstanding_.back();
      outstanding_.pop_back();
      continue;
    }
    ++i;
    if (s.active) continue;  // it re-arms the deadline when it leaves the active list
    // Parked with nothing of its own in flight: it waits for its flow's window, not for an ACK of
    // its own, so there is nothing to time out (the flow's other messages time out if they must,
    // and their ACKs or timeouts wake it; it re-arms its deadline when it leaves the list again).
    if (s.parked && s.flight_bytes == 0) continue;
    // With a window the timeout adapts to the flow's RTT (above its floor), so a deadline may also
    // move earlier than timeout_due_; this scan then finds it late, never misses it.
    const uint64_t rto = rto_of(s);
    if (now - s.last_progress_tsc < rto) {
      timeout_due_ = std::min(timeout_due_, s.last_progress_tsc + rto);
      continue;
    }
    count(GenCounter::kTimeouts);
    if (gated_) {  // what it had in flight is given up; the retransmission pass sends it again
      const uint64_t given_up = s.flight_bytes;
      s.flight_bytes = 0;
      if (windowed_) {
        windows_[s.flow].release(given_up);
        windows_[s.flow].on_timeout(given_up, ns_of(now));
      }
    }
    if (rccc_) {  // the pass joins the backlog; out of credit, an RTS asks for it (sendRTS())
      set_backlog(s, uint64_t{s.packets - s.acked} * rccc_params_.packet_bytes);
      if (!credits_[s.flow].may_send()) send_rts(s);
    }
    flows_[s.flow].on_timeout(ns_of(now));
    s.retx_pass = true;
    s.retx_cursor = s.cum_acked;
    s.last_progress_tsc = now;
    s.active = true;
    hosts_[s.host].active.push_back(idx);
    // The flow may have nothing in flight now: its other parked messages may go too (after the
    // line above, so this one is not listed twice).
    if (gated_) wake_parked(s.flow);
  }
}

bool HostEngine::poll(uint64_t now) {
  bool work = false;
  std::array<rte_mbuf*, net::kBurst> rx;
  for (PortSlot& p : ports_) {
    const uint16_t n = rx_ ? rx_(p.port, rx.data(), net::kBurst)
                           : rte_eth_rx_burst(p.port, 0, rx.data(), net::kBurst);
    for (uint16_t i = 0; i < n; ++i) receive(p, rx[i], now);
    if (n) {
      rte_pktmbuf_free_bulk(rx.data(), n);
      work = true;
    }
  }
  start_due(now);
  check_timeouts(now);
  if (rccc_) {
    for (HostState& h : hosts_) run_pacer(h, now);
  }
  for (HostState& h : hosts_) send(h, now);
  for (PortSlot& p : ports_) {
    if (p.tx_count == 0 || tx_paused(p, now)) continue;  // paused: the frames wait here
    const auto queued = static_cast<uint16_t>(p.tx_count);
    const uint16_t sent =
        tx_ ? tx_(p.port, p.tx.data(), queued) : rte_eth_tx_burst(p.port, 0, p.tx.data(), queued);
    if (sent) {
      work = true;
      std::memmove(p.tx.data(), p.tx.data() + sent, (p.tx_count - sent) * sizeof(rte_mbuf*));
      p.tx_count -= sent;
    }
    // A full device ring: back off briefly instead of asking again at once. Re-reading a ring
    // the peer is draining steals the cache line it writes, and slows the very drain we wait for.
    // Only on the wall clock: in virtual time nothing drains while this thread waits (the link
    // gives credit back at a later event), so spinning here costs wall time and changes nothing;
    // it was a quarter of a lossless MRLS run's samples.
    if (p.tx_count > 0 && tsc_clock_) {
      for (int i = 0; i < 32; ++i) rte_pause();
    }
  }
  if (pfc_seen_) count_paused_time(now);
  if (work) {
    tx_bytes_live_.store(counter(GenCounter::kTxBytes), std::memory_order_relaxed);
    if (tsc_clock_) busy_cycles_ += rte_rdtsc() - now;
  }
  return work;
}

uint32_t HostEngine::tx_pending() const {
  uint32_t n = 0;
  for (const PortSlot& p : ports_) n += p.tx_count;
  return n;
}

uint64_t HostEngine::next_wake(uint64_t now) const {
  uint64_t t = std::min(earliest_start_, timeout_due_);
  for (const PortSlot& p : ports_) {
    if (p.tx_count == 0) continue;
    if (!tx_paused(p, now)) return now;  // the device was full: try again at once
    t = std::min(t, p.pause.paused_until(net::kPfcDataClass));  // or when the pause ends
  }
  for (const HostState& h : hosts_) {
    t = std::min(t, pull_turn(h, now));
    // A paused link takes nothing before its pause ends (above): neither would the host's frames.
    if (!wants_to_send(h) || tx_paused(ports_[h.port_slot], now)) continue;
    if (cycles_per_byte_q16_ == 0) return now;  // unpaced: sends whenever polled
    t = std::min(t, send_turn(h, now));
  }
  return t;
}

uint64_t HostEngine::pull_turn(const HostState& h, uint64_t now) const {
  // cc rccc: the pull pacer's next turn (run_pacer(): from its tick on).
  if (!h.pull_armed) return UINT64_MAX;
  return std::max(pace_base_tsc_ + ((h.next_pull_q16 + 0xffff) >> 16), now);
}

uint64_t HostEngine::send_turn(const HostState& h, uint64_t now) const {
  // send() sends from the tick the pacer's next slot starts in; bernoulli data waits for an
  // arrival too (ACKs and NACK resends do not).
  uint64_t at = pace_base_tsc_ + (h.next_tx_q16 >> 16);
  if (bernoulli_ && h.ack_count == 0 && !resend_ready(h) && h.arrivals.arrivals() == h.injected) {
    at = std::max(at, slot_start_tsc(h.arrivals.next_arrival()));
  }
  return std::max(at, now);
}

// ---- Injection (workload.injection bernoulli) ------------------------------------------------

uint64_t HostEngine::slots_started(uint64_t now) const {
  if (now < pace_base_tsc_) return 0;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(now - pace_base_tsc_) << 16) /
                               slot_q16_) +
         1;
}

// The first TSC tick at or after slot k's start (send() sees it started there).
uint64_t HostEngine::slot_start_tsc(uint64_t k) const {
  const unsigned __int128 q16 = static_cast<unsigned __int128>(k) * slot_q16_;
  const unsigned __int128 tsc = (q16 + 0xffff) >> 16;
  const uint64_t room = UINT64_MAX - pace_base_tsc_;
  return tsc >= room ? UINT64_MAX : pace_base_tsc_ + static_cast<uint64_t>(tsc);
}

std::vector<HostTally> HostEngine::host_tallies(uint64_t ns) const {
  // `ns` on the TSC, from the epoch (ns_of()'s inverse).
  const auto cycles = [&](uint64_t d) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(d) * tsc_hz_ / 1'000'000'000);
  };
  const uint64_t back = ns < epoch_ns_ ? cycles(epoch_ns_ - ns) : 0;
  const uint64_t tsc = ns >= epoch_ns_ ? epoch_tsc_ + cycles(ns - epoch_ns_)
                                       : epoch_tsc_ - std::min(epoch_tsc_, back);
  std::vector<HostTally> out;
  out.reserve(hosts_.size());
  for (const HostState& h : hosts_) {
    HostTally t;
    t.host = h.index;
    t.delivered_bytes = h.delivered_bytes;
    if (bernoulli_) {
      BernoulliArrivals a = h.arrivals;
      a.advance_to(slots_started(tsc));
      t.arrivals = a.arrivals();
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace spraylab::gen
