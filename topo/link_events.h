// The link events of an experiment (conf::EventsSpec) on its topology: which switch egress ports
// each acts on, the random failures drawn, every name and rate checked. The fabric applies them
// (fabric/emu/fabric.h) through the switch's control-plane calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conf/experiment.h"
#include "topo/topology.h"

namespace spraylab::topo {

struct PlannedLinkEvent {
  uint64_t at_ns = 0;  // after the workload's start
  conf::LinkAction action = conf::LinkAction::kDown;
  double rate_bps = 0;    // kRate
  bool random = false;    // one of events.random_link_failures
  uint32_t link = 0;      // into Topology::links()
  std::string name;       // "edge0-agg1", as the file names it
  std::string direction;  // "both", or "edge0->agg1"
  // The switch ports whose egress (and the link direction leaving them) the event acts on.
  std::vector<PortRef> ends;
};

// In the order they happen (a stable sort by time: the file's events, then the random ones).
// Throws conf::ConfigError at the entry's place in `e.source`: an end that is no switch, two
// switches with no link (or several) between them, a rate above the link's, more random
// failures than switch-to-switch links.
std::vector<PlannedLinkEvent> plan_link_events(const conf::Experiment& e, const Topology& t);

}  // namespace spraylab::topo
