#include "fabric/run/yaml_path.h"

#include <fmt/format.h>

#include <stdexcept>

namespace spraylab::fabric {
namespace {

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return fmt::format("the value '{}'", node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "nothing";
  }
}

std::string step_text(const std::vector<PathStep>& path, size_t upto) {
  std::string text;
  for (size_t i = 0; i < upto; ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!text.empty()) text += '.';
      text += *key;
    } else {
      text += fmt::format("[{}]", std::get<size_t>(path[i]));
    }
  }
  return text;
}

}  // namespace

std::vector<PathStep> parse_key_path(const std::string& path) {
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i <= path.size()) {
    const size_t end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) throw std::invalid_argument(fmt::format("'{}': empty key in the path", path));
    steps.emplace_back(key);
    i = end;
    // Any number of [n] after a key, then '.' or the end.
    while (i < path.size() && path[i] == '[') {
      const size_t close = path.find(']', i);
      const std::string digits = path.substr(i + 1, close == std::string::npos ? 0 : close - i - 1);
      if (close == std::string::npos || digits.empty() ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        throw std::invalid_argument(
            fmt::format("'{}': expected a list index such as [2] at column {}", path, i + 1));
      }
      steps.emplace_back(static_cast<size_t>(std::stoull(digits)));
      i = close + 1;
    }
    if (i == std::string::npos || i >= path.size()) break;
    if (path[i] != '.') {
      throw std::invalid_argument(
          fmt::format("'{}': expected '.' or '[' at column {}", path, i + 1));
    }
    ++i;
    if (i == path.size()) throw std::invalid_argument(fmt::format("'{}': ends with '.'", path));
  }
  return steps;
}

void set_path(YAML::Node& root, const std::vector<PathStep>& path, const YAML::Node& value) {
  // yaml-cpp's Node assignment writes through to the node it refers to; reset() re-points it.
  YAML::Node node;
  node.reset(root);
  for (size_t i = 0; i < path.size(); ++i) {
    const bool last = i + 1 == path.size();
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!node.IsDefined() || node.IsNull()) node = YAML::Node(YAML::NodeType::Map);
      if (!node.IsMap()) {
        throw std::invalid_argument(
            fmt::format("cannot set '{}': '{}' is {}, not a map", step_text(path, path.size()),
                        i == 0 ? "the document" : step_text(path, i), describe(node)));
      }
      if (last) {
        node[*key] = value;
        return;
      }
      YAML::Node next = node[*key];
      node.reset(next);
    } else {
      const size_t index = std::get<size_t>(path[i]);
      if (!node.IsSequence() || index >= node.size()) {
        throw std::invalid_argument(fmt::format(
            "cannot set '{}': '{}' is {}{}", step_text(path, path.size()), step_text(path, i),
            describe(node),
            node.IsSequence() ? fmt::format(" of {} items, no index {}", node.size(), index)
                              : ", not a list"));
      }
      if (last) {
        node[index] = value;
        return;
      }
      YAML::Node next = node[index];
      node.reset(next);
    }
  }
}

YAML::Mark mark_of(const YAML::Node& root, const std::string& path) {
  std::vector<PathStep> steps;
  try {
    steps = parse_key_path(path);
  } catch (const std::invalid_argument&) {
    return root.Mark();
  }
  YAML::Node node;
  node.reset(root);
  // Const lookups insert nothing; a missing key gives an invalid node, which must be checked
  // with IsDefined() before anything else touches it.
  for (const PathStep& step : steps) {
    const YAML::Node& here = node;
    YAML::Node next;
    if (const auto* key = std::get_if<std::string>(&step)) {
      if (!node.IsMap()) break;
      const YAML::Node child = here[*key];
      if (!child.IsDefined()) break;
      next.reset(child);
    } else {
      const size_t index = std::get<size_t>(step);
      if (!node.IsSequence() || index >= node.size()) break;
      next.reset(here[index]);
    }
    node.reset(next);
  }
  return node.Mark();
}

}  // namespace spraylab::fabric
