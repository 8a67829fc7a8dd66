#!/usr/bin/env python3
"""`spraylab run --mode namespaced` (issue 15's acceptance; docs/fabric.md, "spraylab run on a
namespaced fabric"): the demo experiment (k = 4 fat tree, 16 hosts, 1 MB permutation) with ECMP,
RPS and Ofan on a namespaced fabric (20 spraylab-switch and 8 spraylab-gen processes, a network
namespace each), over memif links, veth links and vhost-user links. Every message completes, the table prints,
every results file is there, and the algorithms rank as they do in virtual time, which the test
runs first on the same experiment and checks: Ofan's deepest (or 99th-percentile) queue below
RPS's, and ECMP worst by CCT or by deepest queue, over every link kind. On the namespaced fabric
that ranking is a measurement of sleeping processes: the majority of up to three runs must hold it
(the first, or both of two more; run_links says why).

What makes the ranking hold on a busy 2-CPU machine: the links are shaped down (RATE below: the
fabric's 28 processes sleep between polls and wake for every few frames, so the CPU a run needs
grows with the frame rate), the processes run at nice -10, over veth with their data path in
SCHED_RR (fabric up's defaults: a wake-up for a frame or a shaper slot comes on time,
docs/fabric.md "Real-time wake-ups") and the switches' shaper slack is two frames (a switch that woke late sends
no more than that at once). Every link kind runs at 2 Mb/s (RATE below). Over veth, 1400 B frames
are three times memif's for the same bytes, and at 5 Mb/s the fabric needed both CPUs during a
run, so its wake-ups came late even in SCHED_RR and the queues measured that more than the
balancers. memif and vhost were at 5 Mb/s until a CI run beside `stress-ng --cpu 2` gave memif
Ofan 174 KB against RPS 150 KB (virtual time: 13 and 89 KB); at 2 Mb/s, under the same load,
memif gave Ofan 5-6 packets against RPS 37-38 and vhost 5 against 41 (virtual time 10 and 42). The
retransmission timeout is set to 200 us for both clocks (the file's 1 ms stretches to 20 s at
5 Mb/s; ECMP waits for it after its drops): virtual time ranks the algorithms the same with it.
Consecutive variants share one fabric (only the balancer changes), so each link kind brings one
fabric up.

The fabric's name and folder are the test's own; `fabric down` runs at the end whatever happened,
and nothing of the fabric may be left (namespaces, processes, its folder). Nothing here asserts a
speed: the figures (CCT and deepest queue per algorithm in both clocks, wall time) are printed.
A last case interrupts a namespaced run (SIGINT once it reports progress): ended by SIGINT, the
fabric down, the earlier results as they were.
Needs root (ip netns); skips (exit 77) otherwise.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
from dpdk_procs import fabric_processes  # noqa: E402
from cases import case_parser, run_cases, check  # noqa: E402

ALGORITHMS = ["ecmp", "rps", "ofan"]
RTO = "200us"
# Every link's rate per link kind (the docstring: 5 Mb/s was too fast for a loaded machine over
# each kind; at 2 Mb/s, time x50000, the queues are the balancers' again; docs/fabric.md,
# "Real-time wake-ups").
RATE = {"memif": "2Mbps", "veth": "2Mbps", "vhost": "2Mbps"}


def spraylab(args, *argv, timeout=600):
    t0 = time.time()
    p = subprocess.run([os.path.join(args.build, "fabric", "spraylab"), *argv],
                       capture_output=True, text=True, timeout=timeout)
    print(f"$ spraylab {' '.join(argv)}  -> {p.returncode} ({time.time() - t0:.0f} s)\n"
          f"{p.stdout}{p.stderr[-4000:]}", flush=True)
    return p


def namespaces(prefix):
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return sorted(line.split()[0] for line in out.splitlines() if line.startswith(prefix))


def variants(out):
    with open(os.path.join(out, "summary.json")) as f:
        return {v["variant"]: v for v in json.load(f)["variants"]}


def figures(vs):
    return {a: (vs[a]["cct"].get("collective_ns"), vs[a]["queue"]["max_packets"],
                vs[a]["queue"]["p99_bytes"]) for a in ALGORITHMS}


def check_ranking(vs, what):
    f = figures(vs)
    why = ranking_error(f, what)
    check(why is None, why)
    return f


def ranking_error(f, what):
    """None if figures() `f` rank as virtual time does: Ofan's queues below RPS's (the deepest, or
    the 99th percentile) and ECMP worst by CCT or by deepest queue; else what does not hold. On a
    fabric of processes that sleep when idle, one wake-up burst can set a port's maximum: a CI run
    saw Ofan's deepest queue at 49 packets against RPS's 47 while its 99th percentile was 59.8 KB
    against 76.4 KB. Both inverted is what fails."""
    if not (f["ofan"][1] < f["rps"][1] or f["ofan"][2] < f["rps"][2]):
        return (f"{what}: Ofan's max queue ({f['ofan'][1]} packets) and p99 queue "
                f"({f['ofan'][2]} B) are not below RPS's ({f['rps'][1]}, {f['rps'][2]} B)")
    ecmp_cct_worst = f["ecmp"][0] > max(f["rps"][0], f["ofan"][0])
    ecmp_queue_worst = f["ecmp"][1] > max(f["rps"][1], f["ofan"][1])
    if not (ecmp_cct_worst or ecmp_queue_worst):
        return f"{what}: ECMP is not worst: {f}"
    return None


def namespaced_run(args, links, sets, name, folder, out):
    """One `spraylab run --mode namespaced` of the demo into `out`: every message completes, the
    table and every results file are there, nothing of the fabric is left. Returns (figures(),
    wall seconds)."""
    prefix = f"sl-{name}-"
    demo = os.path.join(args.source, "conf", "examples", "demo.yaml")
    t0 = time.time()
    r = spraylab(args, "run", demo, "--mode", "namespaced", "--links", links, "--rate",
                 RATE[links], "--algorithms", ",".join(ALGORITHMS), *sets, "--fabric-name",
                 name, "--fabric-dir", folder, "--timeout", "240", "-o", out, timeout=900)
    wall = time.time() - t0
    check(r.returncode == 0, f"spraylab run --mode namespaced --links {links} failed")
    check("demo: namespaced mode, 3 variants" in r.stdout, "no table header")
    for a in ALGORITHMS:
        rows = [line for line in r.stdout.splitlines() if line.startswith(a + " ")]
        check(len(rows) == 1 and " 16/16 " in rows[0], f"no table row with 16/16 for {a}")
    vs = variants(out)
    for a in ALGORITHMS:
        s = vs[a]
        check(s["mode"] == "namespaced", s["mode"])
        check(s["completed"] and s["cct"]["messages_completed"] == 16,
              f"{a}: not every message completed: {s['cct']}")
        for f in ["summary.json", "generator.json", "run.json", "config.yaml", "queues.csv"]:
            check(os.path.exists(os.path.join(out, a, f)), f"{a}/{f} missing")
        with open(os.path.join(out, a, "generator.json")) as f:
            g = json.load(f)
        check(len(g["hosts"]) == 16 and g["generators"] == 8, "the generators' results merged")
    check(os.path.isdir(os.path.join(out, "plots")), "no plots")
    left = namespaces(prefix) + fabric_processes(prefix)
    check(not left, f"left behind: {left}")
    check(not os.path.exists(folder), f"the fabric's folder {folder} is left")
    return figures(vs), wall


def run_links(args, links):
    demo = os.path.join(args.source, "conf", "examples", "demo.yaml")
    work = tempfile.mkdtemp(prefix=f"spraylab-nsrun-{links}-")
    name = f"n{links[0]}{os.getpid()}"
    folder = os.path.join(work, "fabric")
    prefix = f"sl-{name}-"
    sets = ["--set", f"workload.retransmit_timeout={RTO}"]
    if links == "veth":
        sets += ["--set", "workload.payload=1400"]  # what the veth fabric runs (the virtual peer)
    try:
        virt = os.path.join(work, "virtual")
        v = spraylab(args, "run", demo, "--algorithms", ",".join(ALGORITHMS), *sets, "-o", virt)
        check(v.returncode == 0, "the virtual-time run failed")
        fv = check_ranking(variants(virt), "virtual time")

        # The ranking on processes that sleep between polls is a measurement: one run in about
        # six of a CI suite on this 2-CPU VM inverted it over veth (Ofan 82 packets and 40.5 KB p99
        # against RPS's 63 and 35.9 KB) and the same test alone straight afterwards gave 29 against
        # 86. So it is the majority of up to three runs that must rank as virtual time: the first,
        # or if it does not, both of two more. A balancer that truly ranks worse fails every run.
        def attempt(i):
            fn, wall = namespaced_run(args, links, sets, name, folder,
                                      os.path.join(work, f"namespaced{i}"))
            why = ranking_error(fn, f"namespaced {links}, run {i + 1}")
            if why:
                print(f"# {why}", flush=True)
            return why is None, fn, wall

        runs = [attempt(0)]
        if not runs[0][0]:
            runs += [attempt(1), attempt(2)]
        ok_runs = [r for r in runs if r[0]]
        check(len(ok_runs) * 2 > len(runs),
              f"namespaced {links}: the ranking held in {len(ok_runs)} of {len(runs)} runs: "
              f"{[r[1] for r in runs]}")
        _, fn, wall = ok_runs[-1]
        line = " ".join(f"{a}: virtual {fv[a][0] / 1e3:.1f} us {fv[a][1]} pk, namespaced "
                        f"{fn[a][0] / 1e6:.0f} ms {fn[a][1]} pk {fn[a][2] / 1e3:.1f} KB p99;"
                        for a in ALGORITHMS)
        return f"{line} wall {wall:.0f} s" + (f" ({len(runs)} runs)" if len(runs) > 1 else "")
    finally:
        spraylab(args, "fabric", "down", name, "--dir", folder, timeout=120)
        for n in namespaces(prefix):
            subprocess.run(["ip", "netns", "del", n])
        shutil.rmtree(work, ignore_errors=True)


def interrupted_run(args):
    """Ctrl-C during a namespaced run (docs/runner.md, "Where results go"): the fabric is taken
    down, the earlier results stay byte for byte, no staging folder is left, and spraylab says
    `interrupted during [1/1] ecmp` and ends by SIGINT, as in the other modes (run-out)."""
    demo = os.path.join(args.source, "conf", "examples", "demo.yaml")
    work = tempfile.mkdtemp(prefix="spraylab-nsrun-int-")
    name = f"ni{os.getpid()}"
    folder = os.path.join(work, "fabric")
    prefix = f"sl-{name}-"
    out = os.path.join(work, "out")
    try:
        v = spraylab(args, "run", demo, "--algorithms", "ecmp", "-o", out)
        check(v.returncode == 0, "the virtual-time run failed")
        earlier = tree(out)
        log_path = os.path.join(work, "run.log")
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                [os.path.join(args.build, "fabric", "spraylab"), "run", demo, "--mode", "namespaced",
                 "--links", "memif", "--rate", RATE["memif"], "--algorithms", "ecmp",
                 "--fabric-name", name, "--fabric-dir", folder, "--timeout", "600", "-o", out],
                stdout=log, stderr=subprocess.STDOUT)
            deadline = time.time() + 300
            while "[1/1] ecmp: messages " not in open(log_path).read():
                check(proc.poll() is None, f"the run ended before the signal: {open(log_path).read()}")
                check(time.time() < deadline, f"no progress in 300 s: {open(log_path).read()}")
                time.sleep(0.1)
            proc.send_signal(signal.SIGINT)
            try:
                rc = proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                check(False, "still running 300 s after SIGINT")
        said = open(log_path).read()
        print(said[-1500:], flush=True)
        check(rc == -signal.SIGINT, f"exit {rc} after SIGINT (ends by the signal once cleaned up)")
        check("spraylab: interrupted during [1/1] ecmp: no results written" in said, "no interrupted line")
        check(tree(out) == earlier, "the interrupted run changed the earlier results")
        leftovers = [n for n in os.listdir(work) if n.startswith(".out.spraylab-")]
        check(not leftovers, f"staging folder left: {leftovers}")
        left = namespaces(prefix) + fabric_processes(prefix)
        check(not left, f"left behind: {left}")
        stopped = [line for line in said.splitlines() if f"fabric {name}: " in line and "stopped" in line]
        return stopped[-1] if stopped else "stopped"
    finally:
        spraylab(args, "fabric", "down", name, "--dir", folder, timeout=120)
        for n in namespaces(prefix):
            subprocess.run(["ip", "netns", "del", n])
        shutil.rmtree(work, ignore_errors=True)


def tree(root):
    """{relative path: file bytes} of every file below root."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                out[os.path.relpath(os.path.join(d, f), root)] = fh.read()
    return out


def main():
    args = case_parser().parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (ip netns add, ip netns exec)")
        return 77
    if shutil.which("ip") is None or subprocess.run(["ip", "netns", "list"],
                                                    capture_output=True).returncode:
        print("SKIP: no working `ip netns` (iproute2)")
        return 77
    return run_cases(args, [("memif_ranks_as_virtual", run_links, ("memif",)),
                            ("veth_ranks_as_virtual", run_links, ("veth",)),
                            ("vhost_ranks_as_virtual", run_links, ("vhost",)),
                            ("interrupted_run_takes_the_fabric_down", interrupted_run, ())])


if __name__ == "__main__":
    sys.exit(main())
