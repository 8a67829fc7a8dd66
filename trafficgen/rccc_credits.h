// RCCC, Ultra Ethernet's receiver credits (`workload.cc: nscc+rccc` or `rccc`), as the UEC
// simulator HLC-Lab/uet-htsim runs them (uec.cpp: UecSrc's credit, UecSink::pull, UecPullPacer).
//
//   sender (RcccSender, one per flow)            receiver (RcccSinkFlow per source, RcccPullPacer
//                                                 per host)
//   starts speculating with max_credit ─ data ──▶ each data packet carries the sender's pull
//   sends only while credit > 0; every frame       target: what it still wants, in 256 B quanta
//   spends its wire bytes                          above the last pull number it was granted
//   first ACK, NACK or PULL: speculative           the pacer grants credit_per_pull quanta a
//   credit left is dropped (credit = min(0, c))    turn, round robin over the flows below their
//   ◀── PULL (pull number) ── credit += pull       target, one turn per credit's wire time at
//       number's advance, at most max_credit        0.99 of the host's link rate; with none
//                                                  below target, "slow" pulls of idle flows
//                                                  up to max_credit of surplus
// Pull numbers and targets run in 256 B quanta (the reference's UEC_PULL_QUANTUM) from 0; on the
// wire they are the low 16 bits, unwrapped against the reader's own number (16 MB of quanta: the
// difference must stay under 8 MB; max_credit is capped at 4 MB for that).
// Data path: no allocation, no exceptions; the pacer's rings are sized at construction.
#pragma once

#include <cstdint>
#include <vector>

namespace spraylab::gen {

inline constexpr uint32_t kPullQuantumShift = 8;  // 256 B quanta
inline constexpr uint64_t kPullQuantum = uint64_t{1} << kPullQuantumShift;
// The reference's credit per pull: 4 MSS (UecSink::_mtus_per_pull, "as per default in UEC spec").
inline constexpr uint32_t kRcccMtusPerPull = 4;
// The pull pacer runs at this fraction of the link rate (main_uec.cpp's UecPullPacer, 0.99).
inline constexpr double kRcccPullRate = 0.99;
// A pacer turn that grants nothing still takes 1024 B of time (UecPullPacer::doNextEvent).
inline constexpr uint64_t kRcccEmptyPullQuanta = 1024 >> kPullQuantumShift;
// The widest max_credit: pull numbers travel as 16 bits of quanta (see above).
inline constexpr uint64_t kRcccMaxCreditCap = uint64_t{4} << 20;

constexpr uint64_t quanta_ceil(uint64_t bytes) {
  return (bytes + kPullQuantum - 1) >> kPullQuantumShift;
}
constexpr uint64_t quanta_floor(uint64_t bytes) { return bytes >> kPullQuantumShift; }
constexpr uint64_t quanta_bytes(uint64_t quanta) { return quanta << kPullQuantumShift; }

// A 16-bit number read against `ref`: the 64-bit value nearest `ref` with those low bits.
constexpr uint64_t unwrap16(uint16_t wire, uint64_t ref) {
  const auto delta = static_cast<int16_t>(static_cast<uint16_t>(wire - static_cast<uint16_t>(ref)));
  return static_cast<uint64_t>(static_cast<int64_t>(ref) + delta);
}

struct RcccParams {
  // Bytes: the speculative start, the most credit a sender holds, the most slow-pull surplus a
  // receiver grants (the reference's configured maxwnd: 1.5 x the fabric's unloaded RTT x the
  // link rate, initRccc()).
  uint64_t max_credit = 0;
  // A full data frame's credit, its wire bytes (the reference's MTU in computePullTarget).
  uint32_t packet_bytes = 0;
  // Quanta a pull grants (4 x the payload, the reference's MSS, rounded down to quanta).
  uint64_t credit_per_pull = 0;
};

// One flow's credit at its sender (UecSrc's _credit, _pull, _speculating).
class RcccSender {
 public:
  explicit RcccSender(const RcccParams& p) : p_(p), credit_(static_cast<int64_t>(p.max_credit)) {}

  // The reference sends while it holds any credit: a frame may take it below 0.
  bool may_send() const { return credit_ > 0; }
  // Full frames of `frame_bytes` that may go back to back: each needs credit > 0 before it.
  uint32_t packets_allowed(uint32_t frame_bytes) const;
  void on_send(uint64_t frame_bytes) {
    credit_ -= static_cast<int64_t>(frame_bytes);
    spent_ += frame_bytes;
  }
  // A frame on_send() counted that was not sent after all (no mbuf).
  void refund(uint64_t frame_bytes) {
    credit_ += static_cast<int64_t>(frame_bytes);
    spent_ -= frame_bytes;
  }
  // The first ACK, NACK or PULL ends the speculative start: positive credit left is dropped
  // (stopSpeculating(); from then on only pulled credit counts).
  void stop_speculating() {
    if (speculating_) {
      speculating_ = false;
      if (credit_ > 0) credit_ = 0;
    }
  }
  // A PULL granting up to pull number `pull` (quanta, unwrapped): its advance over the last one
  // is credit, held to max_credit (handlePull()). True if it advanced.
  bool on_pull(uint64_t pull);
  uint64_t unwrap_pull(uint16_t wire) const { return unwrap16(wire, pull_); }
  // The pull target the next data frame carries (computePullTarget()): `backlog` bytes still to
  // send (first passes and retransmissions), capped by `window` + one frame when a sender window
  // runs too (0: none) and by max_credit, less the credit held, at least a frame while
  // speculating with a backlog, shared over the host's `sources` with a backlog, on top of the
  // last pull number; rounded up to quanta.
  uint64_t pull_target(uint64_t backlog, double window, uint32_t sources) const;

  int64_t credit() const { return credit_; }
  uint64_t pull() const { return pull_; }
  bool speculating() const { return speculating_; }
  uint64_t spent() const { return spent_; }

 private:
  RcccParams p_;
  int64_t credit_;
  uint64_t pull_ = 0;
  bool speculating_ = true;
  uint64_t spent_ = 0;
};

// One source's credit state at a receiver (UecSink's _latest_pull, _highest_pull_target).
struct RcccSinkFlow {
  uint64_t latest_pull = 0;     // quanta granted so far (the last PULL's number)
  uint64_t highest_target = 0;  // the highest pull target heard
  bool in_pull = false;         // in its pacer's active ring
  bool in_idle = false;         // in its pacer's idle ring

  uint64_t backlog() const {
    return highest_target > latest_pull ? highest_target - latest_pull : 0;
  }
  uint64_t slow_credit() const {
    return latest_pull > highest_target ? latest_pull - highest_target : 0;
  }
  // A data frame, trimmed header or RTS carried pull target `target` (unwrapped): true if the
  // target advanced.
  bool on_target(uint64_t target) {
    if (target <= highest_target) return false;
    highest_target = target;
    return true;
  }
  uint64_t unwrap_target(uint16_t wire) const { return unwrap16(wire, highest_target); }
};

// One receiving host's pull pacer (UecPullPacer): a ring of the flows with a backlog, served
// round robin, and a ring of the idle ones, served (slow pulls) only when no flow has a backlog.
// The engine keeps the time: a turn every `quanta` x the credit's wire time.
class RcccPullPacer {
 public:
  // `flows`: the most flows the host receives from (the rings' size).
  void reserve(uint32_t flows);
  // Flow `f` wants credit (requestPull): into the active ring unless it is there.
  void request(uint32_t f, RcccSinkFlow& s);
  bool empty() const { return active_count_ == 0 && idle_count_ == 0; }

  struct Pull {
    uint32_t flow = 0;
    uint64_t number = 0;  // the PULL's pull number
    uint64_t quanta = 0;  // credit granted by it
    bool slow = false;
  };
  // One turn (doNextEvent): the PULL to send; false if both rings are empty.
  bool turn(std::vector<RcccSinkFlow>& flows, const RcccParams& p, Pull* out);
  // The quanta of time the turn that granted `pull` takes: its grant, at least 1024 B.
  static uint64_t turn_quanta(const Pull& pull) {
    return pull.quanta ? pull.quanta : kRcccEmptyPullQuanta;
  }

 private:
  struct Ring {
    std::vector<uint32_t> slots;
    uint32_t head = 0;
    void push(uint32_t f, uint32_t& count) {
      slots[(head + count) % slots.size()] = f;
      ++count;
    }
    uint32_t pop(uint32_t& count) {
      const uint32_t f = slots[head];
      head = (head + 1) % static_cast<uint32_t>(slots.size());
      --count;
      return f;
    }
  };
  Ring active_, idle_;
  uint32_t active_count_ = 0, idle_count_ = 0;
};

}  // namespace spraylab::gen
