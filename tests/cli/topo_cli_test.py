#!/usr/bin/env python3
"""`spraylab topo` as a user runs it: the JSON interface, files, checks and errors."""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, check, run_cases  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.join(ARGS.build, "fabric", "spraylab")
KEYS = ["hosts", "leaves", "spines", "switches", "links", "radix", "diameter", "diameter_all",
        "avg_distance", "capacity", "avg_switch_degree", "cost_links_per_host",
        "cost_switches_per_host", "corners"]
# The MRLS paper's compared topologies (§5, Table 2) at toy sizes, and their closed forms.
COMPARED = [
    (["dragonfly", "--p", "2", "--a", "4", "--h", "2"],  # 9 groups
     {"hosts": 72, "switches": 36, "links": 9 * 6 + 9 * 4, "radix": 7, "diameter": 3}),
    (["dragonfly-plus", "--leaves", "4", "--spines", "2", "--hosts-per-leaf", "2", "--h", "2"],
     {"hosts": 40, "switches": 30, "links": 5 * 8 + 5 * 2, "radix": 6, "diameter": 3}),
    (["oft", "--q", "3", "--hosts-per-leaf", "4"],
     {"hosts": 104, "switches": 39, "links": 104, "radix": 8, "diameter": 2}),
]


def run(*args):
    return subprocess.run([SPRAYLAB, *args], capture_output=True, text=True, timeout=120)


def stats_json_has_every_key(_args):
    for args in (["mrls", "--leaves", "14", "--uplinks", "3", "--downlinks", "3", "--seed", "2"],
                 ["fat-tree", "--k", "8", "--levels", "3"]):
        p = run("topo", "stats", *args, "--json")
        check(p.returncode == 0, p.stderr)
        j = json.loads(p.stdout)
        missing = [k for k in KEYS if k not in j]
        check(not missing, f"missing {missing}")
    check(j["hosts"] == 128 and j["switches"] == 80, j)


def gen_writes_a_file_that_stats_and_check_read(_args):
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "m.yaml")
        p = run("topo", "gen", "mrls", "--leaves", "24", "--uplinks", "4", "--downlinks", "4", "-o", f)
        check(p.returncode == 0, p.stderr)
        a = json.loads(run("topo", "stats", f, "--json").stdout)
        b = json.loads(run("topo", "stats", "mrls", "--leaves", "24", "--uplinks", "4", "--downlinks", "4",
                           "--json").stdout)
        for k in KEYS:
            check(a[k] == b[k], f"{k}: file {a[k]} vs generator {b[k]}")
        c = run("topo", "check", f)
        check(c.returncode == 0 and "ok" in c.stdout, c.stdout + c.stderr)


def check_reports_a_disconnected_file(_args):
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "bad.yaml")
        with open(f, "w") as out:
            out.write("topology:\n  switches: [{name: a, level: 0}, {name: b, level: 0}]\n"
                      "  hosts: [h0, h1]\n  links: [[h0, a], [h1, b]]\n")
        p = run("topo", "check", f)
        check(p.returncode != 0 and "disconnected" in p.stderr, p.stdout + p.stderr)
        # Its distances are undefined: null, not the unreachable marker 255 as a diameter.
        j = json.loads(run("topo", "stats", f, "--json").stdout)
        check(j["connected"] is False and j["diameter"] is None and j["diameter_all"] is None
              and j["avg_distance"] is None and j["capacity"] is None and j["corners"] is None, j)
        text = run("topo", "stats", f).stdout
        check(re.search(r"^connected +no$", text, re.M)
              and re.search(r"^diameter D\* \(all\) +—$", text, re.M), text)


def write(d, name, text):
    f = os.path.join(d, name)
    with open(f, "w") as out:
        out.write(text)
    return f


def check_refuses_what_no_workload_or_routing_takes(_args):
    with tempfile.TemporaryDirectory() as d:
        one = write(d, "one.yaml", "topology:\n  switches: [{name: a, level: 0}]\n"
                    "  hosts: [h0]\n  links: [[h0, a]]\n")
        p = run("topo", "check", one)
        check(p.returncode == 1 and "1 host: every workload needs at least 2" in p.stderr,
              (p.returncode, p.stdout, p.stderr))
        # A per-switch balancer for a switch the topology does not have: `run` refuses it at
        # its line, and so does `topo check` (it said ok).
        lb = write(d, "lb.yaml", "topology: {generator: fat-tree, k: 4}\nload_balancer:\n"
                   "  algorithm: ecmp\n  switches:\n    leaf99: {algorithm: rps}\n")
        p = run("topo", "check", lb)
        check(p.returncode == 2 and f"{lb}:5:5: load_balancer.switches.leaf99: no switch named "
              "'leaf99'" in p.stderr, (p.returncode, p.stdout, p.stderr))
        # 256 switches in a line: the ends are 255 hops apart, more than a distance's byte holds
        # (the BFS queued them again past its end: heap corruption).
        names = [f"s{i}" for i in range(256)]
        chain = write(d, "chain.yaml", "topology:\n  switches: [" +
                      ", ".join(f"{{name: {n}, level: 0}}" for n in names) +
                      "]\n  hosts: [h0, h1]\n  links: [[h0, s0], [h1, s255], " +
                      ", ".join(f"[{a}, {b}]" for a, b in zip(names, names[1:])) + "]\n")
        for cmd in (["check", chain], ["stats", chain, "--json", "--no-corners"]):
            p = run("topo", *cmd)
            check(p.returncode == 2 and f"{chain}: switch s0 has switches 255 or more hops away"
                  in p.stderr, (cmd, p.returncode, p.stderr))


def corners_not_looked_for_are_said_so(_args):
    with tempfile.TemporaryDirectory() as d:
        # Two leaves on two spines, and a level-2 switch above one spine: three levels, where
        # Polarized's corner scan does not apply.
        three = write(d, "three.yaml", "topology:\n  switches: [{name: l0, level: 0}, "
                      "{name: l1, level: 0}, {name: s0, level: 1}, {name: s1, level: 1}, "
                      "{name: t, level: 2}]\n  hosts: [h0, h1]\n  links: [[h0, l0], [h1, l1], "
                      "[l0, s0], [l0, s1], [l1, s0], [l1, s1], [s0, t]]\n")
        p = run("topo", "check", three)
        check(p.returncode == 0 and "Polarized corners not scanned" in p.stdout
              and "no corners" not in p.stdout, p.stdout + p.stderr)
        check(json.loads(run("topo", "stats", three, "--json").stdout)["corners"] is None,
              "corners of a 3-level graph")
        j = json.loads(run("topo", "stats", "fat-tree", "--k", "4", "--json", "--no-corners").stdout)
        check(j["corners"] is None, j)
        j = json.loads(run("topo", "stats", "fat-tree", "--k", "4", "--json").stdout)
        check(j["corners"] == 0, j)
        p = run("topo", "check", write(d, "two.yaml", "topology: {generator: fat-tree, k: 4}\n"))
        check(p.returncode == 0 and p.stdout.rstrip().endswith("connected, no corners)"), p.stdout)


def rates_and_delays_take_units_and_out_is_output(_args):
    # As in experiment files and `run --rate`: a unit may be given; a bare number stays Gb/s
    # (--rate) and ns (--delay), as before.
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for name, extra in (("bare", ["--rate", "10", "--delay", "200"]),
                            ("units", ["--rate", "10Gbps", "--delay", "0.2us"])):
            files[name] = os.path.join(d, name + ".yaml")
            p = run("topo", "gen", "fat-tree", "--k", "4", "--levels", "2", *extra,
                    "--out", files[name])
            check(p.returncode == 0, (name, p.stderr))
        texts = [open(files[n]).read().split("\n", 1)[1] for n in ("bare", "units")]
        check(texts[0] == texts[1], texts)
        check("  rate: 10Gbps\n  delay: 200ns\n" in texts[0], texts[0])
    for args, needle in ((["--rate", "fast"], "--rate: expected a number of Gb/s"),
                         (["--rate", "0Gbps"], "--rate: expected a number of Gb/s"),
                         (["--delay", "soon"], "--delay: expected a number of ns from 0 to 2^53")):
        p = run("topo", "gen", "fat-tree", *args, "-o", os.devnull)
        check(p.returncode == 2 and needle in p.stderr, (args, p.returncode, p.stderr))


def bad_input_gets_a_precise_error(_args):
    p = run("topo", "stats", "fat-tree", "--k", "5", "--levels", "3")
    check(p.returncode == 2 and "k must be even" in p.stderr, p.stderr)
    p = run("topo", "stats", "mrls", "--leaves", "13", "--uplinks", "3", "--downlinks", "3")
    check(p.returncode == 2 and "not a multiple" in p.stderr, p.stderr)
    # Values the loader would reject in the file written (it was written, exit 0).
    for args, needle in ((["fat-tree", "--rate", "0"], "--rate: expected a number of Gb/s"),
                         (["fat-tree", "--rate", "nan"], "--rate: expected a number of Gb/s"),
                         (["fat-tree", "--delay", "-5"], "--delay: expected a number of ns"),
                         # What the loader refuses is not written (the file did not read back),
                         # and a bare number meant as bit/s (run --rate's) is not 5 Eb/s.
                         (["fat-tree", "--delay", "1e300"], "--delay: expected a number of ns"),
                         (["fat-tree", "--rate", "1e-12"], "--rate: expected a number of Gb/s"),
                         (["fat-tree", "--rate", "0.5bps"], "--rate: expected a number of Gb/s"),
                         (["fat-tree", "--rate", "5e9"],
                          "found 5e9: a bare number above 100000 is taken for a mistake; give "
                          "the unit"),
                         (["mrls", "--seed", "-1"],
                          "--seed: expected an integer in [0, 18446744073709551615], found -1"),
                         # 2^64: clamped to 2^64 - 1 before; 0 stood for the default below.
                         (["mrls", "--seed", "18446744073709551616"],
                          "--seed: expected an integer in [0, 18446744073709551615]"),
                         (["mrls", "--max-tries", "0"],
                          "--max-tries: expected an integer in [1, 4294967295], found 0"),
                         (["fat-tree", "--k", "4", "--levels", "4", "--pods", "0"],
                          "--pods: expected an integer in [1, 4294967295], found 0"),
                         (["dragonfly", "--groups", "0"],
                          "--groups: expected an integer in [2, 4294967295], found 0"),
                         # The option's name, not the generator's parameter names.
                         (["dragonfly-plus", "--leaves", "0"],
                          "--leaves: expected an integer in [1, 4294967295], found 0"),
                         (["dragonfly-plus", "--groups", "1"],
                          "--groups: expected an integer in [2, 4294967295], found 1")):
        p = run("topo", "gen", *args, "-o", os.devnull)
        check(p.returncode == 2 and needle in p.stderr, (args, p.returncode, p.stderr))
    # Refused before anything is built (it took minutes and gigabytes).
    p = run("topo", "stats", "fat-tree", "--k", "1000", "--levels", "3")
    check(p.returncode == 2 and "250000000 hosts, more than the 4194304 supported" in p.stderr,
          p.stderr)
    # Few hosts, but switches and links without them (the routing table is a byte per pair of
    # switches): refused before the build, which took a machine's memory.
    for args, needle in ((["leaf-spine", "--leaves", "65535", "--spines", "65534", "--hosts-per-leaf", "1"],
                          "links, more than the 16777216 supported"),
                         (["mrls", "--leaves", "3000000", "--uplinks", "2", "--downlinks", "1"],
                          "5000000 switches, more than the 131072 supported")):
        p = run("topo", "stats", *args)
        check(p.returncode == 2 and needle in p.stderr, (args, p.returncode, p.stderr))
    # A mistyped command or generator is named (CLI11 said "A subcommand is required", or that
    # the generator's options were not expected).
    for args, needle in ((["generate"], "spraylab topo: unknown command 'generate'; expected one "
                          "of: gen, stats, check"),
                         (["gen", "fattree", "--k", "4"], "spraylab topo gen: unknown command "
                          "'fattree'; expected one of: fat-tree, leaf-spine, mrls"),
                         (["stats", "fattree", "--k", "4"], "spraylab topo stats: unknown command "
                          "or file 'fattree'; expected a FILE or one of: fat-tree"),
                         # Too long for a path: the file test must not throw (it aborted).
                         (["stats", "a" * 300], "spraylab topo stats: unknown command or file")):
        p = run("topo", *args)
        check(p.returncode == 2 and needle in p.stderr, (args, p.returncode, p.stderr))
    # A draw that fails from a file names the file (it said only "mrls: no valid wiring").
    with tempfile.TemporaryDirectory() as d:
        f = write(d, "m.yaml", "topology: {generator: mrls, leaves: 8, uplinks: 2, downlinks: 2, "
                  "max_tries: 1, seed: 1}\n")
        p = run("topo", "check", f)
        check(p.returncode == 2 and f"{f}: topology: mrls: no valid wiring in 1 draws" in p.stderr,
              (p.returncode, p.stderr))
    p = run("topo", "stats", "/nonexistent.yaml")
    check(p.returncode == 2 and "/nonexistent.yaml" in p.stderr, p.stderr)
    p = run("topo", "stats")
    check(p.returncode != 0 and "FILE or a generator" in p.stderr, p.stderr)


def algorithms_lists_every_documented_balancer(_args):
    names = run("algorithms", "--names")
    check(names.returncode == 0, names.stderr)
    listed = names.stdout.split()
    table = json.loads(run("algorithms", "--json").stdout)
    check([a["name"] for a in table] == listed, (table, listed))
    check(len(set(listed)) == len(listed) >= 10, listed)
    check("ofan" in listed and "polarized" in listed, listed)
    docs = open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                             "docs", "configuration.md")).read()
    undocumented = [n for n in listed if f"| `{n}` |" not in docs]
    check(not undocumented, f"not in docs/configuration.md's table: {undocumented}")
    psp = next(a for a in table if a["name"] == "psp")
    check(psp["reads_queue_depths"] and "state_update" in psp["keys"], psp)
    p = run("algorithms", "--json", "--names")
    check(p.returncode == 2, p.stdout)


def compared_topologies_have_their_closed_forms_and_costs(_args):
    for args, expected in COMPARED:
        p = run("topo", "stats", *args, "--json")
        check(p.returncode == 0, (args, p.stderr))
        j = json.loads(p.stdout)
        check(j["kind"] == args[0], (args, j["kind"]))
        for key, value in expected.items():
            check(j[key] == value, (args, key, j[key], value))
        # Eq. 2-3: M/S and N/S.
        check(abs(j["cost_links_per_host"] - j["links"] / j["hosts"]) < 1e-12, j)
        check(abs(j["cost_switches_per_host"] - j["switches"] / j["hosts"]) < 1e-12, j)
        text = run("topo", "stats", *args)
        check(text.returncode == 0 and "links per host M/S (Eq.2)" in text.stdout
              and "switches per host N/S (Eq.3)" in text.stdout, text.stdout)


def compared_topologies_write_files_that_read_back(_args):
    with tempfile.TemporaryDirectory() as d:
        for args, _ in COMPARED:
            f = os.path.join(d, args[0] + ".yaml")
            p = run("topo", "gen", *args, "-o", f)
            check(p.returncode == 0, (args, p.stderr))
            a = json.loads(run("topo", "stats", f, "--json").stdout)
            b = json.loads(run("topo", "stats", *args, "--json").stdout)
            for k in KEYS:
                check(a[k] == b[k], f"{args[0]} {k}: file {a[k]} vs generator {b[k]}")


def compared_topologies_refuse_bad_parameters(_args):
    for args, needle in ((["oft", "--q", "4"], "oft: q = 4 is not prime"),
                         (["oft", "--q", "9", "--hosts-per-leaf", "3"], "q = 9 is not prime"),
                         (["dragonfly", "--p", "0"], "--p: expected an integer in [1, 4294967295], found 0"),
                         (["dragonfly", "--a", "4", "--h", "2", "--groups", "4"],
                          "groups - 1 = 3 must divide a·h = 8"),
                         (["dragonfly-plus", "--spines", "4", "--h", "2", "--groups", "10"],
                          "groups must be between 2 and spines·h + 1 = 9 (one global link per pair "
                          "of groups), got 10")):
        p = run("topo", "stats", *args)
        check(p.returncode == 2 and needle in p.stderr, (args, p.returncode, p.stderr))


def compared_topology_examples_run_in_virtual_time(_args):
    # conf/examples/dragonfly.yaml (2 groups) and oft.yaml (q = 2): a permutation completes.
    with tempfile.TemporaryDirectory() as d:
        for name in ("dragonfly", "oft"):
            example = os.path.join(ARGS.source, "conf", "examples", name + ".yaml")
            out = os.path.join(d, name)
            p = run("run", example, "--mode", "virtual", "--out", out)
            check(p.returncode == 0, (name, p.stdout, p.stderr))
            with open(os.path.join(out, "ecmp", "summary.json")) as f:
                summary = json.load(f)
            check(summary, (name, summary))


def stats_kind_is_the_generator(_args):
    for gen in (["fat-tree", "--k", "4"], ["leaf-spine", "--leaves", "4", "--spines", "2"],
                ["mrls", "--leaves", "14", "--uplinks", "3", "--downlinks", "3"]):
        j = json.loads(run("topo", "stats", *gen, "--json").stdout)
        check(j["kind"] == gen[0], (gen, j["kind"]))


CASES = [
    ("stats --json has every key", stats_json_has_every_key, ()),
    ("gen -o writes a file that stats and check read",
     gen_writes_a_file_that_stats_and_check_read, ()),
    ("check reports a disconnected file", check_reports_a_disconnected_file, ()),
    ("check refuses what no workload or routing takes",
     check_refuses_what_no_workload_or_routing_takes, ()),
    ("corners not looked for are said so", corners_not_looked_for_are_said_so, ()),
    ("bad input gets a precise error", bad_input_gets_a_precise_error, ()),
    ("rates and delays take units; --out is --output",
     rates_and_delays_take_units_and_out_is_output, ()),
    ("algorithms lists every documented balancer", algorithms_lists_every_documented_balancer, ()),
    ("stats kind is the generator", stats_kind_is_the_generator, ()),
    ("compared topologies have their closed forms and costs",
     compared_topologies_have_their_closed_forms_and_costs, ()),
    ("compared topologies write files that read back",
     compared_topologies_write_files_that_read_back, ()),
    ("compared topologies refuse bad parameters", compared_topologies_refuse_bad_parameters, ()),
    ("compared topology examples run in virtual time",
     compared_topology_examples_run_in_virtual_time, ()),
]
status = run_cases(ARGS, CASES)
sys.exit(status)
