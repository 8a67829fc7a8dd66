#include "conf/experiment.h"

namespace spraylab::conf {

const BalancerSpec& BalancerPlan::for_switch(const std::string& name, uint32_t level) const {
  if (auto it = per_switch.find(name); it != per_switch.end()) return it->second;
  if (auto it = per_layer.find(level); it != per_layer.end()) return it->second;
  return fallback;
}

}  // namespace spraylab::conf
