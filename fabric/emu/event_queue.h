// The virtual clock's event queue: "wake node N (for reason `tag`) at time T", earliest first.
// Ties in time go by (node, tag): an order of the events themselves, not of when or by whom they
// were scheduled, so the partitioned clock (virtual_run.cpp: each partition its own queue,
// cross-partition arrivals armed at a barrier) runs every node's events in the same order as one
// queue does, whatever the partitioning and the threads' timing. Two pending events with the same
// (time, node, tag) are the same call (a host's superseded timer), so their order does not matter.
// A run is the same sequence of events every time: deterministic, and the same for any --threads.
//
// EventQueue is a bucket (calendar) queue with one bucket per ns over a sliding window of
// kWindowNs from the clock. An event inside the window is appended to its ns's bucket, a list of
// blocks of kBlockEvents events in the order of the pushes (a list of single entries cost a cache
// miss an entry to read back, 6 % of a 1024-host run); the clock's own ns is `current_`, an array
// sorted by (node, tag) and read from the front. When the clock moves to the next non-empty bucket,
// that bucket's list is copied into current_ and sorted once; a push for the clock's ns goes into
// current_ at its place (at the end, nearly always). Sorting a bucket when the clock reaches it,
// instead of keeping each list sorted as it grows, matters in a large fabric: its links have equal
// delays and its frames equal sizes, so thousands of events fall in one ns, pushed in no order of
// (node, tag); an insertion into such a list walked half of it, a cache miss an entry (a third of a
// 1024-host run's time went there, docs/BENCHMARKS.md, issue 40's event queue). Push and pop cost
// O(1) but for that sort, whatever the number of pending events (a bitmap, two levels of 64-bit
// words, finds the next non-empty bucket); a binary heap's pop costs log2(pending) cache lines, and
// pending events grow with the fabric (about one per busy link, port and host). Events beyond the
// window (retransmission timeouts, link events) wait in a heap and move into their bucket when
// the window reaches them. An event scheduled before the clock (nothing in the fabric schedules
// before the event it runs, but the clock moves to the next event's ns as soon as its own is
// empty, and the order must not depend on either) waits in a heap of its own that goes before
// everything else. The order is exactly HeapEventQueue's, the binary heap it replaced
// (tests/fabric/event_queue_test.cpp compares them).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace spraylab::fabric {

struct Event {
  uint64_t time = 0;  // ns on the fabric clock
  uint32_t node = 0;
  uint32_t tag = 0;  // what the node asked for: a link arrival, a shaper departure, a timer

  // The tie order among events of one time.
  uint64_t key() const { return uint64_t{node} << 32 | tag; }
};

// std::*_heap keep the largest first: "larger" is later here.
struct EventLater {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.key() > b.key();
  }
};

// A binary heap of events on (time, node, tag): the reference order, and the queue for events
// outside EventQueue's window.
class HeapEventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  void push(uint64_t time, uint32_t node, uint32_t tag) { push(Event{time, node, tag}); }
  void push(const Event& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), EventLater{});
  }
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), EventLater{});
    const Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }

 private:
  std::vector<Event> heap_;
};

class EventQueue {
 public:
  // The window: a link's delay (500 ns) plus a few frame times covers nearly every event; a 1 ms
  // retransmission timeout waits in the heap. 4096 buckets are 32 KB of heads and tails.
  static constexpr uint32_t kWindowBits = 12;
  static constexpr uint64_t kWindowNs = uint64_t{1} << kWindowBits;

  EventQueue() { buckets_.fill(Bucket{}); }

  void reserve(size_t n) { blocks_.reserve(n / kBlockEvents + 1); }
  void push(uint64_t time, uint32_t node, uint32_t tag) {
    const Event e{time, node, tag};
    ++size_;
    if (time < now_) {
      past_.push(e);
    } else if (time == now_) {
      insert_current(e);
    } else if (time - now_ >= kWindowNs) {
      far_.push(e);
    } else {
      append(e);
    }
  }
  // The earliest event; the queue must not be empty.
  Event pop() {
    --size_;
    if (!past_.empty()) return past_.pop();
    if (at_ == current_.size()) advance();
    return current_[at_++];
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  uint64_t next_time() const {
    if (empty()) return UINT64_MAX;
    if (!past_.empty()) return past_.top().time;
    if (at_ < current_.size()) return now_;
    const uint32_t s = next_occupied(slot(now_));
    return s == kNil ? far_.top().time : now_ + ((s - slot(now_)) & kMask);
  }
  // The next event (the queue must not be empty; the clock may move to its ns), and one likely
  // to follow it (nullptr if it is not at hand: the next ns's order is known only when the clock
  // gets there): for prefetching, not for order.
  const Event& top() {
    if (!past_.empty()) return past_.top();
    if (at_ == current_.size()) advance();
    return current_[at_];
  }
  const Event* after_top() const {
    if (!past_.empty()) return nullptr;
    if (at_ + 1 < current_.size()) return &current_[at_ + 1];
    if (at_ + 1 > current_.size()) return nullptr;
    // The last of its ns: the next ns's first is known if it is alone there.
    const uint32_t s = next_occupied(slot(now_));
    if (s == kNil || buckets_[s].head != buckets_[s].tail) return nullptr;
    const Block& only = blocks_[buckets_[s].head];
    return only.count == 1 ? &only.events[0] : nullptr;
  }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr uint32_t kMask = kWindowNs - 1;
  static constexpr uint32_t kWords = kWindowNs / 64;
  static_assert(kWords <= 64, "one summary word");

  // 8 cache lines: read back in order, the hardware's prefetcher follows.
  static constexpr uint32_t kBlockEvents = 31;
  struct Block {
    uint32_t next = kNil;  // the bucket's next block, or the free list's
    uint32_t count = 0;
    std::array<Event, kBlockEvents> events;
  };
  struct Bucket {
    uint32_t head = kNil, tail = kNil;
  };
  struct KeyLess {
    bool operator()(const Event& a, const Event& b) const { return a.key() < b.key(); }
  };

  static uint32_t slot(uint64_t t) { return static_cast<uint32_t>(t) & kMask; }

  // A push for the clock's ns: after every pending event of that ns that does not sort after it.
  void insert_current(const Event& e) {
    if (at_ == current_.size()) {  // all taken: start the array again
      current_.clear();
      at_ = 0;
    }
    if (current_.empty() || e.key() >= current_.back().key()) {
      current_.push_back(e);
      return;
    }
    const auto from = current_.begin() + static_cast<std::ptrdiff_t>(at_);
    current_.insert(std::upper_bound(from, current_.end(), e, KeyLess{}), e);
  }

  void append(const Event& e) {
    const uint32_t s = slot(e.time);
    Bucket& b = buckets_[s];
    if (b.tail == kNil) {
      b.head = b.tail = new_block();
      words_[s / 64] |= uint64_t{1} << (s % 64);
      summary_ |= uint64_t{1} << (s / 64);
    } else if (blocks_[b.tail].count == kBlockEvents) {
      const uint32_t i = new_block();
      blocks_[b.tail].next = i;
      b.tail = i;
    }
    Block& last = blocks_[b.tail];
    last.events[last.count++] = e;
  }

  uint32_t new_block() {
    uint32_t i = free_;
    if (i != kNil) {
      free_ = blocks_[i].next;
    } else {
      i = static_cast<uint32_t>(blocks_.size());
      blocks_.emplace_back();
    }
    blocks_[i].next = kNil;
    blocks_[i].count = 0;
    return i;
  }

  // The clock's ns is done (current_ all taken, the past empty) and events are pending: move to
  // the next event's ns, bring in from far_ what the window now reaches (all later than anything
  // in it, so no bucket ahead of the clock), and sort that ns's bucket into current_.
  void advance() {
    const uint32_t s = next_occupied(slot(now_));
    now_ = s == kNil ? far_.top().time : now_ + ((s - slot(now_)) & kMask);
    while (!far_.empty() && far_.top().time - now_ < kWindowNs) append(far_.pop());
    current_.clear();
    at_ = 0;
    Bucket& b = buckets_[slot(now_)];
    for (uint32_t i = b.head; i != kNil;) {
      Block& block = blocks_[i];
      const uint32_t next = block.next;
      if (next != kNil) __builtin_prefetch(&blocks_[next]);
      current_.insert(current_.end(), block.events.begin(), block.events.begin() + block.count);
      block.next = free_;
      free_ = i;
      i = next;
    }
    b = Bucket{};
    const uint32_t c = slot(now_);
    words_[c / 64] &= ~(uint64_t{1} << (c % 64));
    if (words_[c / 64] == 0) summary_ &= ~(uint64_t{1} << (c / 64));
    std::sort(current_.begin(), current_.end(), KeyLess{});
  }

  // The first non-empty bucket at or after slot `from`, going round the window; kNil if none.
  uint32_t next_occupied(uint32_t from) const {
    const uint32_t w = from / 64;
    const uint64_t here = words_[w] & (~uint64_t{0} << (from % 64));
    if (here != 0) return w * 64 + static_cast<uint32_t>(std::countr_zero(here));
    const uint64_t after = w + 1 < 64 ? summary_ & (~uint64_t{0} << (w + 1)) : 0;
    const uint64_t any = after != 0 ? after : summary_;  // else wrap round to the start
    if (any == 0) return kNil;
    const uint32_t w2 = static_cast<uint32_t>(std::countr_zero(any));
    if (w2 == w) {  // wrapped round to this word: its bits before `from`
      return w * 64 + static_cast<uint32_t>(std::countr_zero(words_[w]));
    }
    return w2 * 64 + static_cast<uint32_t>(std::countr_zero(words_[w2]));
  }

  std::array<Bucket, kWindowNs> buckets_;  // the ns after the clock's, in push order
  std::array<uint64_t, kWords> words_{};   // bit s: bucket s is not empty
  uint64_t summary_ = 0;                   // bit w: words_[w] is not 0
  std::vector<Block> blocks_;              // the buckets' blocks
  uint32_t free_ = kNil;                   // free blocks, a list
  std::vector<Event> current_;             // the clock's ns, sorted by key; taken up to at_
  size_t at_ = 0;
  uint64_t now_ = 0;  // the clock's ns: of the last pop, or of the next event once its ns is done
  size_t size_ = 0;
  HeapEventQueue far_;   // at or after now_ + kWindowNs when pushed
  HeapEventQueue past_;  // before now_ when pushed
};

}  // namespace spraylab::fabric
