#!/usr/bin/env python3
"""spraylab-switch over memif, end to end (issue: the multi-core DPDK data path).

A driver process (tests/integration/switch_driver.cpp) is wired port for port to the switch
with memif and sends known packets into a host port. At most two busy-polling processes run at
once: the switch on CPU 1, the driver on CPU 0.

Cases: every algorithm delivers every packet with rewritten headers; Ofan spreads one
destination's packets over 4 uplinks within 1, also with two workers on one key; a port taken
down mid-run gets no more packets and nothing else is lost; malformed frames are counted by
reason and the switch survives.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # dpdk_procs here, cases in tests/
from dpdk_procs import Proc, Telemetry, eal_args, ensure_hugepages, link_vdevs  # noqa: E402
from cases import case_parser, run_cases, check  # noqa: E402

ALGORITHMS = ["ecmp", "rps", "rr", "jsq", "ar", "topk", "psp", "ofan", "pofan", "polarized"]
UPLINKS = [2, 3, 4, 5]  # leaf0: ports 0-1 face hosts, 2-5 the four spines

EXPERIMENT = """\
seed: 7
topology: {{generator: leaf-spine, leaves: 2, spines: 4, hosts_per_leaf: 2}}
links: {{rate: 100Gbps, delay: 500ns}}
buffer: {{bytes: 800KB}}
load_balancer: {{algorithm: {algorithm}}}
"""


class Case:
    def __init__(self, args, name, algorithm, workers=1, link="memif", switch_args=(),
                 main_forwards=False):
        self.args, self.name, self.algorithm, self.workers = args, name, algorithm, workers
        self.main_forwards = main_forwards  # as many lcores as workers: the main one forwards too
        self.switch_args = list(switch_args)
        self.link = link  # memif, or vhost (vhost-user in the switch, virtio-user in the driver)
        self.dir = tempfile.mkdtemp(prefix=f"spraylab-{name}-")
        self.config = os.path.join(self.dir, "exp.yaml")
        with open(self.config, "w") as f:
            f.write(EXPERIMENT.format(algorithm=algorithm))
        tag = f"{os.getpid()}_{name}"
        self.switch_prefix, self.driver_prefix = f"sl_sw_{tag}", f"sl_drv_{tag}"
        self.stats_path = os.path.join(self.dir, "stats.json")

    def eal_memory(self):
        """(extra EAL args, memory mode): vhost-user shares memory by file descriptor, one per
        segment list with --single-file-segments."""
        if self.link == "vhost":
            return ["--single-file-segments"], "--in-memory"
        return [], "--huge-unlink"

    def start_switch(self):
        b = self.args.build
        # One worker runs on the main lcore on CPU 1. With more, the main lcore (control only,
        # mostly asleep) goes to CPU 0 and the workers share CPU 1: correctness, not speed.
        # main_forwards: every lcore a worker on CPU 1, the main one worker 0.
        lcores = "0@1" if self.workers == 1 else "0@0,(1-%d)@1" % self.workers
        if self.main_forwards:
            lcores = "(0-%d)@1" % (self.workers - 1)
        argv = [f"{b}/switch/spraylab-switch", *eal_args(lcores, self.switch_prefix, *self.eal_memory()),
                *link_vdevs(self.link, self.dir, 6, "server"), "--",
                "--config", self.config, "--switch", "leaf0", "--stats-json", self.stats_path]
        if self.workers > 1:
            argv += ["--workers", str(self.workers)]
        argv += self.switch_args
        self.switch = Proc(argv, os.path.join(self.dir, "switch.log"))
        # memif clients fail to start before the server's sockets exist: wait for the switch.
        deadline = time.time() + 30
        while "workers, " not in self.switch.log_text():
            if self.switch.p.poll() is not None or time.time() > deadline:
                raise AssertionError(f"switch did not start: {self.switch.log_text()[-2000:]}")
            time.sleep(0.05)

    def run_driver(self, *extra, queues=1, timeout=60):
        """Runs the driver's modes and returns {mode: result}. The driver keeps its memif ports
        open (--hold) until finish(): DPDK 22.11's memif can crash a poller whose peer
        disconnects mid-burst, so the switch always stops first."""
        b = self.args.build
        argv = [f"{b}/tests/integration/switch_driver", *eal_args("0@0", self.driver_prefix, *self.eal_memory()),
                *link_vdevs(self.link, self.dir, 6, "client"), "--", "--hold",
                "--config", self.config, "--switch", "leaf0", "--queues", str(queues), *extra]
        self.driver = Proc(argv, os.path.join(self.dir, "driver.log"), stdin=subprocess.PIPE)
        line = self.driver.read_line(timeout)
        if line is None:
            self.driver.release(5)
            raise AssertionError(f"driver gave no result: {self.driver.log_text()[-2000:]}")
        return json.loads(line)

    def finish(self):
        """Stops the switch, then releases the driver; returns the switch's final counters."""
        rc = self.switch.stop()
        if getattr(self, "driver", None):
            self.driver.release()
        if rc != 0:
            raise AssertionError(f"switch exited {rc}: {self.switch.log_text()[-2000:]}")
        with open(self.stats_path) as f:
            stats = json.load(f)
        # Passed or not, leave nothing behind: sockets, logs, DPDK runtime folders.
        shutil.rmtree(self.dir, ignore_errors=True)
        for prefix in (self.switch_prefix, self.driver_prefix):
            shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
        return stats



def per_port(result):
    return {int(p): n for p, n in result.get("received", {}).items()}


def test_delivers_every_packet(args, algorithm, link="memif", switch_args=()):
    name = f"all_{algorithm}_{link}" + ("_unshaped" if switch_args else "")
    c = Case(args, name, algorithm, link=link, switch_args=list(switch_args))
    c.start_switch()
    try:
        # 4000 packets to the other leaf, then 200 to the neighbour host.
        out = c.run_driver("--mode", "spread,local", "--packets", "4000", "--flows", "64")
        r, loc = out["spread"], out["local"]
    finally:
        stats = c.finish()
    check(r["received_total"] == r["sent"] == 4000, f"{algorithm}: sent {r['sent']} got {r['received_total']}")
    check(r["bad_headers"] == 0, f"{algorithm}: {r['bad_headers']} packets with wrong headers")
    ports = per_port(r)
    check(set(ports) <= set(UPLINKS), f"{algorithm}: packets left on non-uplink ports {ports}")
    check(len(ports) >= 2, f"{algorithm}: all traffic on one uplink {ports}")
    if algorithm in ("rr", "ofan", "pofan"):  # rotations: one destination leaf, exact shares
        counts = [ports.get(p, 0) for p in UPLINKS]
        check(max(counts) - min(counts) <= 1, f"{algorithm}: per-port counts {counts}")
    check(loc["received_total"] == 4000 and per_port(loc) == {1: 4000}, f"{algorithm}: local delivery {loc}")
    check(stats["totals"]["rx_packets"] == 8000, f"{algorithm}: switch rx {stats['totals']['rx_packets']}")
    check(all(v == 0 for v in stats["totals"]["drops"].values()), f"{algorithm}: drops {stats['totals']['drops']}")
    return f"{ports} {check_busy_period(stats, algorithm)}"


def check_busy_period(stats, what):
    """--stats-json's busy period: the switch ran before the driver sent, so traffic flowed for
    part of the run; its rate is rx over that part, never below rx over the whole run. (No speed
    is asserted, only the relations between the fields.)"""
    rx, run = stats["totals"]["rx_packets"], stats["forwarding_seconds"]
    busy, pps = stats["busy_period_seconds"], stats["busy_period_rx_pps"]
    check(0 < busy <= run, f"{what}: busy period {busy} s, run {run} s")
    check(abs(pps * busy - rx) <= 1e-6 * rx + 1, f"{what}: busy_period_rx_pps {pps} x {busy} s != rx {rx}")
    check(pps >= rx / run, f"{what}: rate over the busy period {pps} below the run's {rx / run}")
    return f"busy {busy:.3f} of {run:.3f} s"


def test_ofan_spreads_within_one(args, workers, main_forwards=False):
    """Ofan's shared pointers over the workers' rx queues: one rotation per destination, so the
    workers' choices together are within one of even. main_forwards: --workers N on N lcores,
    the main lcore worker 0 (docs/switch.md, "Multi-core"): every worker takes its queue."""
    c = Case(args, f"ofan_spread_w{workers}" + ("_main" if main_forwards else ""), "ofan",
             workers=workers, main_forwards=main_forwards)
    c.start_switch()
    try:
        r = c.run_driver("--mode", "spread", "--packets", "10001", "--flows", "1000", queues=workers)["spread"]
    finally:
        log = c.switch.log_text()
        stats = c.finish()
    if main_forwards:
        check(f"{workers} workers, ofan on the main and worker lcores" in log,
              f"the switch did not say the main lcore forwards: {log[-1000:]}")
    per_worker = stats["worker_rx_packets"]
    check(len(per_worker) == workers and min(per_worker) > 0, f"not every worker took traffic: {per_worker}")
    ports = per_port(r)
    check(r["received_total"] == 10001,
          f"received {r['received_total']}; switch rx {stats['totals']['rx_packets']} "
          f"tx {stats['totals'].get('tx_packets')} drops {stats['totals']['drops']}")
    check(sorted(ports) == UPLINKS, f"ports {ports}")
    counts = [ports[p] for p in UPLINKS]
    check(max(counts) - min(counts) <= 1, f"{workers} workers: per-port counts {counts} differ by more than 1")
    return f"{counts}, per worker {per_worker}"


def test_tx_queues_in_turn(args):
    """With --tx-queues 2 each port's bursts take both memif rings in turn: a peer that polls both
    gets every packet, and the startup message names both."""
    c = Case(args, "txq2", "ofan", switch_args=["--rx-queues", "2", "--tx-queues", "2"])
    c.start_switch()
    try:
        r = c.run_driver("--mode", "spread", "--packets", "8000", "--flows", "64", queues=2)["spread"]
    finally:
        log = c.switch.log_text()
        stats = c.finish()
    check("must poll rx queues 0..1" in log, f"startup did not state the tx queues: {log[-600:]}")
    check(r["received_total"] == r["sent"] == 8000, f"sent {r['sent']} got {r['received_total']}")
    sent = {p["port"]: p["tx_packets"] for p in stats["ports"] if p["tx_packets"]}
    check(sent == per_port(r), f"switch sent {sent}, driver got {per_port(r)}")
    return f"{per_port(r)}"


def test_port_down_mid_run(args):
    c = Case(args, "port_down", "ofan")
    c.start_switch()
    tel = Telemetry(c.switch_prefix)
    import threading
    result = {}

    def drive():
        result["r"] = c.run_driver("--mode", "spread", "--packets", "30000", "--rate", "20000")["spread"]

    t = threading.Thread(target=drive)
    t.start()
    # Mid-run by the switch's own count, not by the clock: a busy machine may start the driver late.
    deadline = time.time() + 60
    while tel.query("/spraylab/switch")["totals_rx_packets"] < 5000:
        check(t.is_alive() and time.time() < deadline, "the driver's traffic never reached 5000 packets")
        time.sleep(0.01)
    tel.query("/spraylab/port_down,3")
    tx_at_down = tel.query("/spraylab/port,3")["tx_packets"]
    t.join()
    tel.close()
    stats = c.finish()
    r = result["r"]
    ports = per_port(r)
    p3 = stats["ports"][3]
    check(p3["up"] is False, "port 3 still up")
    check(ports.get(3, 0) == p3["tx_packets"], f"port 3 sent {p3['tx_packets']} but driver got {ports.get(3, 0)}")
    check(p3["tx_packets"] == tx_at_down, f"port 3 sent {p3['tx_packets'] - tx_at_down} packets after going down")
    lost = r["sent"] - r["received_total"]
    down_drops = stats["totals"]["drops"]["port_down"]
    check(lost == down_drops, f"lost {lost} packets but only {down_drops} counted as port_down drops")
    others = {k: v for k, v in stats["totals"]["drops"].items() if k != "port_down"}
    check(all(v == 0 for v in others.values()), f"other drops {others}")
    check(ports.get(2, 0) > ports.get(3, 0) and ports.get(4, 0) > ports.get(3, 0), f"traffic did not move {ports}")
    return f"port 3 stopped at {tx_at_down}, {down_drops} queued packets dropped, per port {ports}"


def test_malformed_frames_are_counted(args):
    c = Case(args, "malformed", "ofan")
    c.start_switch()
    try:
        r = c.run_driver("--mode", "malformed", "--packets", "100", "--timeout", "1")["malformed"]
        tel = Telemetry(c.switch_prefix)
        alive = tel.query("/spraylab/switch")
        tel.close()
    finally:
        stats = c.finish()
    d = stats["totals"]["drops"]
    check(r["received_total"] == 0, f"{r['received_total']} malformed frames forwarded")
    for reason in ["truncated", "not_ipv4", "bad_ip_header", "ttl_expired", "no_route"]:
        check(d[reason] == 100, f"{reason}: {d[reason]} (expected 100)")
    check(alive["algorithm"] == "ofan", "telemetry did not answer after malformed frames")
    return f"{d}"


def test_lb_change_at_run_time(args):
    """The telemetry socket switches the balancer while the switch runs; a bad spec changes
    nothing and says why."""
    c = Case(args, "lb_change", "ofan")
    c.start_switch()
    try:
        tel = Telemetry(c.switch_prefix)
        bad = tel.query("/spraylab/lb_set,{algorithm: psp, bands: 0}")
        check("error" in bad and "bands" in bad["error"], f"bad spec accepted: {bad}")
        check(tel.query("/spraylab/switch")["algorithm"] == "ofan", "a rejected spec changed the algorithm")
        check(tel.query("/spraylab/lb_set,ecmp")["algorithm"] == "ecmp", "lb_set did not answer ecmp")
        tel.close()
        # One source port: a flow per destination host. ECMP keeps each on one port, where Ofan
        # would have rotated every destination over all four.
        r = c.run_driver("--mode", "spread", "--packets", "2000", "--flows", "1")["spread"]
    finally:
        stats = c.finish()
    check(r["received_total"] == 2000, f"received {r['received_total']}")
    for dest, ports in r["per_dest"].items():
        check(len(ports) == 1, f"flow to {dest} spread over {ports} under ecmp")
    check(stats["algorithm"] == "ecmp", f"final algorithm {stats['algorithm']}")
    return f"rejected: {bad['error'][:70]}...; per flow {r['per_dest']}"


def test_stops_without_touching_route_tables(args):
    """A switch that stops leaves its memory to the process's end. Each of its two route tables
    is rte_lpm's 64 MB array, touched only where routes are; DPDK's rte_free zeroes what it frees,
    so destroying them faulted in and cleared 128 MB at every exit (0.4-2 s a switch: a
    namespaced fabric's down killed its 20 switches with SIGKILL). As the namespaced fabric runs
    it (no hugepages: memory counts in the process's RSS), with six net_null ports and 4096
    mbufs, the peak RSS was 178 MB with the tables freed and 50 MB without."""
    work = tempfile.mkdtemp(prefix="spraylab-exit-")
    config = os.path.join(work, "exp.yaml")
    with open(config, "w") as f:
        f.write(EXPERIMENT.format(algorithm="ecmp"))
    prefix = f"sl_exit_{os.getpid()}"
    vdevs = [a for i in range(6) for a in ("--vdev", f"net_null{i}")]
    argv = [f"{args.build}/switch/spraylab-switch", "--lcores", "0@1", "--no-pci", "--no-huge",
            "-m", "512", "--file-prefix", prefix, "--log-level", "lib.eal:error", *vdevs, "--",
            "--config", config, "--switch", "leaf0", "--duration", "0.3", "--idle-sleep", "1ms",
            "--mbufs", "4096", "--no-metrics"]
    try:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        log = p.stderr.read()
        p.stderr.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
    check(os.waitstatus_to_exitcode(status) == 0, f"switch exited {status}: {log[-2000:]}")
    check("stopped after" in log, f"the switch did not stop as it should: {log[-2000:]}")
    peak_mb = usage.ru_maxrss / 1024
    check(peak_mb < 128, f"peak RSS {peak_mb:.0f} MB: the route tables were touched at exit")
    return f"peak RSS {peak_mb:.0f} MB"


def test_bad_input_exits_2(args):
    """docs/switch.md: a bad option or configuration stops the switch with one precise line and
    exit status 2 (CLI11's own codes, 105 for a missing file and 106 for a missing option, were
    passed through)."""
    work = tempfile.mkdtemp(prefix="spraylab-bad-")
    bad = os.path.join(work, "bad.yaml")
    with open(bad, "w") as f:
        f.write(EXPERIMENT.format(algorithm="ofna"))
    good = os.path.join(work, "good.yaml")
    with open(good, "w") as f:
        f.write(EXPERIMENT.format(algorithm="ofan"))
    prefix = f"sl_bad_{os.getpid()}"
    eal = [f"{args.build}/switch/spraylab-switch", "--no-pci", "--no-huge", "-m", "128",
           "--file-prefix", prefix, "--log-level", "lib.eal:error", "--vdev", "net_null0", "--"]
    cases = [(["--confg", bad], "--config is required"),
             (["--config", os.path.join(work, "nosuch.yaml")], "nosuch.yaml"),
             (["--config", good, "--switch", "leaf0", "--idle-sleep", "banana"], "--idle-sleep"),
             (["--config", good, "--switch", "leaf0", "--duration", "-1"],
              "--duration: expected a number >= 0, found -1"),
             (["--config", good, "--switch", "leaf0", "--stats-interval", "-2"],
              "--stats-interval: expected a number >= 0, found -2"),
             (["--config", bad, "--switch", "leaf0"], "bad.yaml:")]
    seen = []
    try:
        for extra, needle in cases:
            p = subprocess.run(eal + extra, capture_output=True, text=True, timeout=60)
            check(p.returncode == 2 and needle in p.stderr,
                  f"{extra}: exit {p.returncode}, stderr {p.stderr[-600:]!r}")
            seen.append(p.returncode)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
    return f"exit {seen}"


def test_help_points_past_eal(args):
    """`spraylab-switch --help` is EAL's (it exits before the switch parses anything); its end
    says how to reach the switch's own options, and that command lists them."""
    binary = f"{args.build}/switch/spraylab-switch"
    p = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and "-- --help` lists spraylab-switch's own options" in p.stdout,
          f"exit {p.returncode}: {p.stdout[-400:]}")
    # The program's own --help starts no EAL (no hugepages, no runtime folder): for the switch
    # and the generator alike, with EAL arguments before `--` or none.
    for program, needles in (("switch/spraylab-switch", ("--config", "--switch")),
                             ("trafficgen/spraylab-gen", ("--config", "--hosts"))):
        for eal in ([], ["--no-pci", "--no-huge"]):
            prefix = f"sl_help_{os.getpid()}"
            folder = f"/var/run/dpdk/{prefix}"
            try:
                p = subprocess.run([f"{args.build}/{program}", *eal, "--file-prefix", prefix, "--",
                                    "--help"], capture_output=True, text=True, timeout=60)
                started = os.path.exists(folder)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            check(p.returncode == 0 and all(n in p.stdout for n in needles),
                  f"{program} {eal}: exit {p.returncode}: {p.stdout[-400:]}{p.stderr[-400:]}")
            check(not started and "EAL" not in p.stderr, f"{program} {eal}: EAL started: {p.stderr[-400:]}")


def main():
    ap = case_parser()
    args = ap.parse_args()
    ensure_hugepages()
    cases = [(f"delivers_every_packet[{a}]", test_delivers_every_packet, (a,)) for a in ALGORITHMS]
    cases += [("ofan_spreads_within_one[1 worker]", test_ofan_spreads_within_one, (1,)),
              ("ofan_spreads_within_one[2 workers]", test_ofan_spreads_within_one, (2,)),
              ("ofan_spreads_within_one[2 workers, the main lcore one of them]",
               test_ofan_spreads_within_one, (2, True)),
              ("delivers_every_packet[ofan, vhost-user]", test_delivers_every_packet, ("ofan", "vhost")),
              # --no-shaping: held bursts (--rx-bursts' default) and direct tx, the path the
              # benchmarks measure; the same packets, shares and counters.
              ("delivers_every_packet[ofan, memif, unshaped]", test_delivers_every_packet,
               ("ofan", "memif", ["--no-shaping"])),
              ("delivers_every_packet[ofan, vhost-user, unshaped]", test_delivers_every_packet,
               ("ofan", "vhost", ["--no-shaping"])),
              ("tx_queues_in_turn", test_tx_queues_in_turn, ()),
              ("port_down_mid_run", test_port_down_mid_run, ()),
              ("lb_change_at_run_time", test_lb_change_at_run_time, ()),
              ("malformed_frames_are_counted", test_malformed_frames_are_counted, ()),
              ("stops_without_touching_route_tables", test_stops_without_touching_route_tables,
               ()),
              ("bad_input_exits_2", test_bad_input_exits_2, ()),
              ("help_points_past_eal", test_help_points_past_eal, ())]
    return run_cases(args, cases)


if __name__ == "__main__":
    sys.exit(main())
