#include "trafficgen/workloads/trace.h"
#include "trafficgen/workloads/workload_type.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

namespace spraylab::gen {
namespace {

constexpr const char* kColumns[] = {"start_ns", "src", "dst", "bytes", "depends_on"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const size_t at = s.find(sep);
    out.push_back(trim(s.substr(0, at)));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

class RowParser {
 public:
  RowParser(const std::string& source, int line) : source_(source), line_(line) {}

  uint64_t number(std::string_view field, const char* column) const {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
      fail(std::string("column '") + column + "': expected a non-negative integer, got '" +
           std::string(field) + "'");
    }
    return v;
  }

  [[noreturn]] void fail(const std::string& what) const { throw TraceError(source_, line_, what); }

 private:
  const std::string& source_;
  int line_;
};

struct Row {
  int line;
  Message message;
};

Row parse_row(std::string_view text, const std::string& source, int line, uint32_t ranks) {
  const RowParser p(source, line);
  const std::vector<std::string_view> f = split(text, ',');
  if (f.size() != 4 && f.size() != 5) {
    p.fail("expected 5 columns (start_ns,src,dst,bytes,depends_on), got " +
           std::to_string(f.size()));
  }
  Message m;
  m.start_ns = p.number(f[0], "start_ns");
  const auto rank = [&](std::string_view field, const char* column) {
    const uint64_t v = p.number(field, column);
    if (v >= ranks) {
      p.fail(std::string("column '") + column + "': rank " + std::to_string(v) + " out of range (" +
             std::to_string(ranks) + " ranks)");
    }
    return static_cast<Rank>(v);
  };
  m.src = rank(f[1], "src");
  m.dst = rank(f[2], "dst");
  m.bytes = p.number(f[3], "bytes");
  if (m.src == m.dst) p.fail("src and dst are both " + std::to_string(m.src));
  if (m.bytes == 0) p.fail("column 'bytes': must be > 0");
  if (f.size() == 5 && !f[4].empty()) {
    for (std::string_view id : split(f[4], ';')) {
      // A row id beyond MessageId would wrap to another row's id on the cast.
      const uint64_t row = p.number(id, "depends_on");
      if (row > std::numeric_limits<MessageId>::max()) {
        p.fail("column 'depends_on': no row " + std::to_string(row));
      }
      m.depends_on.push_back(static_cast<MessageId>(row));
    }
  }
  return {line, std::move(m)};
}

void check_header(std::string_view text, const std::string& source, int line) {
  const std::vector<std::string_view> f = split(text, ',');
  bool ok = f.size() == 5;
  for (size_t i = 0; ok && i < 5; ++i) ok = f[i] == kColumns[i];
  if (!ok) {
    throw TraceError(
        source, line,
        "expected the header 'start_ns,src,dst,bytes,depends_on', got '" + std::string(text) + "'");
  }
}

}  // namespace

Schedule parse_trace(std::istream& in, const std::string& source, uint32_t ranks) {
  std::vector<Row> rows;
  bool header = false;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    const std::string_view t = trim(text);
    if (t.empty() || t.front() == '#') continue;
    if (!header) {
      check_header(t, source, line);
      header = true;
      continue;
    }
    rows.push_back(parse_row(t, source, line, ranks));
  }
  if (!header) throw TraceError(source, 1, "empty trace: no header line");
  if (rows.empty()) throw TraceError(source, 1, "trace has a header but no rows");

  Schedule s;
  s.ranks = ranks;
  const uint32_t c = s.add_collective(std::string(to_string(WorkloadType::kTrace)));
  for (Row& r : rows) {
    for (MessageId d : r.message.depends_on) {
      if (d >= rows.size()) {
        throw TraceError(source, r.line,
                         "depends_on: no row " + std::to_string(d) + " (rows are 0.." +
                             std::to_string(rows.size() - 1) + ")");
      }
      if (d == s.messages.size())
        throw TraceError(source, r.line, "depends_on: row depends on itself");
    }
    r.message.collective = c;
    s.add_message(r.message);
  }
  if (const std::optional<MessageId> id = cycle_member(s)) {
    throw TraceError(source, rows[*id].line,
                     "depends_on: row " + std::to_string(*id) + " is on a dependency cycle");
  }
  return s;
}

Schedule load_trace(const std::string& path, uint32_t ranks) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw TraceError(path, 0, "expected a trace file, found a directory");
  }
  std::ifstream in(path);
  if (!in)
    throw TraceError(path, 0, std::string("cannot open the trace file: ") + std::strerror(errno));
  return parse_trace(in, path, ranks);
}

}  // namespace spraylab::gen
