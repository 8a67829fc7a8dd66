#include "net/eal_main.h"

#include <fmt/format.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include <csignal>
#include <string_view>

namespace spraylab::net {

namespace {

const char* g_program = "";

// `program --help` reaches EAL first, which prints its own options and exits; say where the
// program's are.
void usage_hook(const char*) {
  fmt::print("{0} [EAL options] -- [{0} options]: `{0} -- --help` lists {0}'s own options\n",
             g_program);
}

}  // namespace

std::optional<std::vector<char*>> own_help_args(int argc, char** argv, const char* program) {
  int own = 1;
  while (own < argc && std::string_view(argv[own]) != "--") ++own;
  if (own == argc) return std::nullopt;  // no `--`: a --help there is EAL's
  std::vector<char*> args{const_cast<char*>(program)};
  bool help = false;
  for (int i = own + 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    help = help || a == "-h" || a == "--help";
    args.push_back(argv[i]);
  }
  if (!help) return std::nullopt;
  return args;
}

bool start_eal(int& argc, char**& argv, const char* program, void (*on_signal)(int)) {
  g_program = program;
  rte_set_application_usage_hook(usage_hook);
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
