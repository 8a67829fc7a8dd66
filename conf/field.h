// One declaration per experiment-file key: its YAML name, what it holds, its meaning, how it is
// read into the typed struct and how its default is shown. The loader reads through these tables;
// documented_keys() (schema.h) lists them so docs/configuration.md is checked against them.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "conf/units.h"
#include "conf/yaml_value.h"

namespace spraylab::conf {

template <class S>
struct Field {
  std::string_view key;
  std::string type;  // as the docs and "missing key" errors say it: "integer >= 1", "rate"
  std::string_view doc;
  std::function<void(const Value&, S&)> read;
  std::function<std::string(const S&)> show;  // the struct's value, written as in a file
  std::string_view default_text = {};  // replaces show(S{}) when the default is not a constant
};

template <class S>
using Fields = std::vector<Field<S>>;

template <class S>
const Field<S>* find_field(const Fields<S>& fields, std::string_view key) {
  auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.key == key; });
  return it == fields.end() ? nullptr : &*it;
}

template <class S>
std::vector<std::string_view> keys_of(const Fields<S>& fields) {
  std::vector<std::string_view> keys;
  for (const auto& field : fields) keys.push_back(field.key);
  return keys;
}

// Reads every key of `fields` that the map holds, in table order (so a field may use one read
// before it, e.g. buffer.ecn_threshold as a percentage of buffer.bytes).
template <class S>
void read_present(const Map& map, const Fields<S>& fields, S& out) {
  for (const auto& field : fields) {
    if (const Value* value = map.find(field.key)) field.read(*value, out);
  }
}

// Rejects unknown keys, then reads the rest.
template <class S>
void read_section(const Map& map, const Fields<S>& fields, S& out) {
  const auto keys = keys_of(fields);
  map.allow_only(keys);
  read_present(map, fields, out);
}

// A key of a struct held in S (S::*member), read and shown as a key of S.
template <class S, class Inner>
Field<S> nested(Inner S::*member, Field<Inner> inner) {
  return {inner.key, inner.type, inner.doc,
          [member, read = inner.read](const Value& v, S& s) { read(v, s.*member); },
          [member, show = inner.show](const S& s) { return show(s.*member); }, inner.default_text};
}

// ---- Makers for the common kinds of key. ----

// ">= 1" or "in [64, 9000]", sizes written with units.
inline std::string size_range(uint64_t min, uint64_t max) {
  if (max == std::numeric_limits<uint64_t>::max()) return ">= " + format_size(min);
  return fmt::format("in [{}, {}]", format_size(min), format_size(max));
}

template <class S, class T>
Field<S> integer_key(std::string_view key, T S::*member, uint64_t min, uint64_t max,
                     std::string_view doc) {
  static_assert(std::is_unsigned_v<T>);
  max = std::min<uint64_t>(max, std::numeric_limits<T>::max());
  std::string type = max == std::numeric_limits<uint64_t>::max()
                         ? fmt::format("integer >= {}", min)
                         : fmt::format("integer in [{}, {}]", min, max);
  return {key, type, doc,
          [=](const Value& v, S& s) { s.*member = static_cast<T>(v.as_uint(min, max)); },
          [=](const S& s) { return std::to_string(s.*member); }};
}

template <class S>
Field<S> number_key(std::string_view key, double S::*member, double min, double max,
                    std::string_view doc) {
  std::string type = std::isinf(max) ? fmt::format("number >= {}", min)
                                     : fmt::format("number in [{}, {}]", min, max);
  return {key, type, doc, [=](const Value& v, S& s) { s.*member = v.as_number(min, max); },
          [=](const S& s) { return fmt::format("{}", s.*member); }};
}

template <class S>
Field<S> bool_key(std::string_view key, bool S::*member, std::string_view doc) {
  return {key, "boolean", doc, [=](const Value& v, S& s) { s.*member = v.as_bool(); },
          [=](const S& s) { return std::string(s.*member ? "true" : "false"); }};
}

template <class S>
Field<S> string_key(std::string_view key, std::string S::*member, std::string_view doc) {
  return {key, "string", doc, [=](const Value& v, S& s) { s.*member = v.as_string(); },
          [=](const S& s) { return s.*member; }};
}

template <class S>
Field<S> choice_key(std::string_view key, std::string S::*member,
                    std::vector<std::string_view> choices, std::string_view doc) {
  return {key, join(choices, " | "), doc,
          [=](const Value& v, S& s) { s.*member = v.as_choice(choices); },
          [=](const S& s) { return s.*member; }};
}

// A key naming one of an enum's values; `names` is the enum's name table (index = value).
template <class S, class E, size_t N>
Field<S> enum_key(std::string_view key, E S::*member, const std::array<std::string_view, N>& names,
                  std::string_view doc) {
  const std::array<std::string_view, N>* table = &names;  // a static name table
  return {key, join(names, " | "), doc,
          [=](const Value& v, S& s) { s.*member = v.as_enum<E>(*table); },
          [=](const S& s) { return std::string((*table)[static_cast<size_t>(s.*member)]); }};
}

template <class S>
Field<S> rate_key(std::string_view key, double S::*member, std::string_view doc) {
  return {key, "rate", doc, [=](const Value& v, S& s) { s.*member = v.as_rate(); },
          [=](const S& s) { return format_rate(s.*member); }};
}

// A time stored as whole nanoseconds (uint64_t) or as a double.
template <class S, class T>
Field<S> time_key(std::string_view key, T S::*member, uint64_t min_ns, std::string_view doc) {
  return {key, min_ns == 0 ? std::string("time") : "time >= " + format_time(min_ns), doc,
          [=](const Value& v, S& s) {
            if constexpr (std::is_integral_v<T>) {
              s.*member = v.as_whole_ns(min_ns);
            } else {
              s.*member = v.as_time();
              if (s.*member < static_cast<double>(min_ns)) {
                v.expected("a time >= " + format_time(static_cast<double>(min_ns)));
              }
            }
          },
          [=](const S& s) { return format_time(static_cast<double>(s.*member)); }};
}

template <class S, class T>
Field<S> size_key(std::string_view key, T S::*member, uint64_t min, uint64_t max,
                  std::string_view doc) {
  max = std::min<uint64_t>(max, std::numeric_limits<T>::max());
  return {key, "size " + size_range(min, max), doc,
          [=](const Value& v, S& s) { s.*member = static_cast<T>(v.as_size(min, max)); },
          [=](const S& s) { return format_size(s.*member); }};
}

}  // namespace spraylab::conf
