// The UEC defaults of the buffer section (buffer.trim, cc nscc), after the reference simulator's
// main_uec.cpp: a buffer of 1 BDP with trimming and 5 BDP without, NSCC's ECN marking between
// 20% and 80% of a BDP, trimming at the buffer's end. Applied only where the file does not set
// the key, and only when trimming is on or cc is nscc: every other experiment reads as before.
#pragma once

#include <cstdint>
#include <optional>

#include "conf/experiment.h"
#include "conf/yaml_value.h"

namespace spraylab::conf {

// The bandwidth-delay product of the longest host-to-host path, in data frames of
// `payload_bytes` (the reference's calculate_bdp_pkt: the base RTT of a data frame out and an
// ACK back over every link of the path, times the link rate, rounded up to whole frames); empty
// where that path is not known before the topology is built (mrls, explicit).
std::optional<uint64_t> bdp_frames(const TopologySpec& topology, const LinkSpec& links,
                                   uint32_t payload_bytes);

// Before the buffer section is read: buffer.bytes from the BDP when the file (`buffer`,
// `workload`: its sections, either may be null) turns trimming or NSCC on and sets no
// buffer.bytes. Throws ConfigError asking for buffer.bytes where the BDP is not known.
void default_buffer_bytes(const Map& top, const Value* buffer, const WorkloadSpec& workload,
                          Experiment& experiment);

// After every section is read: the trim threshold (the buffer's end) and NSCC's ECN band where
// the file sets neither.
void default_uec_buffer(const Value* buffer, Experiment& experiment);

// After every section is read, with buffer.flow_control: pfc: the thresholds the file does not
// set, as 802.1Qbb deployments size them (the headroom covers the link's round trip at its rate,
// a frame the upstream has just started, one the pause waits behind, and the pause frame itself;
// XOFF the buffer less the headroom; XON two data frames below XOFF), then their checks. Throws
// ConfigError at the key that makes no sense (xon above xoff, thresholds beyond the buffer, PFC
// with trimming).
void default_pfc(const Value* buffer, Experiment& experiment);
// The default headroom of a link of `links` carrying data frames of `payload_bytes`.
uint64_t pfc_headroom_bytes(const LinkSpec& links, uint32_t payload_bytes);

// After every section is read, with buffer.flow_control: credit: the receive buffer the file does
// not set (credit_buffer_bytes), then its checks. Throws ConfigError at the key that makes no sense
// (a buffer smaller than a data frame, credits with trimming).
void default_credit(const Value* buffer, Experiment& experiment);
// The default credit buffer of a link of `links` carrying data frames of `payload_bytes`: what
// keeps one sender at line rate (the credit loop: the link's round trip at its rate; a data frame
// being sent and one being forwarded at the receiver; the credit frame on its way back).
uint64_t credit_buffer_bytes(const LinkSpec& links, uint32_t payload_bytes);

// After every section is read: buffer.virtual_channels above 1 needs lossless links (pfc or
// credit). Throws ConfigError at the key.
void check_virtual_channels(const Value* buffer, const Experiment& experiment);
// A tail-drop buffer (and a trim threshold) must hold one data frame: smaller, every data frame
// is dropped (trimmed) and no run completes. Lossless buffers have their own checks.
void check_holds_a_frame(const Value* buffer, const Experiment& experiment);

}  // namespace spraylab::conf
