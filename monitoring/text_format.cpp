#include "monitoring/text_format.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <string_view>

namespace spraylab::monitoring {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Numbers as the ostream of TextSerializer prints them (precision 16, %g style, "Nan", "+Inf").
void put_number(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "Nan";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-Inf" : "+Inf";
  } else if (v == std::trunc(v) && std::fabs(v) < 1e15) {
    fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(v));  // %g's integers
  } else {
    fmt::format_to(std::back_inserter(out), "{:.16g}", v);
  }
}

// Label values: backslash, double quote and newline escaped; help text: backslash and newline
// (the format's rules; TextSerializer leaves help text as it is, which breaks on a newline).
void put_escaped(std::string& out, std::string_view s, bool quotes = true) {
  for (const char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += quotes ? "\\\"" : "\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

// name{labels[,extra="value"]} for one sample line.
void put_head(std::string& out, const MetricFamily& f, const ClientMetric& m,
              std::string_view suffix = {}, std::string_view extra = {}, double extra_value = 0) {
  out += f.name;
  out += suffix;
  if (!m.label.empty() || !extra.empty()) {
    out += '{';
    bool first = true;
    for (const auto& l : m.label) {
      if (!first) out += ',';
      first = false;
      out += l.name;
      out += "=\"";
      put_escaped(out, l.value);
      out += '"';
    }
    if (!extra.empty()) {
      if (!first) out += ',';
      out += extra;
      out += "=\"";
      put_number(out, extra_value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
}

void put_tail(std::string& out, const ClientMetric& m) {
  if (m.timestamp_ms != 0) fmt::format_to(std::back_inserter(out), " {}", m.timestamp_ms);
  out += '\n';
}

void put_metric(std::string& out, const MetricFamily& f, const ClientMetric& m) {
  switch (f.type) {
    case MetricType::Counter:
      put_head(out, f, m);
      put_number(out, m.counter.value);
      put_tail(out, m);
      break;
    case MetricType::Gauge:
      put_head(out, f, m);
      put_number(out, m.gauge.value);
      put_tail(out, m);
      break;
    case MetricType::Untyped:
      put_head(out, f, m);
      put_number(out, m.untyped.value);
      put_tail(out, m);
      break;
    case MetricType::Summary:
      put_head(out, f, m, "_count");
      put_number(out, static_cast<double>(m.summary.sample_count));
      put_tail(out, m);
      put_head(out, f, m, "_sum");
      put_number(out, m.summary.sample_sum);
      put_tail(out, m);
      for (const auto& q : m.summary.quantile) {
        put_head(out, f, m, "", "quantile", q.quantile);
        put_number(out, q.value);
        put_tail(out, m);
      }
      break;
    case MetricType::Histogram: {
      const auto& h = m.histogram;
      put_head(out, f, m, "_count");
      put_number(out, static_cast<double>(h.sample_count));
      put_tail(out, m);
      put_head(out, f, m, "_sum");
      put_number(out, h.sample_sum);
      put_tail(out, m);
      double last = -INFINITY;
      for (const auto& b : h.bucket) {
        put_head(out, f, m, "_bucket", "le", b.upper_bound);
        put_number(out, static_cast<double>(b.cumulative_count));
        put_tail(out, m);
        last = b.upper_bound;
      }
      if (last != INFINITY) {
        put_head(out, f, m, "_bucket", "le", INFINITY);
        put_number(out, static_cast<double>(h.sample_count));
        put_tail(out, m);
      }
      break;
    }
  }
}

std::string_view type_word(MetricType t) {
  switch (t) {
    case MetricType::Counter:
      return "counter";
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Summary:
      return "summary";
    case MetricType::Histogram:
      return "histogram";
    case MetricType::Untyped:
      break;
  }
  return "untyped";
}

}  // namespace

void write_text(std::string& out, const std::vector<MetricFamily>& families) {
  for (const MetricFamily& f : families) {
    if (!f.help.empty()) {
      out += "# HELP ";
      out += f.name;
      out += ' ';
      put_escaped(out, f.help, /*quotes=*/false);
      out += '\n';
    }
    out += "# TYPE ";
    out += f.name;
    out += ' ';
    out += type_word(f.type);
    out += '\n';
    for (const ClientMetric& m : f.metric) put_metric(out, f, m);
  }
}

}  // namespace spraylab::monitoring
