#include "net/eal_main.h"

#include <fmt/format.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <csignal>

namespace spraylab::net {

bool start_eal(int& argc, char**& argv, const char* program, void (*on_signal)(int)) {
  const int eal = rte_eal_init(argc, argv);
  if (eal < 0) {
    fmt::print(stderr, "{}: EAL initialisation failed: {}\n", program, rte_strerror(rte_errno));
    return false;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  argc -= eal;
  argv += eal;
  argv[0] = const_cast<char*>(program);
  return true;
}

}  // namespace spraylab::net
