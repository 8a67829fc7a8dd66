#include "fabric/results/table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <optional>

#include "trafficgen/bounds/bound_kind.h"

namespace spraylab::fabric {
namespace {

using Cell = std::function<std::string(const VariantSummary&)>;

// One column: its table heading and text (empty heading: CSV only) and its CSV name and value
// (empty name: table only).
struct Column {
  const char* heading;
  Cell text;
  const char* csv_name;
  Cell csv;
  bool left_aligned = false;
};

template <class T>
std::string exact(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}
std::string exact(uint64_t v) { return fmt::format("{}", v); }

// A fraction as a percentage ("+2.8%" with a sign), or "-" when it does not exist.
std::string percent(const std::optional<double>& fraction, bool sign = false) {
  if (!fraction) return "-";
  return sign ? fmt::format("{:+.1f}%", *fraction * 100) : fmt::format("{:.1f}%", *fraction * 100);
}

std::string bound_text(const VariantSummary& s) {
  if (s.bound.empty()) return "-";
  return s.bound_capacity == gen::to_string(gen::BoundCapacity::kNotModelled)
             ? s.bound + " (nominal)"
             : s.bound;
}

std::string kilobytes(uint64_t bytes) {
  return fmt::format("{:.1f}", static_cast<double>(bytes) / 1e3);
}

const std::vector<Column>& columns() {
  static const std::vector<Column> kColumns = {
      {"variant", [](auto& s) { return s.variant; }, "variant", [](auto& s) { return s.variant; },
       true},
      {"", {}, "mode", [](auto& s) { return s.mode; }},
      {"", {}, "algorithm", [](auto& s) { return s.algorithm; }},
      {"", {}, "completed", [](auto& s) { return std::string(s.completed ? "true" : "false"); }},
      {"messages", [](auto& s) { return fmt::format("{}/{}", s.messages_completed, s.messages); },
       "messages", [](auto& s) { return exact(s.messages); }},
      {"", {}, "messages_completed", [](auto& s) { return exact(s.messages_completed); }},
      {"CCT us",
       [](auto& s) {
         return s.cct_ns ? fmt::format("{:.1f}", *s.cct_ns / 1e3) : std::string("incomplete");
       },
       "cct_ns", [](auto& s) { return exact(s.cct_ns); }},
      {"", {}, "bound_ns", [](auto& s) { return exact(s.bound_ns); }},
      {"inflation", [](auto& s) { return percent(s.inflation, true); }, "inflation",
       [](auto& s) { return exact(s.inflation); }},
      {"msg p99 us",
       [](auto& s) {
         return s.message_cct_p99_ns ? fmt::format("{:.1f}", *s.message_cct_p99_ns / 1e3)
                                     : std::string("-");
       },
       "message_p99_ns", [](auto& s) { return exact(s.message_cct_p99_ns); }},
      {"max queue KB", [](auto& s) { return kilobytes(s.queue.max_bytes); }, "max_queue_bytes",
       [](auto& s) { return exact(s.queue.max_bytes); }},
      {"", {}, "max_queue_packets", [](auto& s) { return exact(s.queue.max_packets); }},
      {"p99 queue KB", [](auto& s) { return kilobytes(s.queue.p99_bytes); }, "p99_queue_bytes",
       [](auto& s) { return exact(s.queue.p99_bytes); }},
      {"", {}, "p99_queue_packets", [](auto& s) { return exact(s.queue.p99_packets); }},
      {"utilisation", [](auto& s) { return percent(s.utilisation_mean); }, "utilisation",
       [](auto& s) { return exact(s.utilisation_mean); }},
      {"drops", [](auto& s) { return exact(s.switch_drops); }, "switch_drops",
       [](auto& s) { return exact(s.switch_drops); }},
      {"", {}, "retransmits", [](auto& s) { return exact(s.retransmits); }},
      {"reordered", [](auto& s) { return percent(s.out_of_order_fraction); },
       "out_of_order_fraction", [](auto& s) { return exact(s.out_of_order_fraction); }},
      // Last, so the columns before it read as they always did: which bound `inflation` is
      // over (docs/workloads.md), and "(nominal)" when its capacity is not the fabric's.
      {"bound", [](auto& s) { return bound_text(s); }, "bound", [](auto& s) { return s.bound; },
       true},
      {"", {}, "bound_capacity", [](auto& s) { return s.bound_capacity; }},
  };
  return kColumns;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string format_table(const std::vector<VariantSummary>& rows) {
  std::vector<const Column*> shown;
  for (const Column& c : columns()) {
    if (*c.heading != '\0') shown.push_back(&c);
  }
  std::vector<std::vector<std::string>> cells(rows.size());
  std::vector<size_t> width;
  for (const Column* c : shown) width.push_back(std::string_view(c->heading).size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < shown.size(); ++c) {
      cells[r].push_back(shown[c]->text(rows[r]));
      width[c] = std::max(width[c], cells[r].back().size());
    }
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (size_t c = 0; c < shown.size(); ++c) {
      if (c > 0) out += "  ";
      out += shown[c]->left_aligned ? fmt::format("{:<{}}", cell_of(c), width[c])
                                    : fmt::format("{:>{}}", cell_of(c), width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line([&](size_t c) { return std::string(shown[c]->heading); });
  out += line([&](size_t c) { return std::string(width[c], '-'); });
  for (size_t r = 0; r < rows.size(); ++r) out += line([&](size_t c) { return cells[r][c]; });
  return out + machine_bound_note(rows);
}

std::string machine_bound_note(const std::vector<VariantSummary>& rows) {
  std::vector<std::string> variants;
  std::string reason;
  for (const VariantSummary& s : rows) {
    if (s.machine_bound.empty()) continue;
    variants.push_back(s.variant);
    if (reason.empty()) reason = s.machine_bound;  // the first variant's figures stand for all
  }
  if (variants.empty()) return "";
  const std::string which = variants.size() == rows.size()
                                ? std::string("every variant")
                                : fmt::format("{}", fmt::join(variants, ", "));
  return fmt::format(
      "machine-bound ({}): these numbers measure this machine more than the fabric: {}\n", which,
      reason);
}

std::string format_csv(const std::vector<VariantSummary>& rows) {
  auto line = [](auto field_of) {
    std::string out;
    bool first = true;
    for (const Column& c : columns()) {
      if (*c.csv_name == '\0') continue;
      if (!first) out += ',';
      out += csv_field(field_of(c));
      first = false;
    }
    return out + "\n";
  };
  std::string out = line([](const Column& c) { return std::string(c.csv_name); });
  for (const VariantSummary& row : rows)
    out += line([&row](const Column& c) { return c.csv(row); });
  return out;
}

}  // namespace spraylab::fabric
