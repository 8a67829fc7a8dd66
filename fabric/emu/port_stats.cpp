#include "fabric/emu/port_stats.h"

#include "fabric/run/port_summary.h"

#include <algorithm>
#include <cstddef>

#include "switch/dataplane/counters.h"
#include "switch/dataplane/shaper.h"

namespace spraylab::fabric {

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
  std::vector<PortSummary> out;
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
      const auto [max_packets, max_bytes] = rt.take_max_depth(p);
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

}  // namespace spraylab::fabric
