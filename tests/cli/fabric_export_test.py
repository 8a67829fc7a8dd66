#!/usr/bin/env python3
"""`spraylab fabric export --containerlab DIR` (issue 15; docs/fabric.md, "containerlab").

Cases:
  the demo validates against containerlab's schema
                                  the topology file of the demo (k = 4 fat tree) validates against
                                  containerlab's published JSON schema (tests/cli/containerlab/,
                                  source named there); a file with a key the schema does not know
                                  fails the same validation, so the check can fail.
  every link end is a port of its node's command line
                                  20 switch nodes and 8 generator nodes; 48 links; each endpoint
                                  ethN of a node is exactly one net_af_xdp port iface=ethN of that
                                  node's command, and every such port is on exactly one link; the
                                  commands read the bound experiment, which loads.
  the discovery file names every node
                                  prometheus-targets.json: one target per node with the labels
                                  fabric, node and role.
  a bad experiment is exit 2      a misspelt key: the loader's line and column, nothing written.
  what the fabric cannot run is refused; a stale start file removed
                                  per-link rates (explicit.yaml), links within a level
                                  (dragonfly.yaml), events that need rerouting (link-events.yaml):
                                  exit 2 naming the file, nothing written; link events it can run
                                  are said not to be applied; an earlier run/start is removed.
  nodes wait for their links      the image's entry point (fabric/namespaced/clab/if-wait.sh)
                                  runs the node's command only once eth1 .. eth<CLAB_INTFS> exist.
"""
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, run_cases, check  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.abspath(os.path.join(ARGS.build, "fabric", "spraylab"))
DEMO = os.path.join(ARGS.source, "conf", "examples", "demo.yaml")
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "containerlab",
                      "clab.schema.json")


def export(out, *extra):
    return subprocess.run([SPRAYLAB, "fabric", "export", DEMO, "--containerlab", out,
                           "--algorithm", "ofan", *extra], capture_output=True, text=True,
                          timeout=120)


def exported(t):
    out = os.path.join(t, "clab")
    r = export(out)
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr}")
    with open(os.path.join(out, "demo.clab.yml")) as f:
        return out, yaml.safe_load(f)


def validates_against_the_schema(_args):
    with open(SCHEMA) as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema)
    with tempfile.TemporaryDirectory() as t:
        _, topo = exported(t)
        errors = [e.message for e in validator.iter_errors(topo)]
        check(not errors, errors[:5])
        bad = dict(topo, topolgy=topo["topology"])  # a misspelt key
        check(any(validator.iter_errors(bad)), "the schema accepted an unknown top-level key")
        return f"{len(topo['topology']['nodes'])} nodes valid"


def link_ends_are_ports(_args):
    with tempfile.TemporaryDirectory() as t:
        out, topo = exported(t)
        nodes, links = topo["topology"]["nodes"], topo["topology"]["links"]
        roles = [n["labels"]["spraylab.role"] for n in nodes.values()]
        check(roles.count("switch") == 20 and roles.count("gen") == 8, roles)
        check(len(links) == 48, f"{len(links)} links")
        ports = {name: re.findall(r"net_af_xdp\d+,iface=(eth\d+),", n["cmd"])
                 for name, n in nodes.items()}
        ends = {}
        for link in links:
            for end in link["endpoints"]:
                node, iface = end.split(":")
                check(iface in ports[node], f"{end}: {node}'s command has no port on {iface}")
                ends.setdefault(node, []).append(iface)
        for name, ifaces in ports.items():
            check(sorted(ifaces) == sorted(ends.get(name, [])),
                  f"{name}: ports {ifaces}, link ends {ends.get(name)}")
            check(len(set(ifaces)) == len(ifaces), f"{name}: an interface twice")
            check("--config /spraylab/run/experiment.yaml" in nodes[name]["cmd"], name)
        bound = os.path.join(out, "run", "experiment.yaml")
        with open(bound) as f:
            payload = yaml.safe_load(f)["workload"]["payload"]
        check(payload == 1400, f"payload {payload}: an af_xdp frame on a 1500-byte MTU needs <= 1400")
        r = subprocess.run([SPRAYLAB, "run", bound, "-n"], capture_output=True, text=True,
                           cwd=t, timeout=60)
        check(r.returncode == 0 and r.stdout.startswith("ofan"), r.stdout + r.stderr)
        return f"{sum(len(p) for p in ports.values())} ports on {len(links)} links"


def discovery_file_names_every_node(_args):
    with tempfile.TemporaryDirectory() as t:
        out, topo = exported(t)
        with open(os.path.join(out, "prometheus-targets.json")) as f:
            targets = json.load(f)
        names = sorted(g["labels"]["node"] for g in targets)
        check(names == sorted(topo["topology"]["nodes"]), names)
        for g in targets:
            check(set(g["labels"]) == {"fabric", "node", "role"}, g)
            check(g["targets"] == [f"clab-demo-{g['labels']['node']}:" +
                                   ("9561" if g["labels"]["role"] == "switch" else "9562")], g)
        return f"{len(targets)} targets"


def bad_experiment_is_exit_2(_args):
    with tempfile.TemporaryDirectory() as t:
        with open(DEMO) as f:
            text = f.read()
        bad = os.path.join(t, "bad.yaml")
        with open(bad, "w") as f:
            f.write(text.replace("message_size:", "mesage_size:"))
        out = os.path.join(t, "clab")
        r = subprocess.run([SPRAYLAB, "fabric", "export", bad, "--containerlab", out],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 2 and "bad.yaml:" in r.stderr and "mesage_size" in r.stderr,
              f"exit {r.returncode}: {r.stderr}")
        check(not os.path.exists(out), "files written for a bad experiment")


def bad_process_options_are_exit_2(_args):
    # Checked before a command is written (and, for fabric up, before a namespace exists): the
    # values went into every node's command line and each process refused them at start-up.
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, "clab")
        for option, value, needle in (("--idle-sleep", "banana", "expected a time from 1us to 1s"),
                                      ("--idle-sleep", "5s", "found 5s"),
                                      ("--link-timeout", "-5", "expected a positive number"),
                                      ("--run-timeout", "0", "expected a positive number"),
                                      ("--algorithm", "ofna", "--algorithm ofna: expected one of ecmp"),
                                      ("--algorithms", "ofann", "found ofann; did you mean 'ofan'?"),
                                      ("--algorithms", "ofan,ecmp", "a fabric runs one load balancer")):
            r = subprocess.run([SPRAYLAB, "fabric", "export", DEMO, "--containerlab", out,
                                option, value], capture_output=True, text=True, timeout=60)
            check(r.returncode == 2 and needle in r.stderr,
                  f"{option} {value}: exit {r.returncode}: {r.stderr}")
            check(not os.path.exists(out), f"{option} {value}: files written")
        # `run` spells it --algorithms: both spellings take one balancer (issue 43, point 4).
        r = subprocess.run([SPRAYLAB, "fabric", "export", DEMO, "--containerlab", out,
                            "--algorithms", "rps"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"--algorithms rps: exit {r.returncode}: {r.stderr}")
        with open(os.path.join(out, "run", "experiment.yaml")) as f:
            check("algorithm: rps" in f.read(), "--algorithms rps not in the exported experiment")
        shutil.rmtree(out)
        r = subprocess.run([SPRAYLAB, "fabric", "export", DEMO, "--containerlab", out,
                            "--idle-sleep", ""], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"--idle-sleep '' (busy polling): exit {r.returncode}: {r.stderr}")


def what_the_fabric_cannot_run_is_refused_and_a_stale_start_removed(_args):
    # The export carried files the namespaced fabric refuses (its error said "fabric up:"), kept
    # an earlier deployment's run/start (which releases the generators at once, unsynchronised),
    # and carried link events that no deployment applies without a word.
    examples = os.path.join(ARGS.source, "conf", "examples")
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, "clab")
        for name, needle in (("explicit.yaml", "per-link rates or delays"),
                             ("dragonfly.yaml", "are switches of one level"),
                             ("link-events.yaml", "events.reroute")):
            path = os.path.join(examples, name)
            r = subprocess.run([SPRAYLAB, "fabric", "export", path, "--containerlab", out,
                                "--algorithm", "ecmp"], capture_output=True, text=True,
                               timeout=60)
            check(r.returncode == 2 and f"spraylab: {path}: " in r.stderr and needle in r.stderr
                  and "fabric up" not in r.stderr, (name, r.returncode, r.stderr[-400:]))
            check(not os.path.exists(out), f"{name}: files written")
        with open(os.path.join(examples, "link-events.yaml")) as f:
            text = f.read()
        check("events:\n" in text, "link-events.yaml changed: update this test")
        quiet = os.path.join(t, "events.yaml")
        with open(quiet, "w") as f:
            f.write(text.replace("events:\n", "events:\n  reroute: false\n", 1))
        os.makedirs(os.path.join(out, "run"))
        with open(os.path.join(out, "run", "start"), "w") as f:
            f.write("1700000000\n")
        r = subprocess.run([SPRAYLAB, "fabric", "export", quiet, "--containerlab", out,
                            "--algorithm", "ecmp"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and "link events (events:) are not applied" in r.stderr,
              (r.returncode, r.stderr[-400:]))
        check(not os.path.exists(os.path.join(out, "run", "start")), "a stale run/start is kept")


def nodes_wait_for_their_links(_args):
    # containerlab attaches a node's eth1.. after its container starts: the image's entry point
    # waits for CLAB_INTFS of them before it runs the node's command (a switch started first found
    # no interface for its af_xdp ports and exited).
    script = os.path.join(ARGS.source, "fabric", "namespaced", "clab", "if-wait.sh")
    with tempfile.TemporaryDirectory() as t:
        out, _ = exported(t)
        with open(os.path.join(out, "Dockerfile")) as f:
            docker = f.read()
        check("fabric/namespaced/clab/if-wait.sh /usr/local/bin/spraylab-if-wait" in docker
              and 'ENTRYPOINT ["/usr/local/bin/spraylab-if-wait"]' in docker, docker)
        net = os.path.join(t, "net")
        os.makedirs(os.path.join(net, "eth1"))
        env = dict(os.environ, SPRAYLAB_IF_WAIT_NET=net, CLAB_INTFS="2")
        p = subprocess.Popen(["sh", script, "sh", "-c", "echo ran $0", "node"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            p.wait(timeout=0.5)
            check(False, "ran before eth2 appeared: " + p.stdout.read())
        except subprocess.TimeoutExpired:
            pass
        os.makedirs(os.path.join(net, "eth2"))
        stdout, stderr = p.communicate(timeout=30)
        check(p.returncode == 0 and stdout == "ran node\n", (p.returncode, stdout, stderr))
        for intfs, code, needle in (("0", 0, "ran node"), ("two", 2, "not a count")):
            r = subprocess.run(["sh", script, "sh", "-c", "echo ran $0", "node"],
                               env=dict(env, CLAB_INTFS=intfs), capture_output=True, text=True,
                               timeout=30)
            check(r.returncode == code and needle in r.stdout + r.stderr, (intfs, r))


CASES = [
    ("the demo validates against containerlab's schema", validates_against_the_schema, ()),
    ("every link end is a port of its node's command line", link_ends_are_ports, ()),
    ("the discovery file names every node", discovery_file_names_every_node, ()),
    ("a bad experiment is exit 2", bad_experiment_is_exit_2, ()),
    ("bad process options are exit 2", bad_process_options_are_exit_2, ()),
    ("what the fabric cannot run is refused; a stale start file removed",
     what_the_fabric_cannot_run_is_refused_and_a_stale_start_removed, ()),
    ("nodes wait for their links", nodes_wait_for_their_links, ()),
]
sys.exit(run_cases(ARGS, CASES))
