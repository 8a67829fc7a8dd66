#include "fabric/namespaced/names.h"

namespace spraylab::fabric::namespaced {

std::string_view link_kind_name(LinkKind k) {
  for (const LinkKindInfo& i : kLinkKinds) {
    if (i.id == k) return i.name;
  }
  return "?";
}

std::optional<LinkKind> find_link_kind(std::string_view name) {
  return names::find(kLinkKinds, name);
}

std::string link_kind_choices() {
  std::string out;
  for (size_t i = 0; i < kLinkKinds.size(); ++i) {
    if (i > 0) out += i + 1 == kLinkKinds.size() ? " or " : ", ";
    out += kLinkKinds[i].name;
  }
  return out;
}

std::string_view role_name(Role r) {
  for (const RoleInfo& i : kRoles) {
    if (i.id == r) return i.name;
  }
  return "?";
}

std::optional<Role> find_role(std::string_view name) { return names::find(kRoles, name); }

}  // namespace spraylab::fabric::namespaced
