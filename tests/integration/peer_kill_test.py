#!/usr/bin/env python3
"""A peer that dies (issue #12, item 3): processes of a container fabric come and go, and
nothing may crash for it.

DPDK 22.11's memif tears a link down (munmap of the shared rings) on its interrupt thread while a
poller may be inside a burst; spraylab's pollers take turns with that thread
(net/intr_gate.h). Without that, spraylab-switch died of SIGSEGV within 5-25 kills
of a full-rate peer.

At most two busy-polling processes at once: the switch (CPU 1) and one driver (CPU 0); the
victim peer sleeps between turns (--idle-us).

Cases:
  memif_peer_killed_ten_times  leaf0 of a 2-leaf, 4-spine fabric on six memif ports. One driver
      streams h0 -> hosts of leaf1 at full rate on ports 0-4; a victim driver on port 5 (spine3)
      streams into the switch and drains what it gets. The victim is killed (SIGKILL) and
      restarted ten times: the switch stays up, logs and counts port 5 down and up each time,
      keeps forwarding on ports 2-4 during every outage, forwards on port 5 again at the end, and
      its counters balance: rx = tx + drops + still queued.
  gen_survives_switch_restart  spraylab-gen (h0, h1 on two memif client ports) runs a permutation
      through the switch; the switch is killed (SIGKILL) mid-run and restarted: the generator logs
      its links down and up, redials, and completes its collective.
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
from dpdk_procs import Proc, Telemetry, eal_args, ensure_hugepages  # noqa: E402
from cases import case_parser, run_cases, check  # noqa: E402

FABRIC = """\
seed: 7
topology: {{generator: leaf-spine, leaves: {leaves}, spines: {spines}, hosts_per_leaf: 2}}
links: {{rate: 100Gbps, delay: 500ns}}
buffer: {{bytes: 800KB}}
load_balancer: {{algorithm: ofan}}
{extra}"""



def wait_for(cond, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Bench:
    """A temporary folder, the switch (memif server on every port) and its peers."""

    def __init__(self, args, name, leaves=2, spines=4, extra=""):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix=f"peerkill-{name}-")
        self.config = os.path.join(self.dir, "exp.yaml")
        with open(self.config, "w") as f:
            f.write(FABRIC.format(leaves=leaves, spines=spines, extra=extra))
        self.ports = 2 + spines
        self.tag = f"{os.getpid()}_{name}"
        self.prefixes = []
        self.switch = None
        self.starts = 0

    def vdev(self, port, role):
        return ["--vdev", f"net_memif{port},role={role},id=0,socket={self.dir}/p{port}.sock,socket-abstract=no"]

    def prefix(self, what):
        p = f"peerkill_{what}_{self.tag}_{len(self.prefixes)}"
        self.prefixes.append(p)
        return p

    def start_switch(self):
        # A server killed by SIGKILL leaves its socket files: whoever restarts it removes them
        # (memif's listener cannot bind over them).
        for p in range(self.ports):
            path = f"{self.dir}/p{p}.sock"
            if os.path.exists(path):
                os.unlink(path)
        self.starts += 1
        self.switch_prefix = self.prefix("sw")
        argv = [f"{self.args.build}/switch/spraylab-switch", *eal_args("0@1", self.switch_prefix),
                *sum((self.vdev(p, "server") for p in range(self.ports)), []), "--",
                "--config", self.config, "--switch", "leaf0", "--no-metrics",
                "--stats-json", f"{self.dir}/stats.json"]
        self.switch = Proc(argv, f"{self.dir}/switch{self.starts}.log")
        wait_for(lambda: "workers, " in self.switch.log_text() or self.switch.p.poll() is not None, 30,
                 "the switch to start")
        check(self.switch.p.poll() is None, f"switch did not start: {self.switch.log_text()[-2000:]}")

    def driver(self, attach, from_port, lcores="0@0", extra=()):
        argv = [f"{self.args.build}/tests/integration/switch_driver", *eal_args(lcores, self.prefix("drv")),
                *sum((self.vdev(p, "client") for p in attach), []), "--",
                "--config", self.config, "--switch", "leaf0", "--mode", "stream",
                "--attach", ",".join(map(str, attach)), "--from-port", str(from_port), *extra]
        return Proc(argv, f"{self.dir}/driver_{attach[0]}_{len(self.prefixes)}.log")

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        for p in self.prefixes:
            shutil.rmtree(f"/var/run/dpdk/{p}", ignore_errors=True)


def kill(proc):
    proc.p.send_signal(signal.SIGKILL)
    proc.p.wait()
    proc.log.close()


def test_memif_peer_killed_ten_times(args, kills=10):
    b = Bench(args, "memif")
    procs = []
    try:
        b.start_switch()
        tel = Telemetry(b.switch_prefix)
        def port(p):
            check(b.switch.p.poll() is None, f"the switch died: {b.switch.log_text()[-1500:]}")
            return tel.query(f"/spraylab/port,{p}")
        survivor = b.driver([0, 1, 2, 3, 4], 0)
        procs.append(survivor)
        victim = None
        outage_growth = []
        for i in range(kills + 1):
            victim = b.driver([5], 5, extra=["--rate", "20000", "--idle-us", "200"])
            procs.append(victim)
            wait_for(lambda: port(5)["up"] == 1, 30, f"port 5 up (start {i})")
            tx5 = port(5)["tx_packets"]
            rx5 = port(5)["rx_packets"]
            # Traffic flows on the victim's port again, both ways.
            wait_for(lambda: port(5)["tx_packets"] > tx5 and port(5)["rx_packets"] > rx5, 20,
                     f"traffic on port 5 after start {i}")
            if i == kills:
                break
            time.sleep(0.2)  # mid-traffic
            kill(victim)
            wait_for(lambda: port(5)["up"] == 0, 10, f"port 5 down after kill {i + 1}")
            check(port(5)["link_downs"] == i + 1, f"link_downs {port(5)['link_downs']} after {i + 1} kills")
            before = [port(p)["tx_packets"] for p in (2, 3, 4)]
            time.sleep(0.3)
            after = [port(p)["tx_packets"] for p in (2, 3, 4)]
            check(b.switch.p.poll() is None, f"switch died: {b.switch.log_text()[-2000:]}")
            check(all(a > x for a, x in zip(after, before)),
                  f"outage {i + 1}: ports 2-4 did not keep forwarding: {before} -> {after}")
            outage_growth.append(min(a - x for a, x in zip(after, before)))
        for p in (victim, survivor):
            check(p.stop() == 0, f"driver exited badly: {p.log_text()[-1000:]}")
        # The switch sees a link change up to one interrupt-thread turn (10 ms) late.
        wait_for(lambda: port(5)["up"] == 0, 10, "port 5 down after the victim's own stop")
        tel.close()
        rc = b.switch.stop()
        log = b.switch.log_text()
        check(rc == 0, f"switch exited {rc}: {log[-2000:]}")
        downs = log.count("port 5 (net_memif5, to spine3): link down")
        ups = log.count("port 5 (net_memif5, to spine3): link up")
        # Each kill, and the victim's own stop at the end.
        check(downs == kills + 1 and ups == kills + 1, f"switch logged port 5 down {downs}x, up {ups}x")
        with open(f"{b.dir}/stats.json") as f:
            s = json.load(f)
        rx = sum(p["rx_packets"] for p in s["ports"])
        tx = sum(p["tx_packets"] for p in s["ports"])
        drops = {k: sum(p["drops"][k] for p in s["ports"]) for k in s["ports"][0]["drops"]}
        queued = sum(p["queue_packets"] for p in s["ports"])
        check(rx == tx + sum(drops.values()) + queued,
              f"rx {rx} != tx {tx} + drops {drops} + queued {queued}")
        check(s["ports"][5]["link_downs"] == kills + 1, f"link_downs {s['ports'][5]['link_downs']}")
        return (f"{kills} kills survived; ports 2-4 forwarded >= {min(outage_growth)} packets in every "
                f"outage; rx {rx} = tx {tx} + drops {drops} + queued {queued}")
    finally:
        for p in procs + ([b.switch] if b.switch else []):
            if p.p.poll() is None:
                kill(p)
        b.cleanup()


def test_gen_survives_switch_restart(args):
    # leaf0: port 0 h0, port 1 h1, port 2 spine0 (no peer). 100 MB each way at 1 Gb/s: ~0.8 s
    # of sending, so the kill lands mid-run.
    b = Bench(args, "gen", leaves=1, spines=1,
              extra="workload: {type: permutation, message_size: 100MB, payload: 1400}\n")
    gen = None
    try:
        b.start_switch()
        results = f"{b.dir}/gen.json"
        argv = [f"{args.build}/trafficgen/spraylab-gen", *eal_args("0@0", b.prefix("gen")),
                *b.vdev(0, "client"), *b.vdev(1, "client"), "--",
                "--config", b.config, "--hosts", "h0,h1", "--rate", "1Gbps",
                "--retransmit-timeout", "200ms", "--timeout", "40", "--no-metrics", "--results", results]
        gen = Proc(argv, f"{b.dir}/gen.log")
        wait_for(lambda: "engine(s)" in gen.log_text() or gen.p.poll() is not None, 30, "the generator to start")
        time.sleep(0.4)
        check(gen.p.poll() is None, f"generator ended before the kill: {gen.log_text()[-1500:]}")
        kill(b.switch)
        wait_for(lambda: gen.log_text().count("link down") >= 2, 10, "the generator to see its links down")
        time.sleep(0.5)
        check(gen.p.poll() is None, f"generator died with the switch: {gen.log_text()[-1500:]}")
        b.start_switch()
        line = gen.read_line(60)
        rc = gen._reap(10)
        log = gen.log_text()
        check(line is not None and rc == 0, f"generator exit {rc}, said {line}: {log[-2000:]}")
        with open(results) as f:
            r = json.load(f)
        check(r["completed"], f"collective not completed: {line}")
        check(log.count("link up") >= 2, f"the generator did not log its links up: {log[-1500:]}")
        retx = r["loss"]["retransmits"]
        b.switch.stop()
        return f"completed after a switch restart; {retx} retransmits; {json.loads(line)}"
    finally:
        for p in (gen, b.switch):
            if p is not None and p.p.poll() is None:
                kill(p)
        b.cleanup()


def main():
    ap = case_parser()
    args = ap.parse_args()
    ensure_hugepages()
    cases = [("memif_peer_killed_ten_times", test_memif_peer_killed_ten_times, ()),
             ("gen_survives_switch_restart", test_gen_survives_switch_restart, ())]
    return run_cases(args, cases)


if __name__ == "__main__":
    sys.exit(main())
