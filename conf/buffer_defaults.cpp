#include "conf/buffer_defaults.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "conf/units.h"

namespace spraylab::conf {
namespace {

// A data frame as the buffer counts it (no FCS).
uint64_t frame_bytes(uint32_t payload_bytes) {
  return uint64_t{payload_bytes} + BufferSpec::kFrameHeaderBytes;
}

bool has_key(const Value* section, std::string_view key) {
  return section != nullptr && section->node().IsMap() && Map(*section).find(key) != nullptr;
}

uint64_t frames_of(double bdps, uint64_t bdp) {
  return static_cast<uint64_t>(std::ceil(bdps * static_cast<double>(bdp)));
}

// The keys the file wrote in one of buffer's sub-maps (buffer.pfc, buffer.credit), by name: a key
// left out, or the whole sub-map, finds nullptr. Holds the map, which the Values found point into:
// keep it while they are used.
class SubMapKeys {
 public:
  SubMapKeys(const Map& buffer, std::string_view name) {
    if (const Value* sub = buffer.find(name)) map_.emplace(*sub);
  }
  const Value* operator()(std::string_view key) const { return map_ ? map_->find(key) : nullptr; }

 private:
  std::optional<Map> map_;
};

}  // namespace

std::optional<uint64_t> bdp_frames(const TopologySpec& topology, const LinkSpec& links,
                                   uint32_t payload_bytes) {
  uint32_t path_links = 0;  // host to host, the longest minimal path
  switch (topology.generator) {
    case topo::Kind::kFatTree:
      path_links = 2 * topology.levels;
      break;
    case topo::Kind::kLeafSpine:
      path_links = 4;
      break;
    default:
      return std::nullopt;
  }
  const double rate = links.rate_bps;
  const auto ns = [rate](double bytes) { return bytes * 8 / rate * 1e9; };
  const double data = ns(static_cast<double>(frame_bytes(payload_bytes) + BufferSpec::kFcsBytes));
  const double ack = ns(BufferSpec::kFrameHeaderBytes + BufferSpec::kFcsBytes);
  const double rtt_ns = path_links * (2 * links.delay_ns + data + ack);
  return static_cast<uint64_t>(
      std::ceil(rtt_ns / 1e9 * rate / 8 / static_cast<double>(frame_bytes(payload_bytes))));
}

void default_buffer_bytes(const Map& top, const Value* buffer, const WorkloadSpec& workload,
                          Experiment& experiment) {
  const bool trim = has_key(buffer, "trim") && Map(*buffer).find("trim")->as_bool();
  // The UEC transports (nscc, nscc+rccc, rccc) take the reference's buffer as NSCC does.
  const bool uec = gen::sender_cc(workload.cc) == gen::CongestionControl::kNscc ||
                   gen::receiver_credits(workload.cc);
  if (!trim && !uec) return;
  if (has_key(buffer, "bytes")) return;
  const std::optional<uint64_t> bdp =
      bdp_frames(experiment.topology, experiment.links, workload.payload_bytes);
  if (!bdp) {
    constexpr std::string_view kWhy =
        "a size: with buffer.trim or cc nscc, nscc+rccc or rccc the default is a multiple of the "
        "bandwidth-delay product, known before the build for fat-tree and leaf-spine topologies "
        "only";
    if (buffer == nullptr) top.require("buffer", kWhy);
    Map(*buffer).require("bytes", kWhy);
  }
  const double bdps = trim ? BufferSpec::kTrimBufferBdp : BufferSpec::kDropBufferBdp;
  experiment.buffer.bytes = frames_of(bdps, *bdp) * frame_bytes(workload.payload_bytes);
}

void default_uec_buffer(const Value* buffer, Experiment& experiment) {
  BufferSpec& b = experiment.buffer;
  if (b.trim && !has_key(buffer, "trim_threshold")) b.trim_threshold = b.bytes;
  if (gen::sender_cc(experiment.workload.cc) != gen::CongestionControl::kNscc) return;
  if (has_key(buffer, "ecn_threshold") || has_key(buffer, "ecn_high")) return;
  const uint64_t frame = frame_bytes(experiment.workload.payload_bytes);
  // Where the BDP is not known the file set the buffer: take it as the reference's multiple.
  const uint64_t bdp =
      bdp_frames(experiment.topology, experiment.links, experiment.workload.payload_bytes)
          .value_or(static_cast<uint64_t>(
              static_cast<double>(b.bytes / frame) /
              (b.trim ? BufferSpec::kTrimBufferBdp : BufferSpec::kDropBufferBdp)));
  b.ecn_high = std::min(b.bytes, frames_of(BufferSpec::kUecEcnHighBdp, bdp) * frame);
  b.ecn_threshold = std::min(b.ecn_high, frames_of(BufferSpec::kUecEcnLowBdp, bdp) * frame);
  if (b.ecn_threshold == b.ecn_high) b.ecn_high = 0;  // too small a band: one threshold
}

namespace {

// What a lossless link's receiver must hold beyond what it has signalled: the link's round trip
// at its rate, two data frames (one being sent, one it waits behind) and the 60 B control frame
// (a pause, net/pfc_frame.h, or a credit return, net/credit_frame.h) on its way back. PFC's
// headroom and the credit loop's buffer are both this.
uint64_t round_trip_reserve_bytes(const LinkSpec& links, uint32_t payload_bytes) {
  // On the wire a frame also takes its FCS, preamble and gap (24 B).
  constexpr uint64_t kControlFrame = 60 + BufferSpec::kWireOverhead;
  const uint64_t max_frame = frame_bytes(payload_bytes) + BufferSpec::kWireOverhead;
  // Bits in ns x rate, over 8e9: exact for whole rates and delays (12500 B at 100 Gb/s, 500 ns).
  const auto round_trip =
      static_cast<uint64_t>(std::ceil(2 * links.delay_ns * links.rate_bps / 8e9));
  return round_trip + 2 * max_frame + kControlFrame;
}

}  // namespace

uint64_t pfc_headroom_bytes(const LinkSpec& links, uint32_t payload_bytes) {
  return round_trip_reserve_bytes(links, payload_bytes);
}

void default_pfc(const Value* buffer, Experiment& experiment) {
  BufferSpec& b = experiment.buffer;
  if (b.flow_control != FlowControl::kPfc) return;
  const Map section(*buffer);  // flow_control: pfc came from it
  const SubMapKeys key(section, "pfc");
  const Value& at_fc = *section.find("flow_control");
  if (b.trim) {
    at_fc.fail(
        "flow_control: pfc and trim: true do not combine: a lossless buffer never reaches the "
        "trim threshold (pause stops the upstream first); choose one");
  }
  const uint64_t frame = frame_bytes(experiment.workload.payload_bytes);
  if (key("headroom") == nullptr) {
    b.pfc.headroom = pfc_headroom_bytes(experiment.links, experiment.workload.payload_bytes);
  }
  const Value& at_headroom = key("headroom") != nullptr ? *key("headroom") : at_fc;
  if (b.pfc.headroom >= b.bytes) {
    at_headroom.fail(fmt::format(
        "the PFC headroom ({}) leaves nothing of buffer.bytes ({}) below XOFF: a larger buffer, "
        "or a smaller headroom",
        format_size(b.pfc.headroom), format_size(b.bytes)));
  }
  if (key("xoff") == nullptr) b.pfc.xoff = b.bytes - b.pfc.headroom;
  const Value& at_xoff = key("xoff") != nullptr ? *key("xoff") : at_headroom;
  if (b.pfc.xoff + b.pfc.headroom > b.bytes) {
    at_xoff.fail(fmt::format("xoff ({}) + headroom ({}) is more than buffer.bytes ({})",
                             format_size(b.pfc.xoff), format_size(b.pfc.headroom),
                             format_size(b.bytes)));
  }
  if (key("xon") == nullptr) b.pfc.xon = b.pfc.xoff > 2 * frame ? b.pfc.xoff - 2 * frame : 0;
  if (b.pfc.xon > b.pfc.xoff) {
    key("xon")->fail(fmt::format("xon ({}) must be at most xoff ({})", format_size(b.pfc.xon),
                                 format_size(b.pfc.xoff)));
  }
}

uint64_t credit_buffer_bytes(const LinkSpec& links, uint32_t payload_bytes) {
  return round_trip_reserve_bytes(links, payload_bytes);
}

void default_credit(const Value* buffer, Experiment& experiment) {
  BufferSpec& b = experiment.buffer;
  if (b.flow_control != FlowControl::kCredit) return;
  const Map section(*buffer);  // flow_control: credit came from it
  const SubMapKeys key(section, "credit");
  const Value& at_fc = *section.find("flow_control");
  if (b.trim) {
    at_fc.fail(
        "flow_control: credit and trim: true do not combine: a credit-based buffer never "
        "reaches the trim threshold (a sender without credits waits instead); choose one");
  }
  if (key("bytes") == nullptr) {
    b.credit.bytes = credit_buffer_bytes(experiment.links, experiment.workload.payload_bytes);
  }
  // Whole units: the buffer's credits, and a data frame's cost.
  const uint64_t unit = b.credit.unit;
  const uint64_t frame = frame_bytes(experiment.workload.payload_bytes);
  const uint64_t frame_units = (frame + unit - 1) / unit;
  if (b.credit.bytes / unit < frame_units) {
    const Value& at = key("bytes") != nullptr   ? *key("bytes")
                      : key("unit") != nullptr ? *key("unit")
                                               : at_fc;
    at.fail(fmt::format(
        "buffer.credit.bytes ({}) holds {} credits of {} B, less than a data frame ({} B, {} "
        "credits): no frame could ever start; at least {} B",
        format_size(b.credit.bytes), b.credit.bytes / unit, unit, frame, frame_units,
        frame_units * unit));
  }
}

void check_holds_a_frame(const Value* buffer, const Experiment& experiment) {
  const BufferSpec& b = experiment.buffer;
  if (b.flow_control != FlowControl::kNone || buffer == nullptr) return;  // defaults hold frames
  // The smallest whole data frame the workload sends: a packet's payload, or its messages' when
  // they are smaller (a 256 B message is one 338 B frame).
  const WorkloadSpec& w = experiment.workload;
  const uint64_t data =
      w.message_bytes > 0 ? std::min<uint64_t>(w.payload_bytes, w.message_bytes) : w.payload_bytes;
  const uint64_t frame = data + BufferSpec::kFrameHeaderBytes;
  const Map section(*buffer);
  auto refuse = [&](std::string_view key, uint64_t bytes, std::string_view fate) {
    const Value* at = section.find(key);
    if (at == nullptr) at = section.find("bytes");  // trim_threshold defaults to bytes
    if (at == nullptr) at = buffer;
    at->fail(fmt::format(
        "buffer.{} ({}) is less than one data frame ({} B: {} B of data + {} B of headers): "
        "every data frame would be {}; at least {} B",
        at == section.find("bytes") ? "bytes" : key, format_size(bytes), frame, data,
        BufferSpec::kFrameHeaderBytes, fate, frame));
  };
  if (b.bytes < frame) refuse("bytes", b.bytes, "dropped");
  if (b.trim && b.trim_threshold < frame) refuse("trim_threshold", b.trim_threshold, "trimmed");
}

void check_virtual_channels(const Value* buffer, const Experiment& experiment) {
  const BufferSpec& b = experiment.buffer;
  if (b.virtual_channels <= 1 || b.flow_control != FlowControl::kNone) return;
  const Map section(*buffer);  // virtual_channels above 1 came from it
  section.find("virtual_channels")
      ->fail(fmt::format(
          "{} needs lossless links (flow_control: pfc or credit): a VC "
          "is a buffer a frame waits in for room downstream, and with flow_control: none a full "
          "buffer drops instead; set flow_control, or virtual_channels: 1",
          b.virtual_channels));
}

}  // namespace spraylab::conf
