// spraylab: the control tool: topologies (`topo`), experiments (`run`) and the load balancers
// they can use (`algorithms`).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "conf/config_error.h"
#include "fabric/cli/algorithms_cli.h"
#include "fabric/cli/demo.h"
#include "fabric/cli/fabric_cli.h"
#include "fabric/cli/reproduce_cli.h"
#include "fabric/cli/run_cli.h"
#include "fabric/cli/topo_cli.h"
#include "fabric/emu/eal.h"
#include "fabric/run/stop_request.h"
#include "fabric/runner/runner.h"
#include "topo/generators.h"

namespace {

// The command as typed, for the results' run.json.
std::string command_line(int argc, char** argv) {
  std::string line = "spraylab";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const bool plain = arg.find_first_of(" \t'\"$\\*?[]{}();&|<>") == std::string::npos;
    line += plain ? " " + arg : fmt::format(" '{}'", arg);
  }
  return line;
}

// The same for the words after the first (`topo generate`, `topo gen fattree`, `topo stats
// fattree --k 4`): CLI11 says "A subcommand is required" or that the generator's options were not
// expected. Follows the command words until an option; a word that names no subcommand of a
// command that has some is reported when the command needs one, or when it is not a file
// either (`topo stats` takes a FILE or a generator). Returns true if it reported one.
bool unknown_subcommand(CLI::App& app, int argc, char** argv) {
  CLI::App* cur = &app;
  std::string path = "spraylab";
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const std::string word = argv[i];
    const auto match = cur->get_subcommands([&](CLI::App* c) { return c->check_name(word); });
    if (!match.empty()) {
      cur = match.front();
      path += " " + cur->get_name();
      continue;
    }
    const std::vector<CLI::App*> subs = cur->get_subcommands({});
    const bool needed = cur->get_require_subcommand_min() > 0;
    std::error_code ec;  // a name too long for a path is not a file: no exception here
    const bool a_file = word.find_first_of("./") != std::string::npos ||
                        std::filesystem::exists(word, ec);
    if (subs.empty() || (!needed && a_file) || cur == &app) return false;
    std::vector<std::string> names;
    for (const CLI::App* c : subs) names.push_back(c->get_name());
    fmt::print(stderr, "{}: unknown {} '{}'; expected {}: {} ({} --help)\n", path,
               needed ? "command" : "command or file", word,
               needed ? "one of" : "a FILE or one of", fmt::join(names, ", "), path);
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spraylab: per-packet load balancing testbed for AI-training fabrics"};
  app.require_subcommand(1);
  spraylab::fabric::add_topo_commands(app);
  spraylab::fabric::add_algorithms_command(app);
  int rc = 0;
  spraylab::fabric::add_run_command(app, &rc, command_line(argc, argv));
  spraylab::fabric::add_reproduce_command(app, &rc, command_line(argc, argv));
  spraylab::fabric::add_fabric_command(app, &rc);
  app.add_subcommand("demo",
                     "Compare a 432-host fat tree and an MRLS (topologies only; "
                     "`make demo` runs the fabric demo)")
      ->final_callback([&rc] { rc = spraylab::fabric::run_demo(); });
  // CLI11 answers an unknown first word with "A subcommand is required" (the requirement is
  // checked before the word is reported); say what was wrong instead.
  if (argc > 1 && std::string_view(argv[1]) != "-h" && std::string_view(argv[1]) != "--help" &&
      app.get_subcommands([&](CLI::App* c) { return c->check_name(argv[1]); }).empty()) {
    std::vector<std::string> names;
    for (const CLI::App* c : app.get_subcommands({})) names.push_back(c->get_name());
    fmt::print(stderr, "spraylab: unknown {} '{}'; expected a command: {} (spraylab --help)\n",
               argv[1][0] == '-' ? "option" : "command", argv[1], fmt::join(names, ", "));
    return 2;
  }
  if (unknown_subcommand(app, argc, argv)) return 2;
  try {
    app.parse(argc, argv);
  } catch (const spraylab::fabric::Interrupted& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    // Cleaned up; now end by the signal itself, not exit(130): a shell running spraylab in a
    // loop stops the loop only for a child that died by SIGINT (a normal exit says the child
    // handled it), and SIGTERM is 143, not 130.
    if (const int signal = spraylab::fabric::stop_signal(); signal != 0) {
      spraylab::fabric::remove_eal_runtime_dir();  // an atexit handler, which raise() skips
      std::fflush(nullptr);
      std::signal(signal, SIG_DFL);
      std::raise(signal);
    }
    return 130;
  } catch (const CLI::RuntimeError& e) {
    return app.exit(e);  // a command's own result (topo check: problems found)
  } catch (const CLI::ParseError& e) {
    // Bad input is exit code 2 for every command, as for a bad experiment file; --help is 0.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const spraylab::conf::ConfigError& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    return 2;
  } catch (const spraylab::topo::TopologyError& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    return 2;
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    // A workload or fabric too large for the memory (e.g. 4e9 uniform messages): one line, not
    // an abort. The size estimate of -n covers the fabric, not every workload's schedule.
    fmt::print(stderr,
               "spraylab: out of memory building the experiment or running it: its workload or "
               "fabric is larger than this machine holds; make it smaller\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "spraylab: internal error: {}\n", e.what());  // a bug, not the input
    return 1;
  }
  return rc;
}
