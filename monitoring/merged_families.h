// Several collectors of the same families as one: a family that more than one of them gives (the
// same name) is written once, with every collector's series under it. The text format allows a
// family's TYPE and HELP once only: the in-process fabric's switches, a SwitchCollector each,
// share one endpoint through this (fabric/cli/run_cli.cpp).
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spraylab::monitoring {

class MergedFamilies : public prometheus::Collectable {
 public:
  explicit MergedFamilies(std::vector<std::shared_ptr<prometheus::Collectable>> parts)
      : parts_(std::move(parts)) {}

  // The families in the order they first appear, each with the series of every part.
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    std::map<std::string, size_t> at;  // family name -> index in out
    for (const auto& part : parts_) {
      for (prometheus::MetricFamily& f : part->Collect()) {
        const auto [it, fresh] = at.emplace(f.name, out.size());
        if (fresh) {
          out.push_back(std::move(f));
          continue;
        }
        auto& metrics = out[it->second].metric;
        metrics.insert(metrics.end(), std::make_move_iterator(f.metric.begin()),
                       std::make_move_iterator(f.metric.end()));
      }
    }
    return out;
  }

 private:
  std::vector<std::shared_ptr<prometheus::Collectable>> parts_;
};

}  // namespace spraylab::monitoring
