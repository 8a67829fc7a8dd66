#include "trafficgen/bounds/steps_bound.h"

#include <algorithm>

namespace spraylab::gen {
namespace {

// Per message of the set: its times along the longest chain ending in it.
struct ChainTimes {
  double received = 0, acked = 0;
  uint32_t length = 0;
  bool in_set = false, done = false;
};

class CriticalPath {
 public:
  CriticalPath(const Schedule& s, std::span<const MessageId> messages,
               const std::vector<uint32_t>& hops, const BoundWire& w)
      : s_(s), hops_(hops), w_(w), times_(s.messages.size()) {
    for (MessageId id : messages) times_[id].in_set = true;
  }

  // The times of `id`, its dependencies first. Iterative, so a trace's long chains cannot
  // overflow the stack; the schedule is acyclic (validate()).
  const ChainTimes& of(MessageId id) {
    std::vector<MessageId> stack = {id};
    while (!stack.empty()) {
      const MessageId top = stack.back();
      if (times_[top].done) {
        stack.pop_back();
        continue;
      }
      bool ready = true;
      for (MessageId d : s_.messages[top].depends_on) {
        if (times_[d].in_set && !times_[d].done) {
          stack.push_back(d);
          ready = false;
        }
      }
      if (ready) {
        compute(top);
        stack.pop_back();
      }
    }
    return times_[id];
  }

 private:
  void compute(MessageId id) {
    const Message& m = s_.messages[id];
    double start = 0;
    uint32_t before = 0;
    for (MessageId d : m.depends_on) {
      const ChainTimes& dt = times_[d];
      if (!dt.in_set) continue;
      // Its sender's own message counts once ACKed; one it receives once its data is in.
      const double ready = s_.messages[d].src == m.src ? dt.acked : dt.received;
      if (ready + static_cast<double>(m.start_ns) > start) {
        start = ready + static_cast<double>(m.start_ns);
        before = dt.length;
      }
    }
    const MessageFrames f = message_frames(w_, m.bytes);
    const double h = hops_[id], p = w_.link_delay_ns;
    ChainTimes& t = times_[id];
    t.received = start + f.data_slots_ns - w_.gap_ns() + p + (h - 1) * (f.shortest_data_ns + p);
    t.acked = t.received + h * w_.ack_hop_ns();
    t.length = before + 1;
    t.done = true;
  }

  const Schedule& s_;
  const std::vector<uint32_t>& hops_;
  const BoundWire& w_;
  std::vector<ChainTimes> times_;
};

}  // namespace

bool has_dependencies_within(const Schedule& s, std::span<const MessageId> messages) {
  std::vector<bool> in_set(s.messages.size(), false);
  for (MessageId id : messages) in_set[id] = true;
  for (MessageId id : messages) {
    for (MessageId d : s.messages[id].depends_on) {
      if (in_set[d]) return true;
    }
  }
  return false;
}

StepsBound critical_path_bound(const Schedule& s, std::span<const MessageId> messages,
                               const std::vector<uint32_t>& hops, const BoundWire& w) {
  CriticalPath path(s, messages, hops, w);
  StepsBound b;
  for (MessageId id : messages) {
    const ChainTimes& t = path.of(id);
    if (t.acked > b.total_ns) b = {t.acked, t.length};
  }
  return b;
}

}  // namespace spraylab::gen
