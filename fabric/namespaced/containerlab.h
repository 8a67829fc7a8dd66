// `spraylab fabric export EXPERIMENT.yaml --containerlab DIR` (issue 15): the namespaced
// fabric as a containerlab topology, to run on one server or, with containerlab's vxlan-stitch
// links or clabernetes, across several (docs/fabric.md, "containerlab"). One `kind: linux` node
// per switch and per leaf's hosts, the same links (veth, eth1, eth2, ... as containerlab names
// them) and the same command lines as `spraylab fabric up --links veth` (fabric/namespaced/plan.h).
#pragma once

#include <string>

#include "fabric/namespaced/launcher.h"

namespace spraylab::fabric::namespaced {

struct ExportOptions {
  Options fabric;       // experiment, rate, name, algorithm, idle sleep, timeouts
  std::string out_dir;  // where the files go
  std::string image = "spraylab:latest";
};

// Writes <out_dir>/<name>.clab.yml, experiment.yaml (what the processes read, bound at
// /spraylab/run), Dockerfile (the node image, built from this repository on Debian 12),
// prometheus-targets.json (file-based service discovery of every node's metrics) and README.md
// (the steps). Returns 0; throws std::invalid_argument for bad input.
int export_containerlab(const ExportOptions& o);

}  // namespace spraylab::fabric::namespaced
