// The one list of load-balancer names. The YAML loader, the factory, the benchmarks and the docs
// all read it; no algorithm name is spelled anywhere else.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace spraylab::lb {

enum class Algorithm : uint8_t {
  kEcmp,
  kRps,
  kRr,
  kJsq,
  kAr,
  kTopk,
  kPsp,
  kOfan,
  kPofan,
  kPolarized,
};

struct AlgorithmInfo {
  Algorithm id;
  std::string_view name;  // as written in the experiment YAML (`load_balancer.algorithm`)
  bool queue_aware;       // reads queue depths (and so `queue_unit`, `state_update_ns`)
  bool flow_hash;         // reads Packet::hash (the data path computes it only for these)
  std::string_view summary;
};

inline constexpr std::array<AlgorithmInfo, 10> kAlgorithms{{
    {Algorithm::kEcmp, "ecmp", false, true, "hash of the flow entropy modulo w"},
    {Algorithm::kRps, "rps", false, false, "uniform random port per packet"},
    {Algorithm::kRr, "rr", false, false, "SimpleRR: one round-robin counter, optional reshuffle"},
    {Algorithm::kJsq, "jsq", true, false, "join the shortest queue, exact or banded"},
    {Algorithm::kAr, "ar", true, false, "htsim adaptive routing: 5/10/20% bands"},
    {Algorithm::kTopk, "topk", true, false, "uniform among the k shortest queues"},
    {Algorithm::kPsp, "psp", true, false, "probabilistic state-proportional selection"},
    {Algorithm::kOfan, "ofan", false, false, "shared per-destination rotation, combined per burst"},
    {Algorithm::kPofan, "pofan", false, false, "per-pipe per-destination rotation"},
    {Algorithm::kPolarized, "polarized", true, false, "MRLS Polarized routing"},
}};

// Suffix of the benchmark name of Ofan's per-packet-atomic baseline ("ofan" + this).
inline constexpr std::string_view kAtomicSuffix = "_atomic";

constexpr const AlgorithmInfo& info(Algorithm a) { return kAlgorithms[static_cast<size_t>(a)]; }
constexpr std::string_view to_string(Algorithm a) { return info(a).name; }
constexpr std::optional<Algorithm> algorithm_from_name(std::string_view name) {
  for (const AlgorithmInfo& i : kAlgorithms) {
    if (i.name == name) return i.id;
  }
  return std::nullopt;
}

}  // namespace spraylab::lb
