#include "monitoring/registry.h"

#include <iterator>

#include "monitoring/text_format.h"

namespace spraylab::monitoring {

void Registry::add(std::shared_ptr<prometheus::Collectable> collector) {
  std::lock_guard<std::mutex> lock(mutex_);
  collectors_.push_back(std::move(collector));
}

std::vector<prometheus::MetricFamily> Registry::Collect() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<prometheus::MetricFamily> out;
  for (const auto& c : collectors_) {
    auto families = c->Collect();
    out.insert(out.end(), std::make_move_iterator(families.begin()),
               std::make_move_iterator(families.end()));
  }
  return out;
}

std::string Registry::serialize() const {
  std::string out;
  out.reserve(last_size_.load(std::memory_order_relaxed));  // one allocation per scrape
  write_text(out, Collect());
  last_size_.store(out.size() + out.size() / 8, std::memory_order_relaxed);
  return out;
}

}  // namespace spraylab::monitoring
