// The runner's plots, drawn by gnuplot (Debian's gnuplot-nox) as PNG and SVG into DIR/plots/:
// queue depth over time, the distribution of message completion times, and the maximum queue
// against message size (or per variant when message size is not swept). The data files and the
// gnuplot script stay next to the images, so a plot can be restyled without running again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fabric/run/result.h"

namespace spraylab::fabric {

struct PlotVariant {
  std::string name;
  std::vector<uint64_t> message_cct_ns;                    // sorted
  std::vector<std::pair<uint64_t, uint64_t>> queue_bytes;  // (t_ns, deepest port's bytes)
  uint64_t max_queue_bytes = 0;
  // Set when workload.message_size is swept: the variant is the point (message_bytes, max
  // queue) on the line `series` (its name without the message size).
  std::optional<uint64_t> message_bytes;
  std::string message_label;  // the size as the sweep wrote it ("64KB"): the x tick
  std::string series;
};

// The deepest queue over every port at each sample time, in time order.
std::vector<std::pair<uint64_t, uint64_t>> deepest_queue_over_time(const FabricResult& result);

// At most `max_points` points of `series`: each stands for a run of consecutive samples, at the
// first one's time with the deepest queue among them, so a plot keeps every peak.
std::vector<std::pair<uint64_t, uint64_t>> decimate_max(
    const std::vector<std::pair<uint64_t, uint64_t>>& series, size_t max_points);

struct PlotOutcome {
  bool drawn = false;
  std::string message;             // why not, or where they are
  std::vector<std::string> files;  // images written
};

// Writes the data files and plots.gp into `dir` and runs gnuplot there. Never throws for
// gnuplot's sake: a missing gnuplot or a failed plot is reported in the outcome.
PlotOutcome draw_plots(const std::string& dir, const std::vector<PlotVariant>& variants);

// The gnuplot script for `variants` (data files under data/, images in the current folder).
std::string gnuplot_script(const std::vector<PlotVariant>& variants);

// gnuplot's path, or empty when it is not installed.
std::string find_gnuplot();

// Shared with the reproductions' figures (fabric/reproduce/figures.cpp), so every plot looks alike.
// A gnuplot single-quoted string: only ' needs escaping, as ''.
std::string gnuplot_quoted(const std::string& text);
// (image extension, "set terminal ..." line) for PNG and SVG at width x height pixels.
std::vector<std::pair<std::string, std::string>> gnuplot_terminals(int width, int height);
// Runs `gnuplot SCRIPT` in `dir` (the script reads its data relative to it), output to
// dir/gnuplot.log; returns gnuplot's exit code, or -1 when it could not run.
int run_gnuplot(const std::string& gnuplot, const std::string& dir, const std::string& script);

}  // namespace spraylab::fabric
