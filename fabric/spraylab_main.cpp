// spraylab: the control tool (topologies now; fabrics, experiments and results to come).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "conf/config_error.h"
#include "fabric/demo.h"
#include "fabric/topo_cli.h"
#include "topo/generators.h"

int main(int argc, char** argv) {
  CLI::App app{"spraylab: per-packet load balancing testbed for AI-training fabrics"};
  app.require_subcommand(1);
  spraylab::fabric::add_topo_commands(app);
  int demo_rc = 0;
  app.add_subcommand("demo", "Run the quick-start demo")->final_callback([&demo_rc] {
    demo_rc = spraylab::fabric::run_demo();
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spraylab::conf::ConfigError& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    return 2;
  } catch (const spraylab::topo::TopologyError& e) {
    fmt::print(stderr, "spraylab: {}\n", e.what());
    return 2;
  }
  return demo_rc;
}
