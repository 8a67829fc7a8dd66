#!/usr/bin/env python3
"""A peer that dies (issue #12, item 3): processes of a container fabric come and go, and
nothing may crash for it.

DPDK 22.11's memif tears a link down (munmap of the shared rings) on its interrupt thread while a
poller may be inside a burst; spraylab's pollers take turns with that thread
(net/intr_gate.h). Without that, spraylab-switch died of SIGSEGV within 5-25 kills
of a full-rate peer. vhost-user guards its own queues (the PMD's allow_queuing / while_queuing
handshake) and reports the link down when its virtio-user peer's socket closes; af_xdp never
reports a link down, so the switch reads the interface's carrier (docs/switch.md).

At most two busy-polling processes at once: the switch (CPU 1) and one driver (CPU 0); the
victim peer sleeps between turns (--idle-us).

Cases:
  {memif,vhost,af_xdp}_peer_killed_ten_times  leaf0 of a 2-leaf, 4-spine fabric on six ports:
      ports 0-4 memif, port 5 (spine3) the victim's link. One driver streams h0 -> hosts of leaf1
      at full rate on ports 0-4 (memif); a victim driver on port 5 streams into the switch and
      drains what it gets. The victim is killed (SIGKILL) and restarted ten times: the switch stays
      up, logs and counts port 5 down and up each time, keeps forwarding on ports 2-4 during every
      outage, forwards on port 5 again at the end, and its counters balance: rx = tx + drops +
      still queued. Port 5 is
        memif: a memif server; the victim a memif client.
        vhost: net_vhost5 (vhost-user server); the victim net_virtio_user on its socket.
        af_xdp: net_af_xdp5 on veth sw0 in a namespace of the test's own, where the switch runs;
          the victim runs net_af_packet on the peer dr0 in a second namespace. A kill also takes
          dr0 down (as a container's interface goes when it stops) and a restart brings it up
          first. Needs root and AF_XDP: SKIP (not a pass) where the kernel has none. Both
          namespaces, and the veth with them, are deleted at the end, passed or not.
  gen_survives{,_vhost,_af_xdp}_switch_restart  spraylab-gen (h0, h1 on two ports) runs a
      permutation through leaf0; the switch is killed (SIGKILL) mid-run and restarted: the
      generator logs both links down and up and completes its collective (retransmissions allowed).
      The generator's ports are
        memif: memif clients of the switch's servers; they redial the restarted switch.
        vhost: net_vhost servers (the generator starts first); the switch dials them with
          net_virtio_user (and has a null device on spine0: --in-memory, which virtio-user's
          shared memory needs, leaves memif no multi-process channel). The servers stay, so the
          restarted switch dials again.
        af_xdp: net_af_xdp on dr0/dr1 in a namespace of the test's own; the switch runs
          net_af_packet on sw0/sw1 in a second one (af_xdp would leave its XDP program on the
          interface when killed). The kill also takes sw0/sw1 down, as a dying container's
          interfaces go, and they come up before the restart: the generator sees the carrier go
          (net::CarrierWatch) and holds its frames meanwhile. Needs root and AF_XDP (SKIP
          otherwise). The figure dr0/dr1 tx_dropped is what the kernel dropped of frames sent
          before the generator saw the carrier go.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
from dpdk_procs import Proc, Telemetry, VethPairs, eal_args, ensure_hugepages, sh  # noqa: E402
from cases import Skip, case_parser, run_cases, check  # noqa: E402

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
    """A temporary folder, the switch and its peers. Every switch port is a memif server, except
    the victim's (the last) when `victim` says otherwise: "vhost" (vhost-user server in the switch,
    virtio-user in the victim driver) or "af_xdp" (net_af_xdp on veth sw0 in a namespace of the
    test's own, where the switch runs; the victim driver runs net_af_packet on its peer dr0 in a
    second namespace)."""

    def __init__(self, args, name, leaves=2, spines=4, extra="", victim="memif", gen_link=None):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix=f"peerkill-{name}-")
        self.config = os.path.join(self.dir, "exp.yaml")
        with open(self.config, "w") as f:
            f.write(FABRIC.format(leaves=leaves, spines=spines, extra=extra))
        self.ports = 2 + spines
        self.victim = victim
        self.victim_port = self.ports - 1
        self.tag = f"{os.getpid()}_{name}"
        self.prefixes = []
        self.switch = None
        self.starts = 0
        self.net = None
        # The generator's cases: how spraylab-gen's two ports (h0, h1) reach the switch's ports
        # 0 and 1 (None: the victim cases' memif servers).
        self.gen_link = gen_link
        if victim == "af_xdp":
            self.net = VethPairs(f"{os.getpid()}-pk", 1)
        elif gen_link == "af_xdp":
            self.net = VethPairs(f"{os.getpid()}-pg", 2)

    def vdev(self, port, role):
        return ["--vdev", f"net_memif{port},role={role},id=0,socket={self.dir}/p{port}.sock,socket-abstract=no"]

    def switch_vdev(self, port):
        if self.gen_link == "vhost":
            # The generator's net_vhost servers stay; the switch dials them with virtio-user, and
            # a restarted switch dials again. No memif here (--in-memory has no multi-process
            # channel): spine0, which has no peer, is a null device that receives nothing.
            if port < 2:
                return ["--vdev", f"net_virtio_user{port},path={self.dir}/g{port}.sock,queues=1"]
            return ["--vdev", f"net_null{port},no-rx=1"]
        if self.gen_link == "af_xdp" and port < 2:
            # A socket that a SIGKILL leaves nothing of (af_xdp would leave its XDP program on
            # the interface for the next switch to meet).
            return ["--vdev", f"net_af_packet{port},iface=sw{port}"]
        if port == self.victim_port and self.victim == "vhost":
            return ["--vdev", f"net_vhost{port},iface={self.dir}/v{port}.sock,queues=1"]
        if port == self.victim_port and self.victim == "af_xdp":
            return ["--vdev", f"net_af_xdp{port},iface=sw0"]
        return self.vdev(port, "server")

    def device(self, port):
        """The switch's name for a port's device, as its log lines give it."""
        kind = self.victim if port == self.victim_port else "memif"
        return f"net_{kind}{port}"

    def prefix(self, what):
        p = f"peerkill_{what}_{self.tag}_{len(self.prefixes)}"
        self.prefixes.append(p)
        return p

    def start_switch(self):
        # A server killed by SIGKILL leaves its socket files: whoever restarts it removes them
        # (memif's listener cannot bind over them).
        for p in range(self.ports):
            for path in (f"{self.dir}/p{p}.sock", f"{self.dir}/v{p}.sock"):
                if os.path.exists(path):
                    os.unlink(path)
        self.starts += 1
        self.switch_prefix = self.prefix("sw")
        netns = ["ip", "netns", "exec", self.net.sw_ns] if self.net else []
        # virtio-user shares its memory with the vhost-user server by file descriptor: one per
        # segment list with --single-file-segments, which --huge-unlink excludes.
        memory = ("--in-memory", ("--single-file-segments",)) if self.gen_link == "vhost" else ("--huge-unlink", ())
        argv = [*netns, f"{self.args.build}/switch/spraylab-switch",
                *eal_args("0@1", self.switch_prefix, memory[1], memory[0]),
                *sum((self.switch_vdev(p) for p in range(self.ports)), []), "--",
                "--config", self.config, "--switch", "leaf0", "--no-metrics",
                "--stats-json", f"{self.dir}/stats.json"]
        self.switch = Proc(argv, f"{self.dir}/switch{self.starts}.log")
        wait_for(lambda: "workers, " in self.switch.log_text() or self.switch.p.poll() is not None, 30,
                 "the switch to start")
        check(self.switch.p.poll() is None, f"switch did not start: {self.switch.log_text()[-2000:]}")

    def driver(self, attach, from_port, lcores="0@0", extra=()):
        """A switch_driver streaming into `from_port`, wired to the switch ports `attach`: over
        memif, or for the victim's port alone over the victim's link."""
        netns, vdevs, memory, eal_extra = [], [], "--huge-unlink", ()
        if attach == [self.victim_port] and self.victim == "vhost":
            # virtio-user shares its memory with the switch by file descriptor: one per segment
            # list with --single-file-segments, which --huge-unlink excludes.
            vdevs = ["--vdev", f"net_virtio_user0,path={self.dir}/v{self.victim_port}.sock,queues=1"]
            memory, eal_extra = "--in-memory", ("--single-file-segments",)
        elif attach == [self.victim_port] and self.victim == "af_xdp":
            netns = ["ip", "netns", "exec", self.net.drv_ns]
            vdevs = ["--vdev", "net_af_packet0,iface=dr0"]
        else:
            vdevs = sum((self.vdev(p, "client") for p in attach), [])
        argv = [*netns, f"{self.args.build}/tests/integration/switch_driver",
                *eal_args(lcores, self.prefix("drv"), eal_extra, memory), *vdevs, "--",
                "--config", self.config, "--switch", "leaf0", "--mode", "stream",
                "--attach", ",".join(map(str, attach)), "--from-port", str(from_port), *extra]
        return Proc(argv, f"{self.dir}/driver_{attach[0]}_{len(self.prefixes)}.log")

    def switch_links(self, up):
        """The generator's af_xdp case: the switch's ends of the veths go down with it (as a
        dying container's interfaces go) and up again before it restarts."""
        if self.gen_link == "af_xdp":
            for i in range(2):
                sh("ip", "-n", self.net.sw_ns, "link", "set", f"sw{i}", "up" if up else "down")

    def victim_link(self, up):
        """af_xdp: the victim's end of the veth goes down with it, as a container's does when it
        stops, and up again before it restarts. The other links need nothing: the switch sees a
        memif or vhost-user peer go the moment its socket closes."""
        if self.victim == "af_xdp":
            sh("ip", "-n", self.net.drv_ns, "link", "set", "dr0", "up" if up else "down")

    def kernel_tx(self):
        """af_xdp: what the kernel did with the frames the switch put on sw0: {"packets": passed
        to dr0, "dropped": dropped (dr0 down: sent before the switch saw the carrier go)}."""
        out = sh("ip", "-n", self.net.sw_ns, "-j", "-s", "link", "show", "sw0")
        tx = json.loads(out)[0]["stats64"]["tx"]
        return {"packets": tx["packets"], "dropped": tx["dropped"]}

    def cleanup(self):
        if self.net:
            self.net.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        for p in self.prefixes:
            shutil.rmtree(f"/var/run/dpdk/{p}", ignore_errors=True)


def kill(proc):
    proc.p.send_signal(signal.SIGKILL)
    proc.p.wait()
    proc.log.close()


def af_xdp_unavailable():
    """Why an af_xdp port on a veth of the test's own cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth, AF_XDP)"
    try:
        socket.socket(44, socket.SOCK_RAW, 0).close()  # AF_XDP
    except OSError as e:
        return f"the kernel refuses AF_XDP sockets: {e}"
    return None


def test_peer_killed_ten_times(args, victim, kills=10):
    why_not = af_xdp_unavailable() if victim == "af_xdp" else None
    if why_not:
        raise Skip(why_not)
    b = Bench(args, victim, victim=victim)
    v = b.victim_port
    procs = []
    try:
        b.start_switch()
        tel = Telemetry(b.switch_prefix)
        def port(p):
            check(b.switch.p.poll() is None, f"the switch died: {b.switch.log_text()[-1500:]}")
            return tel.query(f"/spraylab/port,{p}")
        survivor = b.driver(list(range(v)), 0)
        procs.append(survivor)
        victim_proc = None
        outage_growth = []
        for i in range(kills + 1):
            victim_proc = b.driver([v], v, extra=["--rate", "20000", "--idle-us", "200"])
            procs.append(victim_proc)
            wait_for(lambda: port(v)["up"] == 1, 30, f"port {v} up (start {i})")
            tx_v = port(v)["tx_packets"]
            rx_v = port(v)["rx_packets"]
            # Traffic flows on the victim's port again, both ways.
            wait_for(lambda: port(v)["tx_packets"] > tx_v and port(v)["rx_packets"] > rx_v, 20,
                     f"traffic on port {v} after start {i}")
            if i == kills:
                break
            time.sleep(0.2)  # mid-traffic
            kill(victim_proc)
            b.victim_link(up=False)
            try:
                wait_for(lambda: port(v)["up"] == 0, 10, f"port {v} down after kill {i + 1}")
            except AssertionError as e:
                raise AssertionError(f"{e}; port {v}: {port(v)}; switch log: "
                                     f"{b.switch.log_text()[-2500:]}") from None
            check(port(v)["link_downs"] == i + 1, f"link_downs {port(v)['link_downs']} after {i + 1} kills")
            before = [port(p)["tx_packets"] for p in range(2, v)]
            time.sleep(0.3)
            after = [port(p)["tx_packets"] for p in range(2, v)]
            check(b.switch.p.poll() is None, f"switch died: {b.switch.log_text()[-2000:]}")
            check(all(a > x for a, x in zip(after, before)),
                  f"outage {i + 1}: ports 2-{v - 1} did not keep forwarding: {before} -> {after}")
            outage_growth.append(min(a - x for a, x in zip(after, before)))
            b.victim_link(up=True)
        for p in (victim_proc, survivor):
            check(p.stop() == 0, f"driver exited badly: {p.log_text()[-1000:]}")
        b.victim_link(up=False)
        # The switch sees a link change up to one interrupt-thread turn (10 ms) late.
        wait_for(lambda: port(v)["up"] == 0, 10, f"port {v} down after the victim's own stop")
        tel.close()
        rc = b.switch.stop()
        log = b.switch.log_text()
        check(rc == 0, f"switch exited {rc}: {log[-2000:]}")
        line = f"port {v} ({b.device(v)}, to spine3): link"
        downs, ups = log.count(f"{line} down"), log.count(f"{line} up")
        # Each kill, and the victim's own stop at the end.
        check(downs == kills + 1 and ups == kills + 1, f"switch logged port {v} down {downs}x, up {ups}x")
        with open(f"{b.dir}/stats.json") as f:
            s = json.load(f)
        rx = sum(p["rx_packets"] for p in s["ports"])
        tx = sum(p["tx_packets"] for p in s["ports"])
        drops = {k: sum(p["drops"][k] for p in s["ports"]) for k in s["ports"][0]["drops"]}
        queued = sum(p["queue_packets"] for p in s["ports"])
        check(rx == tx + sum(drops.values()) + queued,
              f"rx {rx} != tx {tx} + drops {drops} + queued {queued}")
        check(s["ports"][v]["link_downs"] == kills + 1, f"link_downs {s['ports'][v]['link_downs']}")
        pv = s["ports"][v]
        kernel = ""
        if victim == "af_xdp":
            # Nothing the switch counted as sent vanished: the kernel passed it on or counted it.
            k = b.kernel_tx()
            check(pv["tx_packets"] == k["packets"] + k["dropped"],
                  f"port {v} tx {pv['tx_packets']} != sw0 tx {k['packets']} + tx_dropped {k['dropped']}")
            kernel = f" (sw0: {k['packets']} to dr0, {k['dropped']} dropped by the kernel)"
        return (f"{kills} kills survived; ports 2-{v - 1} forwarded >= {min(outage_growth)} packets in every "
                f"outage; port {v} rx {pv['rx_packets']} tx {pv['tx_packets']}{kernel}; "
                f"rx {rx} = tx {tx} + drops { {k: n for k, n in drops.items() if n} } + queued {queued}")
    finally:
        for p in procs + ([b.switch] if b.switch else []):
            if p.p.poll() is None:
                kill(p)
        b.cleanup()


def gen_vdevs(b):
    """spraylab-gen's two ports (h0, h1), as b.gen_link says, and what its argv needs first."""
    if b.gen_link == "vhost":
        return [], sum((["--vdev", f"net_vhost{p},iface={b.dir}/g{p}.sock,queues=1"] for p in range(2)), [])
    if b.gen_link == "af_xdp":
        return (["ip", "netns", "exec", b.net.drv_ns],
                sum((["--vdev", f"net_af_xdp{p},iface=dr{p}"] for p in range(2)), []))
    return [], b.vdev(0, "client") + b.vdev(1, "client")


def gen_argv(b, vdevs, results, netns=(), stats=None):
    """spraylab-gen on `vdevs` running b.config's permutation between h0 and h1 at 1 Gb/s, patient
    enough (40 s link wait and timeout, 200 ms retransmits) to outlive a peer's restart."""
    argv = [*netns, f"{b.args.build}/trafficgen/spraylab-gen", *eal_args("0@0", b.prefix("gen")), *vdevs, "--",
            "--config", b.config, "--hosts", "h0,h1", "--rate", "1Gbps", "--link-wait", "40",
            "--retransmit-timeout", "200ms", "--timeout", "40", "--no-metrics", "--results", results]
    return argv + (["--stats-json", stats] if stats else [])


def wait_gen_sending(gen):
    """Until the generator has started its engines, and a little more: a kill then lands mid-run."""
    wait_for(lambda: "engine(s)" in gen.log_text() or gen.p.poll() is not None, 30, "the generator to start")
    time.sleep(0.4)


def test_gen_survives_switch_restart(args, link="memif"):
    """spraylab-gen with h0, h1 on two ports of `link` runs a permutation through the switch; the
    switch is killed mid-run and restarted."""
    if link == "af_xdp":
        why_not = af_xdp_unavailable()
        if why_not:
            raise Skip(why_not)
    # leaf0: port 0 h0, port 1 h1, port 2 spine0 (no peer). 100 MB each way at 1 Gb/s: ~0.8 s
    # of sending, so the kill lands mid-run.
    b = Bench(args, f"gen_{link}", leaves=1, spines=1, gen_link=link,
              extra="workload: {type: permutation, message_size: 100MB, payload: 1400}\n")
    gen = None
    try:
        # The memif and af_xdp switch first (a memif client dials a listening server); the vhost
        # generator first (its vhost-user servers are what the switch's virtio-user dials).
        if link != "vhost":
            b.start_switch()
        results, stats = f"{b.dir}/gen.json", f"{b.dir}/gen_stats.json"
        netns, vdevs = gen_vdevs(b)
        gen = Proc(gen_argv(b, vdevs, results, netns, stats), f"{b.dir}/gen.log")
        if link == "vhost":
            wait_for(lambda: gen.log_text().count("port ") >= 2 or gen.p.poll() is not None, 30,
                     "the generator's vhost-user sockets")
            b.start_switch()
        wait_gen_sending(gen)
        check(gen.p.poll() is None, f"generator ended before the kill: {gen.log_text()[-1500:]}")
        kill(b.switch)
        b.switch_links(up=False)
        wait_for(lambda: gen.log_text().count("link down") >= 2, 10, "the generator to see its links down")
        time.sleep(0.5)
        check(gen.p.poll() is None, f"generator died with the switch: {gen.log_text()[-1500:]}")
        b.switch_links(up=True)
        b.start_switch()
        line = gen.read_line(60)
        rc = gen._reap(10)
        log = gen.log_text()
        check(line is not None and rc == 0, f"generator exit {rc}, said {line}: {log[-2000:]}")
        with open(results) as f:
            r = json.load(f)
        check(r["completed"], f"collective not completed: {line}")
        downs, ups = log.count("link down"), log.count("link up")
        check(downs >= 2 and ups >= 2, f"the generator logged links down {downs}x, up {ups}x: {log[-1500:]}")
        with open(stats) as f:
            st = json.load(f)
        retx = r["loss"]["retransmits"]
        kernel = ""
        if link == "af_xdp":
            # What the generator put on dr0/dr1 while the switch's ends were down, before its
            # carrier watch saw it: the kernel dropped and counted it (the figure, no assertion).
            tx = [json.loads(sh("ip", "-n", b.net.drv_ns, "-j", "-s", "link", "show", f"dr{i}"))[0]["stats64"]["tx"]
                  for i in range(2)]
            kernel = f"; dr0/dr1 tx {sum(t['packets'] for t in tx)}, tx_dropped {sum(t['dropped'] for t in tx)}"
        b.switch.stop()
        return (f"{link}: completed after a switch restart; links down {downs}x, up {ups}x; {retx} retransmits; "
                f"tx_pending {st['tx_pending']}{kernel}; {json.loads(line)['messages_done']} messages done")
    finally:
        for p in (gen, b.switch):
            if p is not None and p.p.poll() is None:
                kill(p)
        b.cleanup()


def test_gen_redials_a_server_that_starts_late(args):
    """A restarted memif server whose socket files exist before its ports start (testpmd
    --disable-device-start here; a switch under load, between probe and start) rejects the
    generator's dial; the generator dials the same files again until its links come up, and its
    collective completes through testpmd io (port 0 to port 1 and back: a wire)."""
    b = Bench(args, "gen_late", leaves=1, spines=1,
              extra="workload: {type: permutation, message_size: 100MB, payload: 1400}\n")
    gen = tp = None
    try:
        b.start_switch()
        results = f"{b.dir}/gen.json"
        gen = Proc(gen_argv(b, b.vdev(0, "client") + b.vdev(1, "client"), results), f"{b.dir}/gen.log")
        wait_gen_sending(gen)
        kill(b.switch)
        wait_for(lambda: gen.log_text().count("link down") >= 2, 10, "the generator to see its links down")
        for p in range(2):
            os.unlink(f"{b.dir}/p{p}.sock")  # what a SIGKILL leaves
        tp_log = open(f"{b.dir}/testpmd.log", "w")
        tp = subprocess.Popen(["dpdk-testpmd", *eal_args("0@1,1@1", b.prefix("tp")), *b.vdev(0, "server"),
                               *b.vdev(1, "server"), "--", "--forward-mode=io", "-i", "--disable-device-start"],
                              stdin=subprocess.PIPE, stdout=tp_log, stderr=subprocess.STDOUT, text=True)
        wait_for(lambda: all(os.path.exists(f"{b.dir}/p{p}.sock") for p in range(2)) or tp.poll() is not None, 30,
                 "testpmd's socket files")
        time.sleep(3)  # the generator dials the new files (within 0.5 s) and is turned away
        check(gen.log_text().count("link up") == 0, f"links up before the server started: {gen.log_text()[-800:]}")
        tp.stdin.write("port start all\nstart\n")
        tp.stdin.flush()
        line = gen.read_line(60)
        rc = gen._reap(10)
        log = gen.log_text()
        check(line is not None and rc == 0, f"generator exit {rc}, said {line}: {log[-1500:]}")
        with open(results) as f:
            check(json.load(f)["completed"], f"collective not completed: {line}")
        ups = log.count("link up")
        check(ups >= 2, f"the generator logged links up {ups}x: {log[-1500:]}")
        return f"completed through a server that started its ports 3 s after its sockets; links up {ups}x"
    finally:
        if tp is not None and tp.poll() is None:
            tp.stdin.write("quit\n")
            tp.stdin.flush()
            try:
                tp.wait(timeout=10)
            except subprocess.TimeoutExpired:
                tp.kill()
                tp.wait()
        for p in (gen, b.switch):
            if p is not None and p.p.poll() is None:
                kill(p)
        b.cleanup()


def main():
    ap = case_parser()
    args = ap.parse_args()
    ensure_hugepages()
    cases = [("memif_peer_killed_ten_times", test_peer_killed_ten_times, ("memif",)),
             ("vhost_peer_killed_ten_times", test_peer_killed_ten_times, ("vhost",)),
             ("af_xdp_peer_killed_ten_times", test_peer_killed_ten_times, ("af_xdp",)),
             ("gen_survives_switch_restart", test_gen_survives_switch_restart, ("memif",)),
             ("gen_redials_a_server_that_starts_late", test_gen_redials_a_server_that_starts_late, ()),
             ("gen_survives_vhost_switch_restart", test_gen_survives_switch_restart, ("vhost",)),
             ("gen_survives_af_xdp_switch_restart", test_gen_survives_switch_restart, ("af_xdp",))]
    return run_cases(args, cases)


if __name__ == "__main__":
    sys.exit(main())
