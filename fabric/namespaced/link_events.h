// An experiment's link events (`events:`, docs/configuration.md) on a namespaced fabric: the
// events topo/link_events.h plans on the topology (random failures included: same seed, same
// links as the emulated fabric), each sent at its time to the spraylab-switch at every end it acts
// on, through the telemetry commands the emulated fabric's calls stand for (/spraylab/port_down,
// port_up, port_rate: switch/control.cpp), and recorded as fabric/emu/fabric_events.cpp records
// them (FabricResult::link_events).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "fabric/namespaced/launcher.h"
#include "topo/link_events.h"
#include "topo/topology.h"

namespace spraylab::fabric::namespaced {

// Throws std::invalid_argument (naming the experiment file) when the namespaced mode cannot run
// `e`'s events as the emulated fabric does: a link going down or up with `events.reroute: true`
// (the default). spraylab-switch takes its own ports down and up but has no command that
// withdraws next hops on other switches, so the fabric would not converge as the emulated one
// does. Rate events need no rerouting and pass.
void check_events(const conf::Experiment& e);

class LinkEvents {
 public:
  // A telemetry command to a switch process and its reply (an empty object if none).
  using Command = std::function<nlohmann::ordered_json(const Process&, const std::string&)>;

  // Plans `e`'s events on `t` (the fabric's own, time-scaled experiment: times and rates as the
  // switches run them) and reads each acted-on port's counters so far.
  LinkEvents(const conf::Experiment& e, const topo::Topology& t, const FabricState& st,
             Command command);

  bool empty() const { return events_.empty(); }
  // When the next event is due, in ns after the workload's start (UINT64_MAX: none left).
  uint64_t next_at() const;
  // Sends every event due at `now_ns` (after the workload's start) and records when it went out
  // (`clock_ns()` once its switches answered). Throws std::runtime_error when a switch refuses one.
  void apply_due(uint64_t now_ns, const std::function<uint64_t()>& clock_ns);
  // As Fabric::link_events_json: one entry per event, `applied_at_ns` null if the run ended first.
  nlohmann::ordered_json to_json() const;
  // Every port an event acted on back up and at its link's rate, for the next variant on the
  // same fabric.
  void restore();

 private:
  const Process& switch_at(const topo::PortRef& end) const;
  // A counter of /spraylab/port,N at `end` ("tx_packets", "drops_port_down"; 0 if none).
  uint64_t port_count(const topo::PortRef& end, const char* key) const;
  void send(const topo::PortRef& end, const std::string& command) const;

  const topo::Topology& t_;
  Command command_;
  std::map<std::string, const Process*> switches_;  // by node name
  std::vector<topo::PlannedLinkEvent> events_;
  std::vector<uint64_t> applied_at_;  // UINT64_MAX: not (yet)
  // Per event, per end: the port's counters before the release, and its tx when applied.
  std::vector<std::vector<uint64_t>> drops_before_, tx_before_;
  std::vector<std::vector<uint64_t>> tx_at_event_;
  size_t next_ = 0;
};

}  // namespace spraylab::fabric::namespaced
