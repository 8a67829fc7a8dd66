#!/usr/bin/env python3
"""`spraylab run` as a user types it: the help, the variants it plans, and precise errors for bad
input (exit code 2). Nothing here starts a fabric; run_determinism_test.py does."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, check, run_cases  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.join(ARGS.build, "fabric", "spraylab")
DEMO = os.path.join(ARGS.source, "conf", "examples", "demo.yaml")


def run(*args):
    return subprocess.run([SPRAYLAB, *args], capture_output=True, text=True, timeout=120)


def help_lists_every_option(_args):
    p = run("run", "--help")
    check(p.returncode == 0, p.stderr)
    for option in ["--mode", "--algorithms", "--sweep", "--set", "--out", "--lcores", "--timeout",
                   "--threads", "--dry-run", "virtual", "inprocess", "experiment"]:
        check(option in p.stdout, f"{option} missing from:\n{p.stdout}")
    top = run("--help")
    check(top.returncode == 0 and "run" in top.stdout, top.stdout)


def dry_run_crosses_algorithms_and_sweeps(_args):
    p = run("run", DEMO, "--dry-run", "--algorithms", "ecmp,ofan",
            "--sweep", "workload.message_size=64KB,1MB", "--sweep", "links.rate=10Gbps,25Gbps")
    check(p.returncode == 0, p.stderr)
    names = [line.split()[0] for line in p.stdout.splitlines() if line and not line.startswith(" ")]
    expected = [f"{a}-message_size={m}-rate={r}" for a in ("ecmp", "ofan")
                for m in ("64KB", "1MB") for r in ("10Gbps", "25Gbps")]
    check(names == expected, names)


def options_may_come_before_the_experiment(_args):
    # A comma-separated option takes one word: `--algorithms ecmp,ofan FILE` must not read FILE as
    # a third balancer (and then say the experiment is missing).
    for option, expected in ((["--algorithms", "ecmp,ofan"], ["ecmp", "ofan"]),
                             (["--sweep", "links.rate=10Gbps,25Gbps"], ["ofan-rate=10Gbps", "ofan-rate=25Gbps"]),
                             (["--set", "seed=3"], ["ofan"])):
        p = run("run", *option, DEMO, "--dry-run")
        check(p.returncode == 0, (option, p.stderr))
        names = [line.split()[0] for line in p.stdout.splitlines()
                 if line and not line.startswith(" ")]
        check(names == expected, (option, names))
    # Space-separated balancers are not a list: 'ofan' takes the experiment's place and the file
    # is one argument too many.
    p = run("run", "--algorithms", "ecmp", "ofan", DEMO, "--dry-run")
    check(p.returncode == 2 and "not expected" in p.stderr, (p.returncode, p.stdout, p.stderr))


def dry_run_writes_nothing(_args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        p = run("run", DEMO, "--dry-run", "--out", out)
        check(p.returncode == 0, p.stderr)
        check(not os.path.exists(out), os.listdir(d))


def bad_sweep_key_is_the_loaders_error_naming_the_sweep(_args):
    p = run("run", DEMO, "--dry-run", "--sweep", "workload.mesage_size=64KB")
    check(p.returncode == 2, (p.returncode, p.stderr))
    # demo.yaml:LINE:COL: the key path, the loader's message, and where it came from.
    first = p.stderr.strip().splitlines()[0]
    check(first.startswith(f"spraylab: {DEMO}:"), first)
    location = first[len(f"spraylab: {DEMO}:"):].split(":")[:2]
    check(all(part.isdigit() for part in location), first)
    check("unknown key 'mesage_size'" in first and "did you mean 'message_size'" in first, first)
    check("--sweep workload.mesage_size=64KB" in first, first)


def bad_sweep_value_points_at_the_value_in_the_file(_args):
    p = run("run", DEMO, "--dry-run", "--sweep", "links.rate=10Gbps,fast")
    check(p.returncode == 2, (p.returncode, p.stderr))
    with open(DEMO) as f:
        lines = f.read().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.strip().startswith("rate:"))
    column = lines[line - 1].index("100Gbps") + 1
    check(f"{DEMO}:{line}:{column}: links.rate:" in p.stderr, p.stderr)
    check("found fast" in p.stderr and "--sweep links.rate=fast" in p.stderr, p.stderr)


def switch_with_too_many_ports_is_refused_before_eal(_args):
    # A 3-level k = 200 fat tree: edge switches of 200 ports. Checked before EAL, which for a
    # fabric this large was first asked for 160 GB and failed with "Cannot allocate memory".
    with open(DEMO) as f:
        text = f.read()
    check("  k: 4\n" in text and "  levels: 3\n" in text, "demo.yaml changed: update this test")
    with tempfile.TemporaryDirectory() as d:
        exp = os.path.join(d, "k200.yaml")
        with open(exp, "w") as f:
            f.write(text.replace("  k: 4\n", "  k: 200\n"))
        out = os.path.join(d, "out")
        p = run("run", exp, "--out", out)
        check(p.returncode == 2, (p.returncode, p.stderr))
        check("topology: its fat-tree generator gives a switch of 200 ports; at most 128 are "
              "supported" in p.stderr, p.stderr)
        check("EAL" not in p.stderr and not os.path.exists(out), p.stderr)
        # Said from the parameters, before the build: an MRLS of radix 2000 was built first
        # (4000 leaves: seconds and hundreds of MB), then refused.
        mrls = os.path.join(d, "mrls.yaml")
        with open(mrls, "w") as f:
            f.write("topology: {generator: mrls, leaves: 4000, uplinks: 1000, downlinks: 1000}\n")
        p = run("run", mrls, "-n")
        check(p.returncode == 2 and "its mrls generator gives a switch of 2000 ports; at most "
              "128 are supported" in p.stderr, (p.returncode, p.stderr))


def bad_input_exits_2_with_a_precise_error(_args):
    checks = [
        (["run", "/nonexistent.yaml"], "/nonexistent.yaml"),
        (["run", DEMO, "--mode", "real"], "--mode"),
        (["run", DEMO, "--sweep", "workload.message_size"], "KEY=VALUE"),
        (["run", DEMO, "--set", "workload.message_size"],
         "--set 'workload.message_size': expected KEY=VALUE, e.g. measurement.queue_sample=10us"),
        (["run", DEMO, "--sweep", "seed=1,1"], "listed twice"),
        (["run", DEMO, "--algorithms", "ofna", "--dry-run"], "--algorithms ofna"),
        (["run", DEMO, "--timeout", "0", "--dry-run"], "--timeout: expected a positive number, found 0"),
        (["run", DEMO, "--out", "", "--dry-run"], "--out: expected a path, found ''"),
        (["topo", "gen", "fat-tree", "-o", ""], "--output: expected a path, found ''"),
        (["bogus"], "unknown command 'bogus'; expected a command: topo, algorithms, run"),
        (["--bogus"], "unknown option '--bogus'"),
        (["run", DEMO, "--sweep", "load_balancer.algorithm=rps"], "--algorithms"),
        (["run", DEMO, "--set", "links.rate=1G,2G"], "one value"),
        (["run", DEMO, "--frobnicate"], "frobnicate"),
        (["run"], "experiment"),
        (["run", DEMO, "--rate", "5Gbps", "-n"], "--rate is for --mode inprocess"),
        (["run", DEMO, "--mode", "inprocess", "--rate", "fast", "-n"], "--rate fast"),
        (["run", DEMO, "--mode", "inprocess", "--rate", "2Gbps", "--set", "links.rate=1Gbps",
          "-n"], "give one"),
        (["run", DEMO, "--max-clock", "soon", "-n"], "--max-clock soon"),
        (["run", DEMO, "--lcores", "3", "-n"], "--lcores is for --mode inprocess"),
        (["run", DEMO, "--mode", "inprocess", "--threads", "2", "-n"],
         "--threads is for --mode virtual"),
        (["run", DEMO, "--threads", "0", "-n"], "--threads"),
        (["run", DEMO, "--rt-priority", "1", "-n"], "--rt-priority are for --mode namespaced"),
        (["run", DEMO, "--mode", "namespaced", "--rt-priority", "50", "-n"], "--rt-priority"),
    ]
    for args, needle in checks:
        p = run(*args)
        check(p.returncode == 2, f"{args}: exit {p.returncode}, {p.stderr}")
        check(needle in p.stderr, f"{args}: {needle!r} not in {p.stderr!r}")


def a_workload_too_large_to_build_is_refused_not_aborted(_args):
    # iterations x messages past the 32-bit message ids wrapped them (and the schedule's reserve
    # threw std::bad_alloc, an abort with exit 134); a uniform workload of 4e9 messages the same.
    with tempfile.TemporaryDirectory() as d:
        with open(DEMO) as f:
            text = f.read()
        check("workload:\n  type: permutation\n" in text, "demo.yaml changed: update this test")
        for name, workload, needle in (
                ("iters", "workload:\n  type: permutation\n  iterations: 4000000000\n",
                 "workload.iterations: 4000000000 iterations x 16 messages = 64000000000 messages"),
                ("uniform", "workload:\n  type: uniform\n  messages: 4000000000\n",
                 "spraylab: out of memory building the experiment")):
            path = os.path.join(d, name + ".yaml")
            with open(path, "w") as f:
                f.write(text.replace("workload:\n  type: permutation\n", workload))
            p = run("run", path, "-n")
            check(p.returncode == 2, (name, p.returncode, p.stderr[-500:]))
            check(needle in p.stderr, (name, p.stderr[-500:]))
            check("terminate called" not in p.stderr, p.stderr[-500:])


def a_workload_key_the_hosts_rule_out_is_refused_at_its_line(_args):
    # incast's fan_in must be below the host count: a sweep of k that leaves 8 hosts makes 10
    # senders impossible. It was found when the schedule was built, after the fabric, with no
    # line and no variant; now the loader says it at the key, naming the sweep's value.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "incast.yaml")
        with open(path, "w") as f:
            f.write("topology: {generator: fat-tree, k: 6}\n"
                    "load_balancer: {algorithm: ecmp}\n"
                    "workload:\n  type: incast\n  fan_in: 10\n")
        p = run("run", path, "-n")
        check(p.returncode == 0, (p.returncode, p.stderr[-500:]))
        # The file is a template: a file its variants make valid runs (k = 4 with fan_in: 10,
        # run at k = 6 and 8) is not refused for what it says before they change it.
        small = os.path.join(d, "small.yaml")
        with open(small, "w") as f:
            f.write("topology: {generator: fat-tree, k: 4}\n"
                    "load_balancer: {algorithm: ecmp}\n"
                    "workload:\n  type: incast\n  fan_in: 10\n")
        for extra in (("--set", "topology.k=6"), ("--sweep", "topology.k=6,8"),
                      ("--sweep", "workload.fan_in=2,4")):
            p = run("run", small, "-n", *extra)
            check(p.returncode == 0, (extra, p.returncode, p.stderr[-500:]))
        p = run("run", path, "-n", "--sweep", "topology.k=6,4")
        check(p.returncode == 2, (p.returncode, p.stderr[-500:]))
        check(f"{path}:5:11: workload.fan_in: incast's fan_in must be in 1..7 with the "
              "topology's 8 hosts (one rank each), found 10" in p.stderr, p.stderr[-500:])
        check("--sweep topology.k=4" in p.stderr, p.stderr[-500:])


def a_per_switch_balancer_must_name_a_switch_of_the_generated_topology(_args):
    # Checked for explicit topologies only: on a generated one a typo'd or foreign name (leaf0 on a
    # fat tree, whose switches are edge*, agg*, core*) made the override silently do nothing.
    with tempfile.TemporaryDirectory() as d:
        with open(DEMO) as f:
            text = f.read()
        check("load_balancer:\n  algorithm: ofan\n" in text, "demo.yaml changed: update this test")
        line = text[:text.index("load_balancer:")].count("\n") + 3
        for name, guess in (("leaf0", "expected a switch of the fat-tree topology, such as edge0"),
                            ("edge00", "did you mean 'edge0'?"), ("h3", "h3 is a host")):
            path = os.path.join(d, "sw.yaml")
            with open(path, "w") as f:
                f.write(text.replace("load_balancer:\n  algorithm: ofan\n",
                                     "load_balancer:\n  algorithm: ofan\n  switches:\n"
                                     f"    {name}: {{algorithm: ecmp}}\n"))
            p = run("run", path, "-n")
            check(p.returncode == 2, (name, p.returncode, p.stdout, p.stderr))
            check(f"sw.yaml:{line + 1}:" in p.stderr, (name, p.stderr))  # the override's line
            check(f": load_balancer.switches.{name}: no switch named '{name}'" in p.stderr,
                  (name, p.stderr))
            check(guess in p.stderr, (name, p.stderr))
        with open(path, "w") as f:
            f.write(text.replace("load_balancer:\n  algorithm: ofan\n",
                                 "load_balancer:\n  algorithm: ofan\n  switches:\n"
                                 "    agg3: {algorithm: ecmp}\n"))
        p = run("run", path, "-n")
        check(p.returncode == 0, p.stderr)
        p = run("run", DEMO, "-n", "--set", "load_balancer.switches.leaf0.algorithm=ecmp")
        check(p.returncode == 2 and "no switch named 'leaf0'" in p.stderr, p.stderr)


def algorithm_has_both_spellings_and_a_did_you_mean(_args):
    # `fabric up` took --algorithm and `run` --algorithms; each now takes both (issue 43, point 4).
    p = run("run", DEMO, "--algorithm", "ofan", "-n")
    check(p.returncode == 0 and p.stdout.split()[0] == "ofan", (p.returncode, p.stdout, p.stderr))
    p = run("run", DEMO, "--algorithms", "ecmp,ofann", "-n")
    check(p.returncode == 2, (p.returncode, p.stderr))
    check("--algorithms ofann: expected one of ecmp, rps" in p.stderr, p.stderr)
    check("found ofann; did you mean 'ofan'?" in p.stderr, p.stderr)


def fat_tree(d, k):
    path = os.path.join(d, f"ft{k}.yaml")
    with open(path, "w") as f:
        f.write(f"name: ft{k}\ntopology: {{generator: fat-tree, k: {k}, levels: 3}}\n"
                "links: {rate: 100Gbps, delay: 1us}\nworkload: {type: permutation, message_size: 64KB}\n")
    return path


def a_fabric_too_large_for_the_machine_is_refused_with_its_estimate(_args):
    # Issue 43, point 3: -n and fabric up estimate the fabric against the machine's memory.
    with tempfile.TemporaryDirectory() as d:
        p = run("run", DEMO, "--algorithms", "ofan", "-n")
        check(p.returncode == 0 and "  size: 16 hosts, 20 switches (80 ports), about" in p.stdout, p.stdout)
        huge = fat_tree(d, 128)  # 524,288 hosts: some 300 GB
        p = run("run", huge, "-n")
        check(p.returncode == 2, (p.returncode, p.stdout, p.stderr))
        check("variant ecmp: 524288 hosts, 20480 switches (2621440 ports), about" in p.stderr, p.stderr)
        check("more than this machine's" in p.stderr, p.stderr)
        # Namespaced: a process a node, 20480 switches and 8192 generators: past the management
        # network's 250 before memory is weighed (fabric up refused it once its namespaces existed).
        p = run("run", huge, "--mode", "namespaced", "-n")
        check(p.returncode == 2 and "a namespaced fabric of 28672 processes" in p.stderr
              and "holds 250" in p.stderr, p.stderr)
        p = run("fabric", "up", huge, "--name", f"huge{os.getpid()}", "--dir", os.path.join(d, "f"))
        check(p.returncode == 2 and f"{huge}: a namespaced fabric of 28672 processes" in p.stderr,
              (p.returncode, p.stderr))
        check(not os.path.exists(os.path.join(d, "f")), "fabric up wrote its folder")
        return p.stderr.strip().splitlines()[-1]


def inprocess_rate_slows_the_experiment_down(_args):
    # The in-process rate slows the whole experiment down, as the namespaced fabric does
    # (run/time_scale.h): it is not a setting of the variant, and -n says how much slower.
    p = run("run", DEMO, "--mode", "inprocess", "--algorithms", "rps", "-n")
    check(p.returncode == 0 and "links.rate=" not in p.stdout, p.stdout + p.stderr)
    check("in-process: fastest link at 1Gbps, time x100 " in p.stdout, p.stdout)
    p = run("run", DEMO, "--mode", "inprocess", "--rate", "2.5Gbps", "-n")
    check(p.returncode == 0 and "fastest link at 2.5Gbps, time x40 " in p.stdout,
          p.stdout + p.stderr)
    p = run("run", DEMO, "--mode", "inprocess", "--rate", "file", "-n")
    check(p.returncode == 0 and "in-process:" not in p.stdout, p.stdout + p.stderr)
    p = run("run", DEMO, "--mode", "inprocess", "--sweep", "links.rate=1G,2G", "-n")
    check(p.returncode == 0 and "rate=2G" in p.stdout and "in-process:" not in p.stdout, p.stdout)


def namespaced_dry_run_checks_and_says_what_the_fabric_would_do(_args):
    # -n in namespaced mode said nothing of the rate and let through what the fabric cannot run
    # (found only by a real run, as root); an explicit links.rate was slowed to 100 Mbps anyway.
    examples = os.path.join(ARGS.source, "conf", "examples")
    p = run("run", DEMO, "--mode", "namespaced", "--algorithms", "rps", "-n")
    check(p.returncode == 0 and "namespaced: fastest link at 100Mbps, time x1000 " in p.stdout,
          p.stdout + p.stderr)
    p = run("run", DEMO, "--mode", "namespaced", "--algorithms", "rps", "--links", "veth", "-n")
    check(p.returncode == 0 and "workload.payload 4096 -> 1400" in p.stderr, p.stdout + p.stderr)
    p = run("run", DEMO, "--mode", "namespaced", "--sweep", "links.rate=10Mbps,20Mbps", "-n")
    check(p.returncode == 0 and "namespaced:" not in p.stdout and "rate=20Mbps" in p.stdout,
          p.stdout + p.stderr)
    p = run("run", DEMO, "--mode", "namespaced", "--rate", "5Mbps", "--set", "links.rate=1Gbps",
            "-n")
    check(p.returncode == 2 and "both give the link rate" in p.stderr, (p.returncode, p.stderr))
    for name, needle in (("explicit.yaml", "per-link rates or delays"),
                         ("dragonfly.yaml", "are switches of one level"),
                         ("link-events.yaml", "events.reroute")):
        path = os.path.join(examples, name)
        p = run("run", path, "--mode", "namespaced", "-n", "--algorithms", "ecmp")
        check(p.returncode == 2 and f"spraylab: {path}: " in p.stderr and needle in p.stderr,
              (name, p.returncode, p.stderr[-400:]))
    p = run("run", DEMO, "--rate", "5Mbps", "-n")
    check(p.returncode == 2 and "--rate is for --mode inprocess or namespaced" in p.stderr,
          p.stderr)
    # Each variant as `fabric up` makes it: a refusal names the variant.
    p = run("run", DEMO, "--mode", "namespaced", "-n", "--sweep", "buffer.flow_control=none,credit")
    check(p.returncode == 2 and "credit runs in virtual time" in p.stderr
          and "(variant ofan-flow_control=credit, as the namespaced fabric runs it)" in p.stderr,
          p.stderr)
    p = run("run", DEMO, "--mode", "namespaced", "-n", "--set", "buffer.flow_control=pfc",
            "--set", "buffer.virtual_channels=2")
    check(p.returncode == 2 and "buffer.virtual_channels: 2" in p.stderr, p.stderr)
    # The PFC headroom of a 100 Mb/s veth fabric does not fit 400 KB (fabric up refused it).
    p = run("run", DEMO, "--mode", "namespaced", "--links", "veth", "-n", "--set",
            "buffer.flow_control=pfc", "--set", "buffer.bytes=400KB")
    check(p.returncode == 2 and "does not fit in buffer.bytes" in p.stderr, p.stderr)
    # 120 leaves and 20 spines: 260 processes, past the management network's 250.
    p = run("run", DEMO, "--mode", "namespaced", "-n", "--set",
            "topology={generator: leaf-spine, leaves: 120, spines: 20, hosts_per_leaf: 2}")
    check(p.returncode == 2 and "260 processes" in p.stderr and "holds 250" in p.stderr,
          p.stderr[-500:])


def links_takes_a_name_and_says_which(_args):
    # --links was a CLI11 map onto a one-byte enum: its help printed the values as raw bytes
    # (NUL, ^A, ^B) and its error stopped at the first NUL, naming no valid kind.
    for command in (["run", DEMO, "--mode", "namespaced", "-n"], ["fabric", "up", DEMO]):
        p = run(*command, "--links", "bogus")
        check(p.returncode == 2, (command, p.returncode, p.stderr))
        check("--links: expected memif, veth or vhost, found bogus" in p.stderr, (command, p.stderr))
    p = run("run", DEMO, "--mode", "namespaced", "--links", "veth", "-n")
    check(p.returncode == 0, p.stderr)
    for command in (["run"], ["fabric", "up"], ["fabric", "export"], ["reproduce"],
                    ["topo", "gen"], ["topo", "stats"], ["algorithms"], []):
        p = run(*command, "--help")
        check(p.returncode == 0, (command, p.stderr))
        bad = sorted({hex(ord(c)) for c in p.stdout if ord(c) < 32 and c != "\n"})
        check(not bad, f"{command} --help has control bytes {bad}")
        if command in (["run"], ["fabric", "up"]):
            check("{memif,veth,vhost}" in p.stdout, p.stdout)


def topo_commands_need_no_eal(_args):
    p = run("topo", "stats", "fat-tree", "--k", "4", "--levels", "3", "--json")
    check(p.returncode == 0 and '"hosts":16' in p.stdout, p.stdout + p.stderr)
    check("EAL" not in p.stderr, p.stderr)


CASES = [
    ("run --help lists every option", help_lists_every_option, ()),
    ("--dry-run crosses algorithms and sweeps", dry_run_crosses_algorithms_and_sweeps, ()),
    ("options may come before the experiment", options_may_come_before_the_experiment, ()),
    ("--dry-run writes nothing", dry_run_writes_nothing, ()),
    ("a bad --sweep key is the loader's error naming the sweep",
     bad_sweep_key_is_the_loaders_error_naming_the_sweep, ()),
    ("a bad --sweep value points at the value in the file",
     bad_sweep_value_points_at_the_value_in_the_file, ()),
    ("bad input exits 2 with a precise error", bad_input_exits_2_with_a_precise_error, ()),
    ("a switch with too many ports is refused before EAL",
     switch_with_too_many_ports_is_refused_before_eal, ()),
    ("a workload too large to build is refused, not aborted",
     a_workload_too_large_to_build_is_refused_not_aborted, ()),
    ("a per-switch balancer must name a switch of the generated topology",
     a_per_switch_balancer_must_name_a_switch_of_the_generated_topology, ()),
    ("a workload key the hosts rule out is refused at its line",
     a_workload_key_the_hosts_rule_out_is_refused_at_its_line, ()),
    ("--algorithm and --algorithms both work, with a did-you-mean",
     algorithm_has_both_spellings_and_a_did_you_mean, ()),
    ("a fabric too large for the machine is refused with its estimate",
     a_fabric_too_large_for_the_machine_is_refused_with_its_estimate, ()),
    ("the in-process rate slows the whole experiment down",
     inprocess_rate_slows_the_experiment_down, ()),
    ("topo commands need no EAL", topo_commands_need_no_eal, ()),
    ("--links takes a name and says which; every help text is plain text",
     links_takes_a_name_and_says_which, ()),
    ("namespaced -n checks what the fabric cannot run and says its rate",
     namespaced_dry_run_checks_and_says_what_the_fabric_would_do, ()),
]
status = run_cases(ARGS, CASES)
sys.exit(status)
