#include "fabric/emu/port_stats.h"

#include "fabric/run/port_summary.h"

#include <algorithm>
#include <cstddef>
#include <unordered_map>

#include "switch/dataplane/counters.h"
#include "switch/dataplane/shaper.h"

namespace spraylab::fabric {
namespace {

// Credits: every link's receiver (the credit state that charges what arrives on it, and the
// port's index there), so that a sender's credits can be set against what its receiver freed.
struct CreditReceiver {
  const dataplane::Credits* credits = nullptr;
  uint16_t at = 0;
};

std::unordered_map<const Link*, CreditReceiver> credit_receivers(const Fabric& f) {
  std::unordered_map<const Link*, CreditReceiver> out;
  for (const auto& sw : f.switches()) {
    const dataplane::Credits* c = sw->runtime().credits();
    if (c == nullptr) continue;
    for (uint16_t p = 0; p < sw->runtime().ports(); ++p) out[sw->in_link(p)] = {c, p};
  }
  for (const auto& h : f.hosts()) {
    const dataplane::Credits* c = h->credits();
    if (c == nullptr) continue;
    for (uint16_t i = 0; i < c->ports(); ++i) {
      if (h->in_link(i) != nullptr) out[h->in_link(i)] = {c, i};
    }
  }
  return out;
}

// What the receiver at the end of `out` has freed of the sender's credits (0: no receiver).
uint64_t freed_by_receiver(const std::unordered_map<const Link*, CreditReceiver>& receivers,
                           const Link* out) {
  const auto it = receivers.find(out);
  return it == receivers.end() ? 0 : it->second.credits->freed(it->second.at);
}

}  // namespace

void sample_queues(const Fabric& f, uint64_t t_ns, std::vector<QueueSample>* out) {
  uint32_t index = 0;
  for (const auto& sw : f.switches()) {
    const dataplane::SwitchRuntime& rt = sw->runtime();
    for (uint16_t p = 0; p < rt.ports(); ++p) {
      out->push_back(QueueSample{t_ns, index++, rt.depth_packets_now(p), rt.depth_bytes_now(p)});
    }
  }
}

void sample_delivered(const Fabric& f, uint64_t t_ns, std::vector<DeliverySample>* out) {
  uint64_t wire = 0;
  for (const auto& sw : f.switches()) {
    const dataplane::SwitchRuntime& rt = sw->runtime();
    const dataplane::SwitchTables& t = rt.tables();
    for (uint16_t p = 0; p < rt.ports(); ++p) {
      if (!t.ports[p].to_host) continue;
      wire += rt.sum(p, &dataplane::PortCounters::tx_bytes) +
              rt.sum(p, &dataplane::PortCounters::tx_packets) * net::kWireOverhead;
    }
  }
  out->push_back(DeliverySample{t_ns, wire});
}

double host_capacity_bps(const Fabric& f) {
  double bps = 0;
  for (const auto& sw : f.switches()) {
    for (const dataplane::PortInfo& p : sw->runtime().tables().ports)
      bps += p.to_host ? p.rate_bps : 0;
  }
  return bps;
}

std::vector<PortSummary> port_summaries(const Fabric& f, const std::vector<QueueSample>& samples,
                                        uint64_t run_ns) {
  // Every switch's level by its routing index (PortInfo::peer_switch), and the top level.
  std::vector<uint32_t> level_of;
  uint32_t top = 0;
  for (const auto& sw : f.switches()) {
    const dataplane::SwitchTables& t = sw->runtime().tables();
    if (t.sw >= level_of.size()) level_of.resize(t.sw + 1, 0);
    level_of[t.sw] = t.level;
    top = std::max(top, t.level);
  }
  const auto receivers = credit_receivers(f);  // empty without credits
  // Reserved: grown by doubling, the vector peaked at 2.4x its size at the end of a run (30 MB
  // at 8192 hosts' 40960 ports, when the frames' pool is at its largest).
  size_t ports = 0;
  for (const auto& sw : f.switches()) ports += sw->runtime().ports();
  std::vector<PortSummary> out;
  out.reserve(ports);
  for (const auto& sw : f.switches()) {
    dataplane::SwitchRuntime& rt = sw->runtime();
    const dataplane::SwitchTables& t = rt.tables();
    for (uint16_t p = 0; p < rt.ports(); ++p) {
      PortSummary s;
      s.switch_name = t.name;
      s.port = p;
      s.peer = t.ports[p].peer;
      s.level = t.level;
      const uint32_t peer = t.ports[p].peer_switch;
      s.layer = layer_name(t.level, top, t.ports[p].to_host,
                           peer < level_of.size() ? level_of[peer] : t.level);
      const auto [max_packets, max_bytes] =
          rt.take_max_depth(p, dataplane::SwitchRuntime::MaxReader::kResults);
      s.max_packets = max_packets;
      s.max_bytes = max_bytes;
      s.tx_packets = rt.sum(p, &dataplane::PortCounters::tx_packets);
      s.tx_bytes = rt.sum(p, &dataplane::PortCounters::tx_bytes);
      s.ecn_marks = rt.sum(p, &dataplane::PortCounters::ecn_marks);
      s.trims = rt.sum(p, &dataplane::PortCounters::trims);
      for (size_t r = 0; r < dataplane::kDropReasons; ++r) {
        s.drops += rt.sum_drops(p, static_cast<dataplane::DropReason>(r));
      }
      if (const dataplane::Pfc* pfc = rt.pfc()) {
        const dataplane::PfcPortCounters& c = pfc->counters(p);
        s.pause_sent = c.pause_sent.get();
        s.resume_sent = c.resume_sent.get();
        s.pause_received = c.pause_received.get();
        s.resume_received = c.resume_received.get();
        s.paused_ns = pfc->paused_ns(p, f.start_ns() + run_ns);
        s.headroom_drops = rt.sum_drops(p, dataplane::DropReason::kPfcHeadroom);
      }
      if (const dataplane::Credits* credits = rt.credits()) {
        s.credit_frames_sent = credits->counters(p).frames_sent.get();
        s.credit_frames_received = credits->counters(p).frames_received.get();
        s.credits_consumed = credits->consumed(p);
        s.credits_freed = credits->freed(p);
        s.credits_spent = credits->spent(p);
        const uint64_t freed = freed_by_receiver(receivers, sw->out_link(p));
        s.credits_outstanding = credits->spent(p) - freed;
        s.credits_returning = freed - credits->granted(p);
        s.credit_stalled_ns = credits->stalled_ns(p, f.start_ns() + run_ns);
        s.credit_overrun_drops = rt.sum_drops(p, dataplane::DropReason::kCreditOverrun);
      }
      s.utilisation = port_utilisation(s.tx_bytes, s.tx_packets, t.ports[p].rate_bps, run_ns);
      out.push_back(std::move(s));
    }
  }
  set_p99_bytes(samples, &out);
  return out;
}

HostPfc host_pfc(const Fabric& f, uint64_t run_ns) {
  HostPfc out;
  for (const auto& h : f.hosts()) {
    const dataplane::Pfc* pfc = h->pfc();
    if (pfc == nullptr) continue;
    out.bad_control += h->bad_control_frames();
    for (uint16_t i = 0; i < pfc->ports(); ++i) {
      out.pause_received += pfc->counters(i).pause_received.get();
      out.resume_received += pfc->counters(i).resume_received.get();
      out.paused_ns += pfc->paused_ns(i, f.start_ns() + run_ns);
    }
  }
  return out;
}

HostCredit host_credit(const Fabric& f, uint64_t run_ns) {
  HostCredit out;
  const auto receivers = credit_receivers(f);
  for (const auto& h : f.hosts()) {
    const dataplane::Credits* credits = h->credits();
    if (credits == nullptr) continue;
    out.bad_control += h->bad_control_frames();
    out.overruns += h->credit_overruns();
    for (uint16_t i = 0; i < credits->ports(); ++i) {
      if (h->out_link(i) == nullptr) continue;  // a rank of another node
      const uint64_t freed = freed_by_receiver(receivers, h->out_link(i));
      out.outstanding += credits->spent(i) - freed;
      out.returning += freed - credits->granted(i);
      out.frames_sent += credits->counters(i).frames_sent.get();
      out.frames_received += credits->counters(i).frames_received.get();
      out.consumed += credits->consumed(i);
      out.freed += credits->freed(i);
      out.spent += credits->spent(i);
      out.stalled_ns += credits->stalled_ns(i, f.start_ns() + run_ns);
    }
  }
  return out;
}

}  // namespace spraylab::fabric
