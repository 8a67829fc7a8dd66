// The outermost frame of a spraylab program: what escapes run() becomes one line on stderr and
// exit status 2, never an abort. A ConfigError's message already says where (file:line:col: key),
// so it is printed as it is; anything else is prefixed with "error:".
#pragma once

#include <cstdio>
#include <exception>

#include "conf/config_error.h"

namespace spraylab::conf {

template <typename Run>
int guarded_main(const char* program, Run&& run) {
  try {
    return run();
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
  }
  return 2;
}

}  // namespace spraylab::conf
