#include "switch/lb/ofan.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "switch/lb/fast_mod.h"

namespace spraylab::lb {

OfanState::OfanState(std::vector<std::vector<WeightedPort>> dest_ports, uint64_t seed,
                     uint32_t lcores)
    : orders_(std::move(dest_ports), seed, lcores),
      pointers_(std::make_unique<Pointer[]>(orders_.keys())),
      single_writer_(lcores <= 1) {
  Rng rng(seed, 0x0fa1);
  const OrderTable& t = *orders_.read();
  for (uint32_t k = 0; k < t.keys(); ++k) {
    const auto len = static_cast<uint32_t>(t.order(k).size());
    pointers_[k].value.store(len == 0 ? 0 : rng.below(len), std::memory_order_relaxed);
  }
}

Ofan::Ofan(std::shared_ptr<OfanState> state, uint32_t lcore, uint32_t ack_size,
           bool atomic_per_packet)
    : state_(std::move(state)),
      lcore_(lcore),
      ack_size_(ack_size),
      atomic_(atomic_per_packet),
      seen_gen_(state_->orders().keys(), 0),
      seen_slot_(state_->orders().keys(), 0) {
  state_->orders().domain().online(lcore_);
}

Ofan::~Ofan() { state_->orders().domain().offline(lcore_); }

void Ofan::choose(std::span<const Packet> burst, const BurstContext&, PortId* out) {
  const OrderTable& table = *state_->orders().read();
  if (atomic_) {
    per_packet(burst, table, out);
  } else {
    for (size_t at = 0; at < burst.size(); at += kMaxBurst) {
      combined(burst.subspan(at, std::min<size_t>(kMaxBurst, burst.size() - at)), table, out + at);
    }
  }
  // The burst holds no reference to the table any more (QSBR).
  state_->orders().domain().quiescent(lcore_);
}

void Ofan::combined(std::span<const Packet> chunk, const OrderTable& table, PortId* out) {
  if (chunk.empty()) return;
  const uint32_t first = ofan_key(chunk[0].dest, chunk[0].bytes, ack_size_);
  size_t same = 1;
  while (same < chunk.size() && ofan_key(chunk[same].dest, chunk[same].bytes, ack_size_) == first) {
    ++same;
  }
  if (same == chunk.size()) {
    one_key(first, chunk.size(), table, out);
    return;
  }
  if (++gen_ == 0) {  // generation counter wrapped: forget every stale mark once
    std::fill(seen_gen_.begin(), seen_gen_.end(), 0);
    gen_ = 1;
  }
  // 1. Group by key (Ofan appendix I, stages 1-2: sort by key, combine requests). The scan above
  // found packets [0, same) to share `first`: they are slot 0 already, and the keys from `same` on
  // are computed once.
  seen_gen_[first] = gen_;
  seen_slot_[first] = 0;
  slot_key_[0] = first;
  slot_count_[0] = static_cast<uint32_t>(same);
  std::fill(slot_of_packet_, slot_of_packet_ + same, uint8_t{0});
  uint32_t slots = 1;
  for (size_t i = same; i < chunk.size(); ++i) {
    const uint32_t key = ofan_key(chunk[i].dest, chunk[i].bytes, ack_size_);
    assert(key < seen_gen_.size());
    if (seen_gen_[key] != gen_) {
      seen_gen_[key] = gen_;
      seen_slot_[key] = static_cast<uint8_t>(slots);
      slot_key_[slots] = key;
      slot_count_[slots++] = 0;
    }
    const uint8_t s = seen_slot_[key];
    slot_of_packet_[i] = s;
    ++slot_count_[s];
  }
  // 2. One read-modify-write per key (stage 3).
  for (uint32_t s = 0; s < slots; ++s) {
    const std::span<const PortId> order = table.order(slot_key_[s]);
    slot_order_[s] = order.data();
    slot_len_[s] = static_cast<uint32_t>(order.size());
    if (order.empty()) continue;
    std::atomic<uint64_t>& pointer = state_->pointer(slot_key_[s]);
    uint64_t base;
    if (state_->single_writer()) {
      base = pointer.load(std::memory_order_relaxed);
      pointer.store(base + slot_count_[s], std::memory_order_relaxed);
    } else {
      base = pointer.fetch_add(slot_count_[s], std::memory_order_relaxed);
    }
    slot_cursor_[s] = fast_mod(base, static_cast<uint32_t>(order.size()));
  }
  // 3. Hand out consecutive positions in burst order (stage 4: restore packet order).
  for (size_t i = 0; i < chunk.size(); ++i) {
    const uint8_t s = slot_of_packet_[i];
    if (slot_len_[s] == 0) {
      out[i] = kNoPort;
      continue;
    }
    out[i] = slot_order_[s][slot_cursor_[s]];
    if (++slot_cursor_[s] == slot_len_[s]) slot_cursor_[s] = 0;
  }
}

// combined() for a chunk whose packets all have key `key` (a burst to one destination, e.g. a
// switch whose traffic all takes one route): the same positions as the general path's single
// slot, with the count and the cursor in registers. The general path keeps them in per-slot
// arrays, and each packet's increment waited for the previous packet's store.
void Ofan::one_key(uint32_t key, size_t n, const OrderTable& table, PortId* out) {
  const std::span<const PortId> order = table.order(key);
  if (order.empty()) {
    std::fill(out, out + n, kNoPort);
    return;
  }
  std::atomic<uint64_t>& pointer = state_->pointer(key);
  uint64_t base;
  if (state_->single_writer()) {
    base = pointer.load(std::memory_order_relaxed);
    pointer.store(base + n, std::memory_order_relaxed);
  } else {
    base = pointer.fetch_add(n, std::memory_order_relaxed);
  }
  const auto len = static_cast<uint32_t>(order.size());
  uint32_t cursor = fast_mod(base, len);
  for (size_t i = 0; i < n; ++i) {
    out[i] = order[cursor];
    if (++cursor == len) cursor = 0;
  }
}

void Ofan::per_packet(std::span<const Packet> burst, const OrderTable& table, PortId* out) {
  for (size_t i = 0; i < burst.size(); ++i) {
    const uint32_t key = ofan_key(burst[i].dest, burst[i].bytes, ack_size_);
    const std::span<const PortId> order = table.order(key);
    if (order.empty()) {
      out[i] = kNoPort;
      continue;
    }
    const uint64_t v = state_->pointer(key).fetch_add(1, std::memory_order_relaxed);
    out[i] = order[fast_mod(v, static_cast<uint32_t>(order.size()))];
  }
}

}  // namespace spraylab::lb
