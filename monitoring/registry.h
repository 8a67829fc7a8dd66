// The one registry of a process: every collector whose metrics the process exposes. It is itself a
// prometheus::Collectable, so an exposer (exposer.h), a test or a benchmark scrapes it as a whole.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spraylab::monitoring {

class Registry : public prometheus::Collectable {
 public:
  // Adds a collector; its families follow those of the collectors added before it.
  void add(std::shared_ptr<prometheus::Collectable> collector);
  // Every collector's families, in the order they were added.
  std::vector<prometheus::MetricFamily> Collect() const override;
  // The text exposition format (what GET /metrics returns, uncompressed; text_format.h).
  std::string serialize() const;

 private:
  // Held for the list only (adding versus scraping); collectors read the data path unlocked.
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectors_;
  mutable std::atomic<size_t> last_size_{0};  // of the last scrape's text, with room to grow
};

}  // namespace spraylab::monitoring
