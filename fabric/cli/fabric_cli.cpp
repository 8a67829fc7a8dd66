#include "fabric/cli/fabric_cli.h"

#include <memory>
#include <string>

#include <fmt/format.h>

#include "conf/cli_checks.h"
#include "conf/loader.h"
#include "conf/units.h"
#include "fabric/cli/links_option.h"
#include "fabric/cli/size_guard.h"
#include "fabric/namespaced/containerlab.h"
#include "fabric/namespaced/launcher.h"
#include "fabric/namespaced/plan.h"

namespace spraylab::fabric {

namespace {

// What `up` and `export` share: the fabric as the processes run it. --idle-sleep and
// --deep-sleep get the processes' own check (conf/cli_checks.h) before any namespace exists (up)
// or any command is written (export): the processes would refuse a bad value one by one.
void add_fabric_options(CLI::App* cmd, namespaced::Options& o) {
  const CLI::Validator idle_sleep = conf::sleep_cap_check("busy polling");
  cmd->add_option("experiment", o.experiment, "Experiment YAML file")->required();
  cmd->add_option("--rate", o.rate,
                  "The fastest link's rate (default 100Mbps, what this machine sustains with "
                  "every process on 2 CPUs): the experiment runs k = fastest / RATE times "
                  "slower, every rate divided by k and every time constant multiplied by k; "
                  "'file': the file's rates as written");
  cmd->add_option("--name", o.name, "The fabric's name (default: the experiment's)");
  // Both spellings, as on `run` (issue 43); a fabric runs one balancer, so a list is refused.
  cmd->add_option("--algorithm,--algorithms", o.algorithm,
                  "Load balancer of every switch (default: the file's)")
      ->check(
          [](const std::string& text) -> std::string {
            if (text.find(',') == std::string::npos) return {};
            return "a fabric runs one load balancer on every switch; found " + text +
                   " (spraylab run --mode namespaced runs one fabric per balancer)";
          },
          "NAME");
  cmd->add_option("--idle-sleep", o.idle_sleep,
                  "Every process's longest sleep when its polls come back empty")
      ->check(idle_sleep)
      ->capture_default_str();
  cmd->add_option("--link-timeout", o.link_timeout_s,
                  "Seconds for every process to report its links up")
      ->check(conf::kPositiveNumber)
      ->capture_default_str();
  cmd->add_option("--run-timeout", o.run_timeout_s,
                  "Each generator gives up a run after this many seconds")
      ->check(conf::kPositiveNumber)
      ->capture_default_str();
}

void add_up(CLI::App* fabric, int* exit_code) {
  auto up = std::make_shared<namespaced::Options>();
  auto* up_cmd = fabric->add_subcommand("up",
                                        "Start the fabric of an experiment and wait until "
                                        "every link is up (needs root)");
  add_fabric_options(up_cmd, *up);
  add_links_option(up_cmd, up->links,
                   "Link kind: memif (sockets in the fabric's folder), veth (pairs between the "
                   "namespaces, net_af_xdp with the switch's XDP program; payloads above 1400 B "
                   "are cut to 1400) or vhost (vhost-user sockets in the fabric's folder: "
                   "net_vhost at the end nearer the core, net_virtio_user at the other)")
      ->default_str(std::string(namespaced::link_kind_name(up->links)));
  up_cmd
      ->add_option("--nice", up->nice,
                   "Every process's nice value: a process woken for a frame goes before the "
                   "machine's other work")
      ->check(CLI::Range(-20, 19))
      ->capture_default_str();
  up_cmd
      ->add_option("--deep-sleep", up->deep_sleep,
                   "Every switch's longest sleep after 2 s without a frame (fewer wake-ups of an "
                   "idle fabric; `start` wakes the switches first); '' for none")
      ->check(conf::sleep_cap_check("none"))
      ->capture_default_str();
  up_cmd
      ->add_option("--rt-priority", up->rt_priority,
                   "Every process's data path in SCHED_RR at this priority, so that a process "
                   "woken for a frame or a shaper slot runs before the machine's other work "
                   "and its sleeps end on time (every process sleeps when idle; 0: the fair "
                   "scheduler only, with --nice; -1: 1 over veth, 0 over memif and vhost)")
      ->check(CLI::Range(-1, 49))
      ->capture_default_str();
  up_cmd->add_option("--dir", up->dir,
                     "The fabric's folder: state, memif sockets, logs, results (default "
                     "/run/spraylab/<name>)");
  up_cmd->final_callback([up, exit_code] {
    // Before any namespace exists: processes and memory against the machine (size_guard.h).
    const FabricSize size =
        estimate_size(conf::load_experiment_file(up->experiment), Mode::kNamespaced);
    namespaced::check_process_count(size.processes, up->experiment);
    check_fits(size, Mode::kNamespaced, "fabric up " + up->experiment);
    fmt::print(stderr, "fabric up: {}\n", describe(size, Mode::kNamespaced));
    *exit_code = namespaced::up(*up);
  });
}

struct Target {
  std::string name, dir;
  double cpu_seconds = 0, timeout = 300;
  bool again = false;
};
void add_target(CLI::App* cmd, Target& t) {
  cmd->add_option("name", t.name, "The fabric's name (default: the one fabric that is up)");
  cmd->add_option("--dir", t.dir, "The fabric's folder (default /run/spraylab/<name>)");
}

void add_status(CLI::App* fabric, int* exit_code) {
  auto st = std::make_shared<Target>();
  auto* st_cmd = fabric->add_subcommand("status", "Processes, links and queue depths");
  add_target(st_cmd, *st);
  st_cmd->add_option("--cpu", st->cpu_seconds,
                     "Also measure each process's CPU over this many seconds");
  st_cmd->final_callback([st, exit_code] {
    *exit_code = namespaced::status(namespaced::default_dir_of(st->name, st->dir), st->cpu_seconds);
  });
}

void add_start(CLI::App* fabric, int* exit_code) {
  auto go = std::make_shared<Target>();
  auto* go_cmd = fabric->add_subcommand(
      "start", "Start the workload on every generator at once, wait, print what they report");
  add_target(go_cmd, *go);
  go_cmd->add_option("--timeout", go->timeout, "Seconds to wait for the generators")
      ->capture_default_str();
  go_cmd->add_flag("--again", go->again, "Afterwards start fresh generators for another run");
  go_cmd->final_callback([go, exit_code] {
    *exit_code =
        namespaced::start(namespaced::default_dir_of(go->name, go->dir), go->timeout, go->again);
  });
}

void add_export(CLI::App* fabric, int* exit_code) {
  auto ex = std::make_shared<namespaced::ExportOptions>();
  ex->fabric.links = namespaced::LinkKind::kVeth;
  auto* ex_cmd = fabric->add_subcommand(
      "export",
      "Write the fabric as a containerlab topology (one linux node per switch and per leaf's "
      "hosts, veth links, the namespaced fabric's command lines), its node image's Dockerfile "
      "and a Prometheus discovery file (docs/fabric.md)");
  add_fabric_options(ex_cmd, ex->fabric);
  ex_cmd->add_option("--containerlab", ex->out_dir, "The folder to write")->required();
  ex_cmd->add_option("--image", ex->image, "The node image")->capture_default_str();
  ex_cmd->final_callback([ex, exit_code] { *exit_code = namespaced::export_containerlab(*ex); });
}

void add_down(CLI::App* fabric, int* exit_code) {
  auto dn = std::make_shared<Target>();
  auto* dn_cmd = fabric->add_subcommand(
      "down", "Remove every process, namespace, socket, runtime and hugepage file of a fabric");
  add_target(dn_cmd, *dn);
  dn_cmd->final_callback([dn, exit_code] { *exit_code = namespaced::down(dn->name, dn->dir); });
}

}  // namespace

void add_fabric_command(CLI::App& app, int* exit_code) {
  auto* fabric = app.add_subcommand(
      "fabric",
      "One process per node in network namespaces: spraylab-switch per switch, spraylab-gen per "
      "leaf's hosts, memif, veth or vhost-user links (docs/fabric.md)");
  fabric->require_subcommand(1);
  add_up(fabric, exit_code);
  add_status(fabric, exit_code);
  add_start(fabric, exit_code);
  add_export(fabric, exit_code);
  add_down(fabric, exit_code);
}

}  // namespace spraylab::fabric
