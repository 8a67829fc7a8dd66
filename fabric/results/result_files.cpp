#include "fabric/results/result_files.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "fabric/results/summary.h"
#include "fabric/results/table.h"

namespace spraylab::fabric {

std::string queues_csv(const FabricResult& result) {
  std::string out = "t_ns,switch,port,peer,packets,bytes\n";
  // Names are quoted once per port, not once per sample.
  std::vector<std::string> port_text;
  port_text.reserve(result.ports.size());
  for (const PortSummary& p : result.ports) {
    port_text.push_back(
        fmt::format("{},{},{}", csv_field(p.switch_name), p.port, csv_field(p.peer)));
  }
  for (const QueueSample& s : result.samples) {
    if (s.port_index >= port_text.size()) {
      throw std::runtime_error(fmt::format("queue sample at {} ns names port {} of {}", s.t_ns,
                                           s.port_index, port_text.size()));
    }
    out += fmt::format("{},{},{},{}\n", s.t_ns, port_text[s.port_index], s.packets, s.bytes);
  }
  return out;
}

std::string utilisation_csv(const FabricResult& result) {
  std::string out = "t_us,utilisation\n";
  for (const UtilisationWindow& w : utilisation_windows(result)) {
    out += fmt::format("{},{:.6f}\n", static_cast<double>(w.t_ns) / 1000.0, w.utilisation);
  }
  return out;
}

}  // namespace spraylab::fabric
