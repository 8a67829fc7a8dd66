// Shared by the conf tests: load YAML text as "test.yaml" and capture the error it raises.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "conf/loader.h"

namespace spraylab::conf::testing {

inline Experiment load(const std::string& yaml) {
  return load_experiment_string(yaml, "test.yaml");
}

// The ConfigError loading `yaml` throws; an empty message (and a test failure) if it loads.
inline std::string load_error(const std::string& yaml) {
  try {
    load(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ConfigError, but this loaded:\n" << yaml;
  return "";
}

}  // namespace spraylab::conf::testing
