#include "conf/buffer_defaults.h"

#include <cmath>

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

}  // namespace spraylab::conf
