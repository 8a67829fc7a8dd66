// A workload as data: the messages a collective run sends, who sends them and what each waits for.
//
// Every workload builder (trafficgen/workloads/) produces a Schedule; the host engine replays it.
// Invariants (checked by validate()): ids are 0..n-1 in order; 0 <= src, dst < ranks; src != dst;
// bytes > 0; every dependency names another message; the dependency graph is acyclic.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace spraylab::gen {

using MessageId = uint32_t;
using Rank = uint32_t;

struct Message {
  MessageId id = 0;
  Rank src = 0;
  Rank dst = 0;
  uint64_t bytes = 0;
  // Messages that must be complete (all data ACKed at the sender, all data received at the
  // receiver) before this one starts. Builders only name messages that `src` itself sends or
  // receives, so a host can decide readiness from what it sees (dependencies_are_local()).
  std::vector<MessageId> depends_on;
  // The message starts start_ns after it becomes ready: after its dependencies complete, or after
  // the run starts if it has none. Builders use 0; traces give it per row.
  uint64_t start_ns = 0;
  uint32_t step = 0;        // position within its collective (ring step); 0 if unordered
  uint32_t collective = 0;  // index into Schedule::collectives
};

struct Collective {
  uint32_t id = 0;
  std::string name;        // e.g. "permutation", "fsdp.all-gather.layer.17"
  uint32_t iteration = 0;  // which repetition (workloads/iterations.h)
};

struct Schedule {
  uint32_t ranks = 0;
  std::vector<Collective> collectives;
  std::vector<Message> messages;

  // Appends a collective and returns its id.
  uint32_t add_collective(std::string name, uint32_t iteration = 0);
  // Appends a message, assigning its id, and returns the id.
  MessageId add_message(Message m);
  MessageId add_message(Rank src, Rank dst, uint64_t bytes, uint32_t collective,
                        std::vector<MessageId> depends_on = {}, uint32_t step = 0);
};

// Thrown by builders and validate() for a workload that cannot be built as asked.
class WorkloadError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Checks the invariants above; throws WorkloadError naming the first offending message.
void validate(const Schedule& s);
// A message on a dependency cycle, if there is one (dependencies must name existing messages).
std::optional<MessageId> cycle_member(const Schedule& s);
// True if every dependency of a message is a message its sender sends or receives.
bool dependencies_are_local(const Schedule& s);

uint64_t total_bytes(const Schedule& s);
// Bytes each rank sends / receives (indexed by rank).
std::vector<uint64_t> bytes_sent_per_rank(const Schedule& s);
std::vector<uint64_t> bytes_received_per_rank(const Schedule& s);
// Total bytes of one collective.
uint64_t collective_bytes(const Schedule& s, uint32_t collective);

// Per rank, the messages a rank must see complete before it begins whatever follows.
using Frontier = std::vector<std::vector<MessageId>>;

// The frontier after messages [first, end): for each rank r, the messages in the range that r
// sends or receives and that no message r sends in the range depends on. Waiting for them is a
// per-rank barrier: r starts the next collective once all its traffic in this one is done.
Frontier terminal_messages(const Schedule& s, MessageId first, MessageId end);

// Splits `total` bytes into `parts` chunks differing by at most one byte (the first total % parts
// chunks get the extra byte), so collectives move exactly `total` bytes.
uint64_t chunk_bytes(uint64_t total, uint32_t parts, uint32_t index);

}  // namespace spraylab::gen
