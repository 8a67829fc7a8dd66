#include "conf/yaml_value.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "conf/units.h"

namespace spraylab::conf {
namespace {

std::string mark_text(const YAML::Mark& mark) {
  return fmt::format("{}:{}", mark.line + 1, mark.column + 1);
}

std::string uint_range(uint64_t min, uint64_t max) {
  if (max == std::numeric_limits<uint64_t>::max()) return fmt::format("an integer >= {}", min);
  return fmt::format("an integer in [{}, {}]", min, max);
}

std::string number_range(double min, double max) {
  if (std::isinf(max)) return fmt::format("a number >= {}", min);
  return fmt::format("a number in [{}, {}]", min, max);
}

constexpr std::string_view kRateForm = "a rate such as 100Gbps, 800G or a number of bits/s";
constexpr std::string_view kTimeForm = "a time such as 500ns, 0.5us, 1ms or a number of ns";
constexpr std::string_view kSizeForm = "a size such as 800KB, 1MiB or a number of bytes";

const std::string* source_of(const Value& value) { return &value.source(); }

}  // namespace

Value::Value(YAML::Node node, std::string path, const std::string* source,
             std::optional<YAML::Mark> mark)
    : node_(std::move(node)),
      path_(std::move(path)),
      source_(source),
      mark_(mark.value_or(node_.Mark())) {}

std::string Value::position() const { return mark_text(mark_); }

void Value::fail(const std::string& message) const {
  const YAML::Mark mark = mark_;
  // An empty document has no mark (-1); report it without a position.
  const bool known = mark.line >= 0;
  throw ConfigError(*source_, known ? mark.line + 1 : 0, known ? mark.column + 1 : 0, path_,
                    message);
}

void Value::expected(std::string_view what) const {
  fail(fmt::format("expected {}, found {}", what, found()));
}

std::string Value::found() const {
  if (node_.IsMap()) return "a map";
  if (node_.IsSequence()) return "a list";
  if (!node_.IsScalar()) return "nothing";
  return node_.Scalar().empty() ? "an empty string" : node_.Scalar();
}

std::string Value::scalar(std::string_view what) const {
  if (!node_.IsScalar()) expected(what);
  return node_.Scalar();
}

uint64_t Value::as_uint(uint64_t min, uint64_t max, std::string_view what_text) const {
  const std::string what = what_text.empty() ? uint_range(min, max) : std::string(what_text);
  const std::string text = scalar(what);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    expected(what);
  }
  return value;
}

double Value::as_number(double min, double max) const {
  const std::string what = number_range(min, max);
  const std::string text = scalar(what);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      value < min || value > max) {
    expected(what);
  }
  return value;
}

bool Value::as_bool() const {
  bool value = false;
  if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, value)) expected("true or false");
  return value;
}

std::string Value::as_string() const {
  std::string text = scalar("a string");
  if (text.empty()) expected("a non-empty string");
  return text;
}

std::string Value::as_choice(std::span<const std::string_view> choices) const {
  const std::string what = "one of " + join(choices);
  const std::string text = scalar(what);
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return text;
  if (auto guess = nearest(text, choices)) {
    fail(fmt::format("expected {}, found {}; did you mean '{}'?", what, found(), *guess));
  }
  expected(what);
}

double Value::as_rate() const {
  auto rate = parse_rate_bps(scalar(kRateForm));
  if (!rate) expected(kRateForm);
  if (!(*rate > 0)) expected("a rate above 0");  // "0Gbps" is a rate, just not a usable one
  // Slower, one frame's serialisation alone passes the ns clock (fabric/emu/link.h).
  if (*rate < 1) expected("a rate of at least 1 bit/s");
  return *rate;
}

double Value::parsed_time() const {
  auto time = parse_time_ns(scalar(kTimeForm));
  if (!time) expected(kTimeForm);
  return *time;
}

double Value::as_time() const {
  const double ns = parsed_time();
  // A delay or period this long would pass the ns clock once added to the others (a typo such
  // as 1e12s); no experiment needs one. (Whole-ns keys have their own bound, as_whole_ns.)
  if (ns > 9007199254740992.0) expected("a time of at most 2^53 ns (about 104 days)");
  return ns;
}

uint64_t Value::as_whole_ns(uint64_t min_ns) const {
  const double ns = parsed_time();
  if (ns != std::floor(ns)) expected("a whole number of nanoseconds");
  // 2^64 ns (584 years) does not fit the uint64_t it is stored in (found by tests/fuzz).
  if (ns >= 18446744073709551616.0) expected("a whole number of nanoseconds < 2^64");
  if (ns < static_cast<double>(min_ns)) {
    expected("a time >= " + format_time(static_cast<double>(min_ns)));
  }
  return static_cast<uint64_t>(ns);
}

uint64_t Value::as_size(uint64_t min, uint64_t max) const {
  auto bytes = parse_size_bytes(scalar(kSizeForm));
  if (!bytes) expected(kSizeForm);
  if (*bytes < min || *bytes > max) {
    expected(max == std::numeric_limits<uint64_t>::max()
                 ? fmt::format("a size >= {}", format_size(min))
                 : fmt::format("a size in [{}, {}]", format_size(min), format_size(max)));
  }
  return *bytes;
}

Map Value::as_map() const { return Map(*this); }

std::vector<Value> Value::as_list() const {
  if (!node_.IsSequence()) expected("a list");
  std::vector<Value> items;
  for (size_t i = 0; i < node_.size(); ++i) items.push_back(item(node_[i], i));
  return items;
}

Value Value::child(const YAML::Node& node, std::string_view key) const {
  return Value(node, path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key), source_);
}

Value Value::item(const YAML::Node& node, size_t index) const {
  return Value(node, fmt::format("{}[{}]", path_, index), source_);
}

Map::Map(const Value& value) : self_(value) {
  if (!value.node().IsMap()) value.expected("a map");
  for (auto it = value.node().begin(); it != value.node().end(); ++it) {
    if (!it->first.IsScalar())
      Value(it->first, value.path(), source_of(value)).expected("a key name");
    const std::string key = it->first.Scalar();
    Value key_node = value.child(it->first, key);
    if (const Value* first = find(key)) {
      key_node.fail(fmt::format("duplicate key '{}' (first at {})", key, first->position()));
    }
    // An empty value is reported at its key: yaml-cpp marks it at the next token.
    Value entry = value.child(it->second, key);
    if (it->second.IsNull())
      entry = Value(it->second, entry.path(), source_of(value), it->first.Mark());
    entries_.push_back(Entry{key, key_node, entry});
  }
}

const Value* Map::find(std::string_view key) const {
  for (const Entry& entry : entries_) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

const Value& Map::require(std::string_view key, std::string_view what) const {
  if (const Value* value = find(key)) return *value;
  const Value missing = self_.child(self_.node(), key);
  missing.fail(fmt::format("missing required key '{}'; expected {}", key, what));
}

void Map::allow_only(std::span<const std::string_view> allowed, const Misplaced& misplaced) const {
  for (const Entry& entry : entries_) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) continue;
    if (misplaced) {
      if (auto why = misplaced(entry.key)) entry.key_node.fail(*why);
    }
    if (auto guess = nearest(entry.key, allowed)) {
      entry.key_node.fail(fmt::format("unknown key '{}'; did you mean '{}'?", entry.key, *guess));
    }
    entry.key_node.fail(
        allowed.empty()
            ? fmt::format("unknown key '{}'; no keys are allowed here", entry.key)
            : fmt::format("unknown key '{}'; expected one of: {}", entry.key, join(allowed)));
  }
}

// Optimal string alignment: two neighbouring letters swapped count as one edit, the commonest
// typo (`ofna` for `ofan`, two substitutions in plain Levenshtein, found nothing).
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    before.swap(last);
    last.swap(row);
  }
  return last[b.size()];
}

std::optional<std::string_view> nearest(std::string_view word,
                                        std::span<const std::string_view> candidates) {
  // A third of the word may be wrong: catches typos without suggesting unrelated keys.
  const size_t limit = std::max<size_t>(1, word.size() / 3);
  std::optional<std::string_view> best;
  size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    const size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best) return best;
  // Otherwise the longest shared start of 5+ characters: catches struct field names written as
  // keys (payload_bytes for payload, state_update_ns for state_update).
  size_t best_prefix = 4;
  for (std::string_view candidate : candidates) {
    const auto [w, c] = std::mismatch(word.begin(), word.end(), candidate.begin(), candidate.end());
    const auto shared = static_cast<size_t>(w - word.begin());
    if (shared > best_prefix) {
      best = candidate;
      best_prefix = shared;
    }
  }
  return best;
}

std::string with_article(std::string_view type) {
  if (type.find(" | ") != std::string_view::npos) return fmt::format("one of {}", type);
  const bool vowel =
      !type.empty() && std::string_view("aeiou").find(type[0]) != std::string_view::npos;
  return fmt::format("{} {}", vowel ? "an" : "a", type);
}

std::string join(std::span<const std::string_view> words, std::string_view separator) {
  std::string out;
  for (std::string_view word : words) {
    if (!out.empty()) out += separator;
    out += word;
  }
  return out;
}

}  // namespace spraylab::conf
