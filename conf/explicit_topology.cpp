#include "conf/explicit_topology.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

#include "conf/schema.h"

namespace spraylab::conf {
namespace {

constexpr std::string_view kLinkForm = "a link [a, b] or {a: .., b: .., rate: .., delay: ..}";

// The two end names of a link entry, in either of its forms.
std::pair<Value, Value> link_ends(const Value& item) {
  if (item.node().IsSequence()) {
    std::vector<Value> ends = item.as_list();
    if (ends.size() != 2) item.expected(kLinkForm);
    return {ends[0], ends[1]};
  }
  if (!item.node().IsMap()) item.expected(kLinkForm);
  const Map map(item);
  const auto keys = keys_of(explicit_link_fields());
  map.allow_only(keys);  // a typo'd key is reported as such, not as a missing 'a' or 'b'
  return {map.require("a", "a switch or host name"), map.require("b", "a switch or host name")};
}

// Every node name with the place it is first defined; duplicates are errors.
class NameTable {
 public:
  void add(const Value& name) {
    const std::string text = name.as_string();
    auto [it, inserted] = places_.emplace(text, name);
    if (!inserted) {
      name.fail(
          fmt::format("duplicate name '{}' (first defined at {})", text, it->second.position()));
    }
    names_.push_back(it->first);
  }
  bool contains(const std::string& name) const { return places_.count(name) != 0; }

  // The end of a link must name a node; suggest the nearest one when it does not.
  void check_end(const Value& end) const {
    const std::string name = end.as_string();
    if (contains(name)) return;
    const std::string message = fmt::format("no switch or host named '{}'", name);
    if (auto guess = nearest(name, names_))
      end.fail(message + fmt::format("; did you mean '{}'?", *guess));
    end.fail(message + "; expected one of: " + join(names_));
  }

 private:
  std::map<std::string, Value> places_;
  std::vector<std::string_view> names_;  // views into places_' keys, in file order
};

}  // namespace

std::vector<ExplicitSwitch> read_explicit_switches(const Value& list) {
  std::vector<ExplicitSwitch> switches;
  for (const Value& item : list.as_list()) {
    const Map map(item);
    read_section(map, explicit_switch_fields(), switches.emplace_back());
    map.require("name", "a switch name");
    map.require("level", "an integer level, 0 for a leaf");
  }
  return switches;
}

std::vector<std::string> read_explicit_hosts(const Value& list) {
  std::vector<std::string> hosts;
  for (const Value& item : list.as_list()) hosts.push_back(item.as_string());
  return hosts;
}

std::vector<ExplicitLink> read_explicit_links(const Value& list) {
  std::vector<ExplicitLink> links;
  for (const Value& item : list.as_list()) {
    auto [a, b] = link_ends(item);
    ExplicitLink& link = links.emplace_back();
    if (item.node().IsMap()) read_section(Map(item), explicit_link_fields(), link);
    link.a = a.as_string();
    link.b = b.as_string();
    link.line = item.node().Mark().line + 1;
  }
  return links;
}

void check_explicit_topology(const Map& topology) {
  NameTable names;
  for (const Value& item : topology.find("switches")->as_list()) {
    names.add(Map(item).require("name", "a switch name"));
  }
  const std::vector<Value> hosts = topology.find("hosts")->as_list();
  std::set<std::string> host_names;
  for (const Value& host : hosts) {
    names.add(host);
    host_names.insert(host.as_string());
  }
  std::map<std::string, Value> host_link;  // host -> its link
  for (const Value& item : topology.find("links")->as_list()) {
    auto [a, b] = link_ends(item);
    names.check_end(a);
    names.check_end(b);
    const std::string na = a.as_string(), nb = b.as_string();
    if (na == nb)
      item.fail(fmt::format("link joins '{}' to itself; expected two different ends", na));
    if (host_names.count(na) && host_names.count(nb)) {
      item.fail(
          fmt::format("link joins hosts '{}' and '{}'; expected a host-to-switch link", na, nb));
    }
    for (const std::string& end : {na, nb}) {
      if (!host_names.count(end)) continue;
      auto [it, inserted] = host_link.emplace(end, item);
      if (!inserted) {
        item.fail(fmt::format("host '{}' already has a link (at {}); expected one link per host",
                              end, it->second.position()));
      }
    }
  }
  for (const Value& host : hosts) {
    if (!host_link.count(host.as_string())) {
      host.fail(fmt::format("host '{}' has no link; expected one link per host", host.as_string()));
    }
  }
}

}  // namespace spraylab::conf
