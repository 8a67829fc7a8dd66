// The events section: link events and random link failures (docs/configuration.md, "events").
#include <fmt/format.h>

#include "conf/schema.h"
#include "conf/sections.h"

namespace spraylab::conf {

std::vector<LinkEventSpec> read_link_events(const Value& list) {
  std::vector<LinkEventSpec> events;
  size_t previous = SIZE_MAX;  // an index: `events` grows
  for (const Value& item : list.as_list()) {
    if (!item.node().IsMap()) item.expected("a link event {at, link, action, rate, from}");
    const Map map(item);
    LinkEventSpec& e = events.emplace_back();
    read_section(map, link_event_fields(), e);
    map.require("at", "a time after the workload's start");
    map.require("link", "a link [a, b]");
    map.require("action", "down, up or rate");
    e.path = item.path();
    e.line = item.node().Mark().line + 1;
    e.column = item.node().Mark().column + 1;
    const Value* rate = map.find("rate");
    if (e.action == LinkAction::kRate && rate == nullptr)
      map.require("rate", "the link's new rate");
    if (e.action != LinkAction::kRate && rate != nullptr) {
      rate->fail(fmt::format("a rate is read only with action: rate; found action: {}",
                             kLinkActionNames[static_cast<size_t>(e.action)]));
    }
    if (const Value* from = map.find("from"); from != nullptr && e.from != e.a && e.from != e.b) {
      from->fail(fmt::format("'{}' is not an end of link [{}, {}]; expected '{}' or '{}'", e.from,
                             e.a, e.b, e.a, e.b));
    }
    // Applied in order: an event before the one above it is a typo, not a reordering.
    if (previous != SIZE_MAX && e.at_ns < events[previous].at_ns) {
      map.find("at")->fail(fmt::format(
          "{} is before the previous event's time ({}, at line {}); list events in time order",
          format_time(static_cast<double>(e.at_ns)),
          format_time(static_cast<double>(events[previous].at_ns)), events[previous].line));
    }
    previous = events.size() - 1;
  }
  return events;
}

void read_events(const Map& map, uint64_t duration_ns, EventsSpec& events) {
  read_section(map, events_fields(), events);
  if (duration_ns == 0) return;
  // An event after the run's end never happens: said now, not found missing from the results.
  auto check = [duration_ns](const Value& at, uint64_t at_ns) {
    if (at_ns >= duration_ns) {
      at.fail(fmt::format(
          "{} is not before measurement.duration ({}): the event would never "
          "happen",
          format_time(static_cast<double>(at_ns)), format_time(static_cast<double>(duration_ns))));
    }
  };
  if (const Value* links = map.find("links")) {
    const std::vector<Value> items = links->as_list();
    for (size_t i = 0; i < items.size(); ++i)
      check(*Map(items[i]).find("at"), events.links[i].at_ns);
  }
  if (const Value* at = map.find("random_failures_at"); at && events.random_link_failures > 0) {
    check(*at, events.random_failures_at_ns);
  }
}

}  // namespace spraylab::conf
