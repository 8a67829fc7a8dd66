#include "trafficgen/schedule.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace spraylab::gen {

uint32_t Schedule::add_collective(std::string name, uint32_t iteration) {
  const auto id = static_cast<uint32_t>(collectives.size());
  collectives.push_back({id, std::move(name), iteration});
  return id;
}

MessageId Schedule::add_message(Message m) {
  m.id = static_cast<MessageId>(messages.size());
  messages.push_back(std::move(m));
  return messages.back().id;
}

MessageId Schedule::add_message(Rank src, Rank dst, uint64_t bytes, uint32_t collective,
                                std::vector<MessageId> depends_on, uint32_t step) {
  Message m;
  m.src = src;
  m.dst = dst;
  m.bytes = bytes;
  m.collective = collective;
  m.depends_on = std::move(depends_on);
  m.step = step;
  return add_message(std::move(m));
}

namespace {

[[noreturn]] void fail(const Message& m, const std::string& what) {
  throw WorkloadError("message " + std::to_string(m.id) + " (" + std::to_string(m.src) + " -> " +
                      std::to_string(m.dst) + "): " + what);
}

}  // namespace

std::optional<MessageId> cycle_member(const Schedule& s) {
  // Kahn's algorithm orders every message not on or behind a cycle.
  const size_t n = s.messages.size();
  std::vector<uint32_t> pending(n);
  std::vector<std::vector<MessageId>> dependents(n);
  for (const Message& m : s.messages) {
    pending[m.id] = static_cast<uint32_t>(m.depends_on.size());
    for (MessageId d : m.depends_on) dependents[d].push_back(m.id);
  }
  std::vector<MessageId> ready;
  for (MessageId i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const MessageId id = ready.back();
    ready.pop_back();
    for (MessageId next : dependents[id]) {
      if (--pending[next] == 0) ready.push_back(next);
    }
  }
  // An unordered message waits on an unordered dependency; walking those links n times from any
  // unordered message must end on a cycle.
  for (MessageId i = 0; i < n; ++i) {
    if (pending[i] == 0) continue;
    MessageId at = i;
    for (size_t step = 0; step < n; ++step) {
      for (MessageId d : s.messages[at].depends_on) {
        if (pending[d] != 0) {
          at = d;
          break;
        }
      }
    }
    return at;
  }
  return std::nullopt;
}

void validate(const Schedule& s) {
  for (size_t i = 0; i < s.messages.size(); ++i) {
    const Message& m = s.messages[i];
    if (m.id != i) fail(m, "id out of order (expected " + std::to_string(i) + ")");
    if (m.src >= s.ranks || m.dst >= s.ranks) {
      fail(m, "rank out of range (" + std::to_string(s.ranks) + " ranks)");
    }
    if (m.src == m.dst) fail(m, "sends to itself");
    if (m.bytes == 0) fail(m, "has no bytes");
    if (m.collective >= s.collectives.size()) fail(m, "unknown collective");
    for (MessageId d : m.depends_on) {
      if (d >= s.messages.size()) fail(m, "depends on unknown message " + std::to_string(d));
      if (d == m.id) fail(m, "depends on itself");
    }
  }
  if (const std::optional<MessageId> id = cycle_member(s)) {
    fail(s.messages[*id], "is on a dependency cycle");
  }
}

bool dependencies_are_local(const Schedule& s) {
  for (const Message& m : s.messages) {
    for (MessageId d : m.depends_on) {
      const Message& dep = s.messages[d];
      if (dep.src != m.src && dep.dst != m.src) return false;
    }
  }
  return true;
}

uint64_t total_bytes(const Schedule& s) {
  uint64_t sum = 0;
  for (const Message& m : s.messages) sum += m.bytes;
  return sum;
}

std::vector<uint64_t> bytes_sent_per_rank(const Schedule& s) {
  std::vector<uint64_t> sent(s.ranks, 0);
  for (const Message& m : s.messages) sent[m.src] += m.bytes;
  return sent;
}

std::vector<uint64_t> bytes_received_per_rank(const Schedule& s) {
  std::vector<uint64_t> received(s.ranks, 0);
  for (const Message& m : s.messages) received[m.dst] += m.bytes;
  return received;
}

uint64_t collective_bytes(const Schedule& s, uint32_t collective) {
  uint64_t sum = 0;
  for (const Message& m : s.messages) {
    if (m.collective == collective) sum += m.bytes;
  }
  return sum;
}

Frontier terminal_messages(const Schedule& s, MessageId first, MessageId end) {
  // waited[r] holds the messages some message sent by r depends on.
  std::vector<std::vector<MessageId>> waited(s.ranks);
  for (MessageId id = first; id < end; ++id) {
    const Message& m = s.messages[id];
    for (MessageId d : m.depends_on) waited[m.src].push_back(d);
  }
  for (auto& w : waited) std::sort(w.begin(), w.end());
  Frontier frontier(s.ranks);
  for (MessageId id = first; id < end; ++id) {
    const Message& m = s.messages[id];
    for (Rank r : {m.src, m.dst}) {
      if (!std::binary_search(waited[r].begin(), waited[r].end(), id)) {
        frontier[r].push_back(id);
      }
    }
  }
  return frontier;
}

uint64_t chunk_bytes(uint64_t total, uint32_t parts, uint32_t index) {
  return total / parts + (index < total % parts ? 1 : 0);
}

}  // namespace spraylab::gen
