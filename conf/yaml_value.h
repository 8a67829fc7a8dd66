// YAML nodes that remember where they are: the file, the line and column (from yaml-cpp's marks)
// and the dotted key path. Every typed read either returns a checked value or throws a
// ConfigError that names all four, "expected X, found Y".
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conf/config_error.h"

namespace spraylab::conf {

class Map;

class Value {
 public:
  // source must outlive the Value (it is the file name every error prints). mark overrides the
  // node's own position (yaml-cpp places an empty value at the next token, often a line below).
  Value(YAML::Node node, std::string path, const std::string* source,
        std::optional<YAML::Mark> mark = std::nullopt);

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  const std::string& source() const { return *source_; }
  std::string position() const;                     // "line:column", 1-based
  const YAML::Mark& mark() const { return mark_; }  // 0-based: where errors point

  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void expected(std::string_view what) const;  // "expected {what}, found {found()}"
  std::string found() const;  // the scalar text, or "a map", "a list", "nothing"

  std::string scalar(std::string_view what) const;  // the text, or expected(what)
  // `what` replaces the default "an integer in [min, max]" in the error message.
  uint64_t as_uint(uint64_t min, uint64_t max, std::string_view what = {}) const;
  double as_number(double min, double max) const;
  bool as_bool() const;
  std::string as_string() const;  // a non-empty scalar
  std::string as_choice(std::span<const std::string_view> choices) const;
  // The same, as the index of the choice: the value of an enum whose name table is `choices`.
  template <class E>
  E as_enum(std::span<const std::string_view> choices) const {
    const std::string text = as_choice(choices);
    return static_cast<E>(std::find(choices.begin(), choices.end(), text) - choices.begin());
  }
  double as_rate() const;                              // bits/s, >= 1
  double as_time() const;                              // ns, 0 .. 2^53
  uint64_t as_whole_ns(uint64_t min_ns) const;         // ns, a whole number >= min_ns
  uint64_t as_size(uint64_t min, uint64_t max) const;  // bytes
  Map as_map() const;
  std::vector<Value> as_list() const;

  Value child(const YAML::Node& node, std::string_view key) const;  // path.key
  Value item(const YAML::Node& node, size_t index) const;           // path[index]

 private:
  double parsed_time() const;  // ns, >= 0

  YAML::Node node_;
  std::string path_;
  const std::string* source_;
  YAML::Mark mark_;
};

// A YAML map read key by key. Building one rejects non-scalar and duplicate keys (yaml-cpp
// silently keeps both copies of a duplicate, so a typo'd copy would otherwise be ignored).
class Map {
 public:
  struct Entry {
    std::string key;
    Value key_node;  // where the key is written, for errors about the key itself
    Value value;
  };
  explicit Map(const Value& value);

  const Value& self() const { return self_; }
  const std::vector<Entry>& entries() const { return entries_; }
  const Value* find(std::string_view key) const;
  const Value& require(std::string_view key, std::string_view what) const;

  // Throws for the first key not in `allowed`. `misplaced` may explain a key that is valid in
  // another variant ("not a parameter of algorithm ofan"); otherwise the key is unknown and the
  // nearest allowed key is suggested.
  using Misplaced = std::function<std::optional<std::string>(std::string_view key)>;
  void allow_only(std::span<const std::string_view> allowed, const Misplaced& misplaced = {}) const;

 private:
  Value self_;
  std::vector<Entry> entries_;
};

// Levenshtein distance, for "did you mean" suggestions.
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to word, if close enough to be a plausible typo.
std::optional<std::string_view> nearest(std::string_view word,
                                        std::span<const std::string_view> candidates);
// A type as a message says it: "an integer", "a rate", "one of a | b".
std::string with_article(std::string_view type);
// "a, b, c" for messages.
std::string join(std::span<const std::string_view> words, std::string_view separator = ", ");

}  // namespace spraylab::conf
