// The one way a name list is written (docs/architecture.md, "Name lists"): an enum, and a
// constexpr table of one info struct per enumerator, in enumerator order, whose `id` and `name`
// come first (then what else the list carries: a doc line, traits, defaults). These read such a
// table. Header-only and standard-only, so every part, conf/ included, may use them.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace spraylab::names {

// True when every entry sits at its enumerator's index (static_assert it beside the table, so
// that indexing the table by the enum is safe).
template <typename Info, size_t N>
constexpr bool in_enum_order(const std::array<Info, N>& table) {
  for (size_t i = 0; i < N; ++i) {
    if (static_cast<size_t>(table[i].id) != i) return false;
  }
  return true;
}

// The names, in enum order.
template <typename Info, size_t N>
constexpr std::array<std::string_view, N> names_of(const std::array<Info, N>& table) {
  std::array<std::string_view, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = table[i].name;
  return out;
}

// The doc lines, in enum order (for tables whose info has `doc`).
template <typename Info, size_t N>
constexpr std::array<std::string_view, N> docs_of(const std::array<Info, N>& table) {
  std::array<std::string_view, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = table[i].doc;
  return out;
}

// The enumerator named `name`, or nullopt.
template <typename Info, size_t N>
constexpr auto find(const std::array<Info, N>& table, std::string_view name)
    -> std::optional<decltype(Info::id)> {
  for (const Info& i : table) {
    if (i.name == name) return i.id;
  }
  return std::nullopt;
}

}  // namespace spraylab::names
