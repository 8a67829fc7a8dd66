// How a host injects its data (`workload.injection`): paced at workload.load x the line rate
// (the default, what every run did before), or as the MRLS paper's Bernoulli arrivals (§5.2,
// "Bernoulli equal-sized messages"; CAMINOS's HomogeneousTraffic): at each of its packet slots (a
// full data frame's serialisation time at line rate) a host starts a packet with probability
// `load`, open loop. The process is trafficgen/injection.h; docs/workloads.md, "Injection".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::gen {

enum class Injection : uint8_t { kPaced, kBernoulli };
struct InjectionInfo {
  Injection id;
  std::string_view name;
};
inline constexpr std::array<InjectionInfo, 2> kInjectionTable{
    {{Injection::kPaced, "paced"}, {Injection::kBernoulli, "bernoulli"}}};
static_assert(names::in_enum_order(kInjectionTable));
inline constexpr std::array<std::string_view, 2> kInjectionNames = names::names_of(kInjectionTable);
constexpr std::string_view to_string(Injection i) {
  return kInjectionNames[static_cast<size_t>(i)];
}

}  // namespace spraylab::gen
