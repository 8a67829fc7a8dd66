// MRLS parameters that can never give a connected graph, said before any draw. Header-only, so
// that the config loader (which does not link topo) says it at the key (conf/topology_section.cpp).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

namespace spraylab::topo {

// With one uplink a leaf reaches one spine, so the leaves under different spines never meet: a
// draw is connected only with a single spine. Every retry of the wiring (max_tries) fails alike.
inline std::string mrls_one_uplink_problem(uint64_t spines) {
  return fmt::format(
      "expected at least 2 uplinks per leaf with N2 = {} spines: with one, each leaf reaches one "
      "spine and the leaves form {} islands whatever the wiring",
      spines, spines);
}

}  // namespace spraylab::topo
