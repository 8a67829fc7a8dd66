#include "fabric/results/plots.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <tuple>

#include "fabric/results/result_files.h"

extern char** environ;

namespace spraylab::fabric {
namespace {

namespace fs = std::filesystem;

struct Terminal {
  const char* extension;
  const char* setting;  // {} {}: width and height in pixels
};
// noenhanced: variant names hold '_' and '=', which enhanced text would typeset.
constexpr Terminal kTerminals[] = {
    {"png", "pngcairo size {},{} noenhanced font 'sans,10'"},
    {"svg", "svg size {},{} noenhanced dynamic font 'sans,10'"},
};
constexpr int kWidth = 1100;
constexpr int kHeight = 650;
// Queue panels: a few across, each this tall.
constexpr size_t kPanelColumns = 3;
constexpr int kPanelHeight = 280;
// A stalled run samples for seconds of its clock; gnuplot gets at most this many points per
// variant (the deepest queue of each stretch, so no peak is lost).
constexpr size_t kMaxQueuePoints = 2000;

std::string terminal(const Terminal& t, int width, int height) {
  return fmt::format("set terminal {}\n", fmt::format(fmt::runtime(t.setting), width, height));
}

std::string queue_file(const PlotVariant& v) { return "data/" + v.name + ".queue.dat"; }
std::string cct_file(const PlotVariant& v) { return "data/" + v.name + ".cct.dat"; }
std::string size_file(const std::string& series) { return "data/" + series + ".size.dat"; }
constexpr const char* kBarsFile = "data/max_queue.dat";

bool swept_message_size(const std::vector<PlotVariant>& variants) {
  return !variants.empty() && std::all_of(variants.begin(), variants.end(), [](const auto& v) {
    return v.message_bytes.has_value();
  });
}

// One line of the size plot: its points (message bytes, max queue bytes, tick label) by size.
struct SizeSeries {
  std::string name;
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> points;
};

// The lines in the order their first variant ran.
std::vector<SizeSeries> size_series(const std::vector<PlotVariant>& variants) {
  std::vector<SizeSeries> lines;
  for (const PlotVariant& v : variants) {
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&v](const SizeSeries& s) { return s.name == v.series; });
    if (it == lines.end()) it = lines.insert(lines.end(), {v.series, {}});
    it->points.emplace_back(*v.message_bytes, v.max_queue_bytes, v.message_label);
  }
  for (SizeSeries& line : lines) std::sort(line.points.begin(), line.points.end());
  return lines;
}

std::map<std::string, std::string> data_files(const std::vector<PlotVariant>& variants) {
  std::map<std::string, std::string> files;
  for (const PlotVariant& v : variants) {
    std::string queue = "# t_us deepest_queue_kb\n";
    for (const auto& [t, bytes] : decimate_max(v.queue_bytes, kMaxQueuePoints))
      queue += fmt::format("{} {}\n", t / 1e3, bytes / 1e3);
    files[queue_file(v)] = queue;
    std::string cct = "# message_cct_us cumulative_fraction\n";
    const size_t n = v.message_cct_ns.size();
    if (n > 0) cct += fmt::format("{} 0\n", v.message_cct_ns[0] / 1e3);
    for (size_t i = 0; i < n; ++i) {
      cct += fmt::format("{} {}\n", v.message_cct_ns[i] / 1e3, static_cast<double>(i + 1) / n);
    }
    files[cct_file(v)] = cct;
  }
  if (swept_message_size(variants)) {
    for (const SizeSeries& line : size_series(variants)) {
      std::string text = "# message_bytes max_queue_kb label\n";
      for (const auto& [bytes, queue, label] : line.points) {
        text += fmt::format("{} {} \"{}\"\n", bytes, queue / 1e3, label);
      }
      files[size_file(line.name)] = text;
    }
  } else {
    std::string bars = "# variant max_queue_kb\n";
    for (const PlotVariant& v : variants) {
      bars += fmt::format("\"{}\" {}\n", v.name, v.max_queue_bytes / 1e3);
    }
    files[kBarsFile] = bars;
  }
  return files;
}

// Line i's colour and dash: 12 colours that stay apart (gnuplot's own 8 repeat in a
// reproduction's 10-odd lines, issue 43), then the same colours dashed.
std::string line_style(size_t i) {
  static constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                             "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                             "#bcbd22", "#17becf", "#000000", "#aec7e8"};
  constexpr size_t n = std::size(kColours);
  return fmt::format("lc rgb '{}' dt {}", kColours[i % n], 1 + (i / n) % 5);
}

std::string plot_list(const std::vector<PlotVariant>& variants) {
  std::string list;
  size_t i = 0;
  for (const PlotVariant& v : variants) {
    if (v.message_cct_ns.empty()) continue;
    list +=
        fmt::format("{}{} using 1:2 with steps lw 2 {} title {}", list.empty() ? "" : ", \\\n     ",
                    gnuplot_quoted(cct_file(v)), line_style(i++), gnuplot_quoted(v.name));
  }
  return list;
}

// One panel per variant: their clocks may differ by orders of magnitude (a stalled run).
std::string queue_plot(const Terminal& t, const std::vector<PlotVariant>& variants) {
  std::vector<const PlotVariant*> shown;
  for (const PlotVariant& v : variants) {
    if (!v.queue_bytes.empty()) shown.push_back(&v);
  }
  if (shown.empty()) return "";
  const size_t columns = std::min(shown.size(), kPanelColumns);
  const size_t rows = (shown.size() + columns - 1) / columns;
  // One y scale for every panel, so that panels compare at a glance (issue 43); x stays each
  // variant's own.
  uint64_t deepest = 0;
  for (const PlotVariant* v : shown) {
    for (const auto& sample : v->queue_bytes) deepest = std::max(deepest, sample.second);
  }
  std::string s = terminal(t, kWidth, kPanelHeight * static_cast<int>(rows) + 40);
  s += fmt::format(
      "set output 'queue_depth.{}'\nset multiplot layout {},{} title 'Queue depth over time "
      "(deepest switch port per sample; one y scale in every panel)'\nset xlabel 'time (us)'\n"
      "set ylabel 'queue (KB)'\nset yrange [0:{:.1f}]\nunset key\n",
      t.extension, rows, columns, std::max(1.0, static_cast<double>(deepest) / 1e3 * 1.05));
  for (const PlotVariant* v : shown) {
    s += fmt::format("set title {}\nplot {} using 1:2 with steps lw 1.5\n", gnuplot_quoted(v->name),
                     gnuplot_quoted(queue_file(*v)));
  }
  return s + "unset multiplot\nunset output\nset key outside right top\n";
}

std::string cct_plot(const Terminal& t, const std::vector<PlotVariant>& variants) {
  const std::string list = plot_list(variants);
  if (list.empty()) return "";
  return terminal(t, kWidth, kHeight) +
         fmt::format(
             "set output 'cct_cdf.{}'\nset title 'Message completion time (CDF)'\nset xlabel "
             "'message completion time (us, log scale)'\nset ylabel 'fraction of messages'\n"
             // Log x: ECMP's tail is 10x the others', which a linear axis squeezes into a line.
             "set yrange [0:1]\nset logscale x 10\nset autoscale xfix\nplot {}\nunset logscale x\n"
             "set autoscale x\nunset output\n",
             t.extension, list);
}

std::string max_queue_plot(const Terminal& t, const std::vector<PlotVariant>& variants) {
  std::string s = terminal(t, kWidth, kHeight);
  s += fmt::format("set output 'max_queue.{}'\nset yrange [0:*]\nset ylabel 'max queue (KB)'\n",
                   t.extension);
  if (swept_message_size(variants)) {
    std::string lines;
    for (const SizeSeries& line : size_series(variants)) {
      lines += fmt::format("{}{} using 1:2:xtic(3) with linespoints lw 2 pt 7 title {}",
                           lines.empty() ? "" : ", \\\n     ", gnuplot_quoted(size_file(line.name)),
                           gnuplot_quoted(line.name));
    }
    // Ticks at the swept sizes, labelled as the sweep wrote them.
    return s +
           "set title 'Maximum queue against message size'\nset xlabel 'message size'\n"
           "set logscale x 2\nplot " +
           lines + "\nunset logscale x\nset xtics auto\nunset output\n";
  }
  // Bars with their values on top; x of bar i is i.
  return s +
         "set title 'Maximum queue per variant'\nset xlabel ''\nset style data histograms\n"
         "set style fill solid 0.8 border -1\nset boxwidth 0.8\nset xtics rotate by -30\n"
         "set offsets 0, 0, graph 0.08, 0\n" +
         fmt::format(
             "plot {0} using 2:xtic(1) notitle, {0} using 0:2:(sprintf('%.1f', $2)) with labels "
             "offset 0,0.8 notitle\n",
             gnuplot_quoted(kBarsFile)) +
         "set xtics norotate\nset offsets 0, 0, 0, 0\nset style data points\nunset output\n";
}

}  // namespace

std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::vector<std::pair<std::string, std::string>> gnuplot_terminals(int width, int height) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Terminal& t : kTerminals) out.emplace_back(t.extension, terminal(t, width, height));
  return out;
}

int run_gnuplot(const std::string& gnuplot, const std::string& dir, const std::string& script) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = (fs::path(dir) / "gnuplot.log").string();
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> args = {gnuplot, "-e", "cd " + gnuplot_quoted(dir),
                                   (fs::path(dir) / script).string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::pair<uint64_t, uint64_t>> deepest_queue_over_time(const FabricResult& result) {
  std::map<uint64_t, uint64_t> deepest;
  for (const QueueSample& s : result.samples) {
    uint64_t& d = deepest[s.t_ns];
    d = std::max<uint64_t>(d, s.bytes);
  }
  return {deepest.begin(), deepest.end()};
}

std::string gnuplot_script(const std::vector<PlotVariant>& variants) {
  std::string s = "# Written by spraylab run; `gnuplot plots.gp` in this folder redraws.\n";
  s += "set grid\nset key outside right top\nset datafile commentschars '#'\n";
  for (const Terminal& t : kTerminals) {
    s += '\n';
    s += queue_plot(t, variants);
    s += cct_plot(t, variants);
    s += max_queue_plot(t, variants);
  }
  return s;
}

std::vector<std::pair<uint64_t, uint64_t>> decimate_max(
    const std::vector<std::pair<uint64_t, uint64_t>>& series, size_t max_points) {
  if (series.size() <= max_points || max_points == 0) return series;
  std::vector<std::pair<uint64_t, uint64_t>> out;
  const size_t per_point = (series.size() + max_points - 1) / max_points;
  for (size_t i = 0; i < series.size(); i += per_point) {
    std::pair<uint64_t, uint64_t> point = series[i];
    for (size_t j = i; j < std::min(series.size(), i + per_point); ++j) {
      point.second = std::max(point.second, series[j].second);
    }
    out.push_back(point);
  }
  return out;
}

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "gnuplot";
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

PlotOutcome draw_plots(const std::string& dir, const std::vector<PlotVariant>& variants) {
  PlotOutcome outcome;
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    outcome.message = "gnuplot not found; no plots (Debian: apt-get install gnuplot-nox)";
    return outcome;
  }
  try {
    for (const auto& [file, text] : data_files(variants)) {
      write_file((fs::path(dir) / file).string(), text);
    }
    write_file((fs::path(dir) / "plots.gp").string(), gnuplot_script(variants));
  } catch (const std::runtime_error& e) {
    outcome.message = fmt::format("no plots: {}", e.what());
    return outcome;
  }
  // Images of an earlier run in this folder must not pass for this run's.
  std::error_code ignored;
  for (const char* name : {"queue_depth", "cct_cdf", "max_queue"}) {
    for (const Terminal& t : kTerminals) {
      fs::remove(fs::path(dir) / fmt::format("{}.{}", name, t.extension), ignored);
    }
  }
  const int rc = run_gnuplot(gnuplot, fs::absolute(dir).string(), "plots.gp");
  if (rc != 0) {
    outcome.message = fmt::format("gnuplot failed (exit {}); see {}/gnuplot.log", rc, dir);
    return outcome;
  }
  for (const char* name : {"queue_depth", "cct_cdf", "max_queue"}) {
    for (const Terminal& t : kTerminals) {
      const fs::path image = fs::path(dir) / fmt::format("{}.{}", name, t.extension);
      if (fs::exists(image)) outcome.files.push_back(image.string());
    }
  }
  outcome.drawn = true;
  outcome.message = fmt::format("{} plots in {}", outcome.files.size(), dir);
  return outcome;
}

}  // namespace spraylab::fabric
