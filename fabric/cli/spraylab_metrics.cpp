// spraylab-metrics: prints every metric of spraylab-switch and spraylab-gen as a Markdown table
// (the list in docs/monitoring.md), from the collectors' declarations.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "fabric/cli/metric_catalog.h"
#include "monitoring/metric_list.h"

int main(int argc, char** argv) {
  CLI::App app{
      "spraylab-metrics: every Prometheus metric spraylab-switch and spraylab-gen serve, as the "
      "Markdown table of docs/monitoring.md (name, type, labels, meaning), from the collectors' "
      "own declarations"};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // bad input is 2, as in every spraylab program
  }
  std::fputs(spraylab::monitoring::metrics_table(spraylab::fabric::all_metrics()).c_str(), stdout);
  return 0;
}
