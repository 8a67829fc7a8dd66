// The virtual clock's event queue: "wake node N (for reason `tag`) at time T", earliest first.
// Ties in time go by (node, tag): an order of the events themselves, not of when or by whom they
// were scheduled, so the partitioned clock (virtual_run.cpp: each partition its own queue,
// cross-partition arrivals armed at a barrier) runs every node's events in the same order as one
// queue does, whatever the partitioning and the threads' timing. Two pending events with the same
// (time, node, tag) are the same call (a host's superseded timer), so their order does not matter.
// A run is the same sequence of events every time: deterministic, and the same for any --threads.
//
// EventQueue is a bucket (calendar) queue with one bucket per ns over a sliding window of
// kWindowNs from the clock: an event inside the window goes into its ns's bucket, a list kept in
// (node, tag) order (appended at the tail when it sorts last, as nearly every push does). Push and
// pop cost O(1) whatever the number of pending events (a bitmap, two levels of 64-bit words, finds
// the next non-empty bucket); a binary heap's pop costs log2(pending) cache lines, and pending
// events grow with the fabric (about one per busy link, port and host). Events beyond the window
// (retransmission timeouts, link events) wait in a heap and move into their bucket when the window
// reaches them. An event scheduled in the past (before the last one popped; nothing in the fabric
// does, but the order must not depend on it) waits in a heap of its own that goes before the
// buckets. The order is exactly HeapEventQueue's, the binary heap it replaced
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

  void reserve(size_t n) { pool_.reserve(n); }
  void push(uint64_t time, uint32_t node, uint32_t tag) {
    const Event e{time, node, tag};
    ++size_;
    if (time < now_) {
      past_.push(e);
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
    if (buckets_[slot(now_)].head == kNil) advance();
    return take(slot(now_));
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  uint64_t next_time() const { return empty() ? UINT64_MAX : top().time; }
  // The next event (the queue must not be empty), and one likely to follow it (nullptr if it is
  // not at hand): for prefetching, not for order.
  const Event& top() const {
    if (!past_.empty()) return past_.top();
    const uint32_t s = next_occupied(slot(now_));
    return s == kNil ? far_.top() : pool_[buckets_[s].head].e;
  }
  const Event* after_top() const {
    if (!past_.empty()) return nullptr;
    const uint32_t s = next_occupied(slot(now_));
    if (s == kNil) return nullptr;
    const uint32_t next = pool_[buckets_[s].head].next;
    if (next != kNil) return &pool_[next].e;
    const uint32_t s2 = next_occupied((s + 1) & kMask);
    return s2 == kNil || s2 == s ? nullptr : &pool_[buckets_[s2].head].e;
  }

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr uint32_t kMask = kWindowNs - 1;
  static constexpr uint32_t kWords = kWindowNs / 64;
  static_assert(kWords <= 64, "one summary word");

  struct Entry {
    Event e;
    uint32_t next = kNil;  // the bucket's next entry, or the free list's
  };
  struct Bucket {
    uint32_t head = kNil, tail = kNil;
  };

  static uint32_t slot(uint64_t t) { return static_cast<uint32_t>(t) & kMask; }

  void append(const Event& e) {
    uint32_t i = free_;
    if (i != kNil) {
      free_ = pool_[i].next;
      pool_[i] = Entry{e, kNil};
    } else {
      i = static_cast<uint32_t>(pool_.size());
      pool_.push_back(Entry{e, kNil});
    }
    Bucket& b = buckets_[slot(e.time)];
    if (b.tail == kNil) {
      b.head = i;
      b.tail = i;
      const uint32_t s = slot(e.time);
      words_[s / 64] |= uint64_t{1} << (s % 64);
      summary_ |= uint64_t{1} << (s / 64);
    } else if (e.key() >= pool_[b.tail].e.key()) {
      pool_[b.tail].next = i;
      b.tail = i;
    } else {  // before the tail: after the last entry that does not sort after it
      uint32_t* at = &b.head;
      while (pool_[*at].e.key() <= e.key()) at = &pool_[*at].next;
      pool_[i].next = *at;
      *at = i;
    }
  }

  Event take(uint32_t s) {
    Bucket& b = buckets_[s];
    const uint32_t i = b.head;
    Entry& entry = pool_[i];
    b.head = entry.next;
    if (b.head == kNil) {
      b.tail = kNil;
      words_[s / 64] &= ~(uint64_t{1} << (s % 64));
      if (words_[s / 64] == 0) summary_ &= ~(uint64_t{1} << (s / 64));
    }
    entry.next = free_;
    free_ = i;
    return entry.e;
  }

  // The clock's bucket is empty: move to the next event's ns, and bring in from far_ what the
  // window now reaches (all later than anything in it, so no bucket ahead of the clock).
  void advance() {
    const uint32_t s = next_occupied(slot(now_));
    now_ = s == kNil ? far_.top().time : now_ + ((s - slot(now_)) & kMask);
    while (!far_.empty() && far_.top().time - now_ < kWindowNs) append(far_.pop());
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

  std::array<Bucket, kWindowNs> buckets_;
  std::array<uint64_t, kWords> words_{};  // bit s: bucket s is not empty
  uint64_t summary_ = 0;                  // bit w: words_[w] is not 0
  std::vector<Entry> pool_;               // the buckets' entries
  uint32_t free_ = kNil;                  // free entries of pool_, a list
  uint64_t now_ = 0;                      // the clock's ns: the time of the last pop (or 0)
  size_t size_ = 0;
  HeapEventQueue far_;   // at or after now_ + kWindowNs when pushed
  HeapEventQueue past_;  // before now_ when pushed
};

}  // namespace spraylab::fabric
