// The namespaced fabric's two name lists: the kinds of link between its processes and the roles
// of its processes. Declared once, like switch/lb/algorithm.h: the command line, state.json, the
// containerlab export, the process table and the docs read these tables; nothing compares the
// names as text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "conf/name_list.h"

namespace spraylab::fabric::namespaced {

enum class LinkKind : uint8_t { kMemif, kVeth, kVhost };

struct LinkKindInfo {
  LinkKind id;
  std::string_view name;  // `--links NAME`, state.json's "links"
  std::string_view summary;
};

inline constexpr std::array<LinkKindInfo, 3> kLinkKinds{{
    {LinkKind::kMemif, "memif", "shared-memory packet rings (net_memif), socket files"},
    {LinkKind::kVeth, "veth", "veth pairs read by net_af_xdp with the switch's XDP program"},
    {LinkKind::kVhost, "vhost", "vhost-user (net_vhost) to virtio-user, socket files"},
}};
static_assert(names::in_enum_order(kLinkKinds));

enum class Role : uint8_t { kSwitch, kGen };

struct RoleInfo {
  Role id;
  std::string_view name;     // state.json, the process table, metrics labels
  std::string_view program;  // what the process runs
};

inline constexpr std::array<RoleInfo, 2> kRoles{{
    {Role::kSwitch, "switch", "spraylab-switch"},
    {Role::kGen, "gen", "spraylab-gen"},
}};
static_assert(names::in_enum_order(kRoles));

std::string_view link_kind_name(LinkKind k);
std::optional<LinkKind> find_link_kind(std::string_view name);
// "memif, veth or vhost"
std::string link_kind_choices();

std::string_view role_name(Role r);
std::optional<Role> find_role(std::string_view name);

}  // namespace spraylab::fabric::namespaced
