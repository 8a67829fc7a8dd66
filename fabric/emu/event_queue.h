// The virtual clock's event queue: "wake node N (for reason `tag`) at time T", earliest first.
// Ties in time go in the order the events were scheduled (a sequence number), so a run is the
// same sequence of events every time: deterministic, whatever the heap does with equal keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace spraylab::fabric {

struct Event {
  uint64_t time = 0;  // ns on the fabric clock
  uint64_t seq = 0;
  uint32_t node = 0;
  uint32_t tag = 0;  // what the node asked for: a link arrival, a shaper departure, a timer
};

class EventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  void push(uint64_t time, uint32_t node, uint32_t tag) {
    heap_.push_back(Event{time, seq_++, node, tag});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  uint64_t next_time() const { return heap_.empty() ? UINT64_MAX : heap_.front().time; }
  // The next event (the queue must not be empty), and one likely to follow it (one of its
  // children in the heap; nullptr if none): for prefetching, not for order.
  const Event& top() const { return heap_.front(); }
  const Event* after_top() const {
    if (heap_.size() < 2) return nullptr;
    if (heap_.size() == 2 || Later{}(heap_[2], heap_[1])) return &heap_[1];
    return &heap_[2];
  }

 private:
  // std::*_heap keep the largest first: "larger" is later here.
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::vector<Event> heap_;
  uint64_t seq_ = 0;
};

}  // namespace spraylab::fabric
