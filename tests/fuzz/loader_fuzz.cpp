// libFuzzer target: the experiment loader (conf/loader.h) on arbitrary YAML text, both entry
// points (a whole experiment, and one load balancer as --lb strings are read). The loader's
// documented error is conf::ConfigError, one line "file:line:column: path: message"; any other
// exception escaping it, a crash, a hang or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <typeinfo>

#include "conf/loader.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

const std::string kSource = "fuzz.yaml";

void check_error(const spraylab::conf::ConfigError& e) {
  const std::string what = e.what();
  FUZZ_CHECK(what.rfind(kSource + ":", 0) == 0, "error does not name the file: %s", e.what());
  FUZZ_CHECK(what.find('\n') == std::string::npos, "error is not one line: %s", e.what());
  FUZZ_CHECK(e.line() >= 0 && e.column() >= 0, "negative position: %s", e.what());
  FUZZ_CHECK(!e.message().empty(), "empty message: %s", e.what());
}

template <typename Load>
void load(Load&& load_text, const char* entry) {
  try {
    load_text();
  } catch (const spraylab::conf::ConfigError& e) {
    check_error(e);
  } catch (const std::exception& e) {
    FUZZ_CHECK(false, "%s escaped %s: %s", typeid(e).name(), entry, e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  load([&] { spraylab::conf::load_experiment_string(text, kSource); }, "load_experiment_string");
  load([&] { spraylab::conf::load_balancer_string(text, kSource); }, "load_balancer_string");
  return 0;
}
