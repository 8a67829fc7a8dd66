// --links of `spraylab run` and `spraylab fabric up`: a link kind by name.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>

#include "fabric/namespaced/names.h"

namespace spraylab::fabric {

// "{memif,veth,vhost}", as CLI11 writes a set of values in --help.
inline std::string kind_list() {
  std::string out = "{";
  for (const namespaced::LinkKindInfo& k : namespaced::kLinkKinds) {
    if (out.size() > 1) out += ',';
    out += k.name;
  }
  return out + "}";
}

// The option takes the name as text and stores the kind once the name is known. (A CLI11 map
// onto the one-byte enum printed the kinds' numbers as raw bytes in --help, and its error stopped
// at the first NUL without naming a valid kind.)
inline CLI::Option* add_links_option(CLI::App* cmd, namespaced::LinkKind& links, std::string help) {
  const CLI::Validator known(
      [](std::string& text) -> std::string {
        if (namespaced::find_link_kind(text)) return {};
        return "expected " + namespaced::link_kind_choices() + ", found " + text;
      },
      kind_list());
  return cmd
      ->add_option_function<std::string>(
          "--links",
          [&links](const std::string& name) { links = *namespaced::find_link_kind(name); },
          std::move(help))
      ->check(known);
}

}  // namespace spraylab::fabric
