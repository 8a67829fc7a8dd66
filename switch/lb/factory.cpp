#include "switch/lb/factory.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "switch/lb/ar.h"
#include "switch/lb/dragonfly_min.h"
#include "switch/lb/dragonfly_table.h"
#include "switch/lb/ecmp.h"
#include "switch/lb/fpar.h"
#include "switch/lb/jsq.h"
#include "switch/lb/ksp.h"
#include "switch/lb/ofan.h"
#include "switch/lb/pofan.h"
#include "switch/lb/polarized.h"
#include "switch/lb/psp.h"
#include "switch/lb/rps.h"
#include "switch/lb/rr.h"
#include "switch/lb/topk.h"
#include "switch/lb/ugal.h"
#include "topo/dragonfly_groups.h"

namespace spraylab::lb {

// The loader refuses ksp's k out of range at its key (conf/balancer_section.cpp).
static_assert(conf::BalancerSpec::kKspMaxK == topo::KspPaths::kMaxK);
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& why) {
  throw std::invalid_argument("load_balancer." + key + ": " + why);
}

}  // namespace

BalancerFactory::BalancerFactory(const conf::BalancerSpec& spec, SwitchContext ctx)
    : spec_(spec), ctx_(std::move(ctx)) {
  if (ctx_.lcores == 0) throw std::invalid_argument("balancer: a switch needs at least one lcore");
  switch (spec_.algorithm) {
    case Algorithm::kPsp:
      // The loader applies PSP's default n; a spec built by hand must give it too.
      if (spec_.bands == 0) bad("bands", "psp needs at least one band");
      break;
    case Algorithm::kOfan:
      if (ctx_.dest_ports.empty()) bad("algorithm", "ofan needs the switch's destination ports");
      // The state keeps the lists; ctx_ gives them up (a copy was as large again).
      ofan_ = std::make_shared<OfanState>(std::move(ctx_.dest_ports), ctx_.seed, ctx_.lcores);
      break;
    case Algorithm::kPofan: {
      if (ctx_.dest_ports.empty()) bad("algorithm", "pofan needs the switch's destination ports");
      const uint32_t w = spec_.pipe_ports;
      const auto pipes = static_cast<uint32_t>(w == 0 ? ctx_.rx_queues : (ctx_.ports + w - 1) / w);
      pofan_ =
          std::make_shared<PofanState>(std::move(ctx_.dest_ports), ctx_.seed, ctx_.lcores, pipes);
      break;
    }
    case Algorithm::kPolarized:
      if (ctx_.routing == nullptr) bad("algorithm", "polarized needs the switch's routing data");
      if (spec_.deroute_penalty < 0) bad("deroute_penalty", "must be >= 0");
      polarized_ = std::make_shared<PolarizedTable>(*ctx_.routing, ctx_.switch_index);
      break;
    case Algorithm::kKsp:
      // Path sets are per leaf pair of the whole switch graph, built once (topo::Routing) and
      // shared by every switch.
      if (ctx_.routing == nullptr) bad("algorithm", "ksp needs the switch's routing data");
      if (spec_.k < 1 || spec_.k > topo::KspPaths::kMaxK) {
        bad("k", "ksp needs 1 to " + std::to_string(topo::KspPaths::kMaxK) +
                     " paths per leaf pair, not " + std::to_string(spec_.k));
      }
      if (spec_.deroute_penalty < 0) bad("deroute_penalty", "must be >= 0");
      try {
        ksp_ = std::make_shared<KspTable>(*ctx_.routing, ctx_.switch_index,
                                          ctx_.routing->ksp_paths(spec_.k));
      } catch (const std::invalid_argument& e) {
        bad("algorithm", e.what());
      }
      break;
    case Algorithm::kDragonflyMin:
    case Algorithm::kUgal:
    case Algorithm::kFpar:
      make_dragonfly_table();
      break;
    default:
      break;
  }
}

void BalancerFactory::make_dragonfly_table() {
  const std::string name(to_string(spec_.algorithm));
  if (ctx_.routing == nullptr) bad("algorithm", name + " needs the switch's routing data");
  const topo::Kind kind = ctx_.routing->topology().kind;
  if (spec_.algorithm == Algorithm::kFpar && kind != topo::Kind::kDragonflyPlus) {
    bad("algorithm", "fpar routes a Dragonfly+ (topology.generator: dragonfly-plus), not " +
                         std::string(topo::to_string(kind)));
  }
  // Each switch recovers the groups from the topology (dragonfly_groups.h): O(links), and no
  // table of all pairs.
  std::shared_ptr<const topo::DragonflyGroups> groups;
  try {
    groups = std::make_shared<const topo::DragonflyGroups>(*ctx_.routing);
  } catch (const std::invalid_argument& e) {
    bad("algorithm", name + ": " + e.what());
  }
  if (spec_.algorithm == Algorithm::kUgal) {
    if (groups->groups() < 3) {
      bad("algorithm", "ugal needs at least 3 groups (its Valiant path's intermediate group is "
                       "neither the source's nor the destination's), the topology has " +
                           std::to_string(groups->groups()));
    }
    if (ctx_.routing->leaves().size() > Ugal::kMaxLeaves) {
      bad("algorithm", "ugal carries the intermediate leaf in a 16-bit label: at most " +
                           std::to_string(Ugal::kMaxLeaves) + " leaves, the topology has " +
                           std::to_string(ctx_.routing->leaves().size()));
    }
  }
  dragonfly_ = std::make_shared<DragonflyTable>(*ctx_.routing, std::move(groups), ctx_.switch_index);
}

BalancerFactory::~BalancerFactory() = default;

std::unique_ptr<Balancer> BalancerFactory::make(uint32_t lcore) const {
  if (lcore >= ctx_.lcores) throw std::out_of_range("balancer: lcore id beyond SwitchContext");
  const auto queues = [&] {
    return BurstQueues(ctx_.ports, spec_.state_update_ns, spec_.queue_unit == QueueUnit::kBytes);
  };
  switch (spec_.algorithm) {
    case Algorithm::kEcmp:
      if (spec_.ecmp_hash == EcmpHash::kDigit) return std::make_unique<EcmpDigit>(ctx_.level);
      return std::make_unique<Ecmp>(static_cast<uint32_t>(ctx_.seed));
    case Algorithm::kRps:
      return std::make_unique<Rps>();
    case Algorithm::kRr:
      return std::make_unique<SimpleRr>(spec_.reshuffle_every);
    case Algorithm::kJsq:
      return std::make_unique<Jsq>(spec_.bands, band_thresholds(), queues());
    case Algorithm::kAr:
      return std::make_unique<Ar>(queues(), ar_buffers(), static_cast<uint32_t>(ctx_.seed));
    case Algorithm::kTopk:
      return std::make_unique<TopK>(spec_.k, queues());
    case Algorithm::kPsp:
      return std::make_unique<Psp>(spec_.bands, band_thresholds(), spec_.saturated_weight,
                                   queues());
    case Algorithm::kOfan:
      return std::make_unique<Ofan>(ofan_, lcore, spec_.ack_size, spec_.atomic_per_packet);
    case Algorithm::kPofan:
      return std::make_unique<Pofan>(pofan_, lcore, spec_.ack_size, spec_.pipe_ports);
    case Algorithm::kPolarized:
      return std::make_unique<Polarized>(polarized_, deroute_penalty(), queues());
    case Algorithm::kKsp:
      return std::make_unique<Ksp>(ksp_, deroute_penalty(), ctx_.ports, queues());
    case Algorithm::kDragonflyMin:
      return std::make_unique<DragonflyMin>(dragonfly_, ctx_.ports);
    case Algorithm::kUgal:
      return std::make_unique<Ugal>(dragonfly_, one_packet(), ctx_.ports, queues());
    case Algorithm::kFpar:
      return std::make_unique<Fpar>(dragonfly_, one_packet(), ctx_.ports, queues());
  }
  return nullptr;
}

BandThresholds BalancerFactory::band_thresholds() const {
  const bool bytes = spec_.queue_unit == QueueUnit::kBytes;
  auto th = std::make_shared<std::vector<uint32_t>>(ctx_.ports);
  for (size_t p = 0; p < ctx_.ports; ++p) {
    if (spec_.threshold != 0) {
      (*th)[p] = static_cast<uint32_t>(std::min<uint64_t>(spec_.threshold, UINT32_MAX));
    } else {
      const double rate = p < ctx_.port_rate_bps.size() ? ctx_.port_rate_bps[p] : 0;
      (*th)[p] = default_band_threshold(rate, spec_.state_update_ns, ctx_.frame_bytes,
                                        std::max(spec_.bands, 1u), bytes);
    }
  }
  return BandThresholds(std::move(th));
}

BandThresholds BalancerFactory::ar_buffers() const {
  if (ctx_.buffer_bytes == 0) return {};
  // In packets the buffer holds buffer/frame nominal data frames: htsim's maxsize() in the unit
  // AR reads. (The egress ring's frame count, the view's packet capacity, is far larger than the
  // buffer lets a queue grow: bands on it never leave band 0, and AR would be RPS.)
  const uint64_t b =
      spec_.queue_unit == QueueUnit::kBytes
          ? ctx_.buffer_bytes
          : std::max<uint64_t>(1, ctx_.buffer_bytes / std::max(1u, ctx_.frame_bytes));
  return BandThresholds(std::make_shared<std::vector<uint32_t>>(
      ctx_.ports, static_cast<uint32_t>(std::min<uint64_t>(b, UINT32_MAX))));
}

double BalancerFactory::deroute_penalty() const {
  const bool bytes = spec_.queue_unit == QueueUnit::kBytes;
  return spec_.deroute_penalty * (bytes ? ctx_.frame_bytes : 1);
}

uint32_t BalancerFactory::one_packet() const {
  return spec_.queue_unit == QueueUnit::kBytes ? ctx_.frame_bytes : 1;
}

void BalancerFactory::set_port_state(PortId port, bool up) {
  if (ofan_) ofan_->orders().set_port_state(port, up);
  if (pofan_) pofan_->orders().set_port_state(port, up);
}

void BalancerFactory::set_withdrawn(uint32_t dest, std::vector<PortId> ports) {
  if (ofan_) ofan_->orders().set_withdrawn(dest, ports);
  if (pofan_) pofan_->orders().set_withdrawn(dest, std::move(ports));
}

void BalancerFactory::synchronize() {
  if (ofan_) ofan_->orders().synchronize();
  if (pofan_) pofan_->orders().synchronize();
}

}  // namespace spraylab::lb
