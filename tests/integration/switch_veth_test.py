#!/usr/bin/env python3
"""spraylab-switch on veth pairs with net_af_xdp and net_af_packet ports (issue: the multi-core
DPDK data path; docs/switch-ports.md).

The test makes two network namespaces of its own, spraylab-t-<pid>-sw and spraylab-t-<pid>-drv,
and one veth pair per switch port between them (swI in the first, drI in the second; one queue
each, IPv6 off so the kernel stays quiet). The switch runs in the first namespace with
net_af_xdp ports (and the XDP program switch/xdp/spraylab_xdp.o) or net_af_packet ports; the
driver (tests/integration/switch_driver.cpp) runs in the second with net_af_packet ports. Both
namespaces, and with them every veth, are deleted at the end, passed or not. No other interface
is touched. At most two busy-polling processes run at once: the switch on CPU 1, the driver on
CPU 0.

Cases: every packet arrives with rewritten headers (MACs, TTL, checksum: the driver checks) over
af_xdp and over af_packet, and over af_xdp also with two workers and 1514-byte frames; with af_xdp, traffic that is not the testbed's (ARP, ICMP echo, UDP to
another port, UDP 4791 outside 10.0.0.0/8) reaches the kernel of the switch's namespace while the
switch runs, and only the testbed's UDP reaches the switch; the PMD attaches the program while
the switch runs and removes it when the switch stops.
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
from dpdk_procs import Proc, VethPairs, eal_args, ensure_hugepages, sh  # noqa: E402
from cases import case_parser, run_cases, check  # noqa: E402
# Every DPDK process here gets dpdk_procs.eal_args: --no-pci and a --file-prefix of its own.

# leaf0: ports 0-1 face hosts, 2-3 the two spines.
EXPERIMENT = """\
seed: 7
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
links: {rate: 100Gbps, delay: 500ns}
buffer: {bytes: 800KB}
load_balancer: {algorithm: ofan}
"""
PORTS = 4
UPLINKS = [2, 3]
# Copy-mode AF_XDP and AF_PACKET on veth are slow and their rings small. The driver keeps at most
# WINDOW frames in flight (sent and not yet back): fewer than any ring on the way holds (veth
# queue 1000, AF_PACKET FRAMES, AF_XDP 2048, the 800 KB egress buffer: 530 frames of 1514 B), so
# however long either process is descheduled, no ring can overflow and every frame must arrive.
# RATE only keeps the kernel's work modest; nothing asserts it.
PACKETS = 2000
RATE = 10000
WINDOW = 256
AF_PACKET_FRAMES = 2048  # framecnt per ring (default 512)

# Addresses for the kernel-traffic check: not the testbed's (the XDP program passes them).
SW_IP, DRV_IP = "192.168.77.1", "192.168.77.2"
SW_TESTNET_IP = "10.255.0.1"  # in 10.0.0.0/8 but in no route of the switch
OTHER_PORT, TESTBED_PORT = 9999, 4791
PROBES = 5

LISTENER = r"""
import json, select, socket, sys, time
socks = []
for port in (%(ports)s):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    socks.append(s)
print("ready", flush=True)
got = {}
end = time.time() + %(seconds)s
while time.time() < end and "done" not in got:
    r, _, _ = select.select(socks, [], [], 0.05)
    for s in r:
        data, peer = s.recvfrom(2048)
        key = data.decode()
        got[key] = got.get(key, 0) + 1
print(json.dumps(got), flush=True)
"""

SENDER = r"""
import json, os, socket, struct, sys, time
def csum(b):
    if len(b) %% 2: b += b"\0"
    s = sum(struct.unpack("!%%dH" %% (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
# ICMP echo over a raw socket: needs ARP (resolved by the kernel of the other namespace).
icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
icmp.settimeout(1.0)
replies = 0
for seq in range(%(probes)d):
    hdr = struct.pack("!BBHHH", 8, 0, 0, 0x5157, seq) + b"spraylab"
    pkt = hdr[:2] + struct.pack("!H", csum(hdr)) + hdr[4:]
    icmp.sendto(pkt, ("%(sw_ip)s", 0))
    t_end = time.time() + 1.0
    while time.time() < t_end:
        try:
            data, peer = icmp.recvfrom(2048)
        except socket.timeout:
            break
        ihl = (data[0] & 15) * 4
        if peer[0] == "%(sw_ip)s" and data[ihl] == 0 and struct.unpack("!H", data[ihl + 6:ihl + 8])[0] == seq:
            replies += 1
            break
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for dst, port in %(targets)s:
    for _ in range(%(probes)d):
        udp.sendto(f"{dst}:{port}".encode(), (dst, port))
        time.sleep(0.01)
time.sleep(0.1)
udp.sendto(b"done", ("%(sw_ip)s", %(other_port)d))  # the listener stops here (or after its timeout)
print(json.dumps({"echo_replies": replies}), flush=True)
"""


class Case:
    def __init__(self, args, name, pmd, workers=1):
        self.args, self.name, self.pmd, self.workers = args, name, pmd, workers
        self.dir = tempfile.mkdtemp(prefix=f"spraylab-{name}-")
        self.config = os.path.join(self.dir, "exp.yaml")
        with open(self.config, "w") as f:
            f.write(EXPERIMENT)
        tag = f"{os.getpid()}_{name}"
        self.switch_prefix, self.driver_prefix = f"sl_sw_{tag}", f"sl_drv_{tag}"
        self.stats_path = os.path.join(self.dir, "stats.json")
        self.switch = self.driver = None
        self.net = VethPairs(os.getpid(), PORTS)

    def switch_vdevs(self):
        args = []
        for i in range(PORTS):
            if self.pmd == "af_xdp":
                args += ["--vdev", f"net_af_xdp{i},iface=sw{i},xdp_prog={self.args.xdp_prog}"]
            else:
                args += ["--vdev", f"net_af_packet{i},iface=sw{i},framecnt={AF_PACKET_FRAMES}"]
        return args

    def start_switch(self):
        b = self.args.build
        # One worker: the main lcore on CPU 1. More: the main lcore (control, mostly asleep) on
        # CPU 0 and the workers sharing CPU 1, as in the memif test. Each single-queue port is
        # polled by one worker; a port's owner alone sends on it.
        lcores = "0@1" if self.workers == 1 else "0@0,(1-%d)@1" % self.workers
        argv = [*self.net.exec_argv(self.net.sw_ns), f"{b}/switch/spraylab-switch",
                *eal_args(lcores, self.switch_prefix), *self.switch_vdevs(), "--",
                "--config", self.config, "--switch", "leaf0", "--stats-json", self.stats_path,
                "--workers", str(self.workers)]
        self.switch = Proc(argv, os.path.join(self.dir, "switch.log"))
        # Frames sent before the switch's sockets (and XDP program) exist would go to the kernel.
        deadline = time.time() + 30
        while "workers, " not in self.switch.log_text():
            if self.switch.p.poll() is not None or time.time() > deadline:
                raise AssertionError(f"switch did not start: {self.switch.log_text()[-3000:]}")
            time.sleep(0.05)

    def run_driver(self, *extra, timeout=60):
        """Runs the driver's modes and returns {mode: result}; the driver keeps its ports open
        (--hold) until finish(), which stops the switch first (as over memif)."""
        b = self.args.build
        vdevs = []
        for i in range(PORTS):
            vdevs += ["--vdev", f"net_af_packet{i},iface=dr{i},framecnt={AF_PACKET_FRAMES}"]
        argv = [*self.net.exec_argv(self.net.drv_ns), f"{b}/tests/integration/switch_driver",
                *eal_args("0@0", self.driver_prefix), *vdevs, "--", "--hold",
                "--config", self.config, "--switch", "leaf0", *extra]
        self.driver = Proc(argv, os.path.join(self.dir, "driver.log"), stdin=subprocess.PIPE)
        line = self.driver.read_line(timeout)
        if line is None:
            raise AssertionError(f"driver gave no result: {self.driver.log_text()[-3000:]}")
        return json.loads(line)

    def finish(self):
        """Stops the switch, releases the driver, deletes namespaces and veths; returns the
        switch's final counters (None if it failed to write them)."""
        try:
            rc = self.switch.stop() if self.switch else 0
            if self.driver:
                self.driver.release()
            if rc != 0:
                raise AssertionError(f"switch exited {rc}: {self.switch.log_text()[-3000:]}")
            self.prog_after_stop = self.net.xdp_prog("sw0")
            with open(self.stats_path) as f:
                return json.load(f)
        finally:
            self.net.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            for prefix in (self.switch_prefix, self.driver_prefix):
                shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)


def per_port(result):
    return {int(p): n for p, n in result.get("received", {}).items()}


def check_delivery(name, out, stats, extra_rx=0, extra_no_route=0):
    r, loc = out["spread"], out["local"]
    t = stats["totals"]
    # Where packets went missing, if they did: the switch's own view.
    name = (f"{name} (switch rx {t['rx_packets']} tx {t['tx_packets']} drops "
            f"{ {k: v for k, v in t['drops'].items() if v} })")
    check(r["sent"] == PACKETS and loc["sent"] == PACKETS, f"{name}: driver sent {r['sent']} / {loc['sent']}")
    check(r["received_total"] == PACKETS, f"{name}: spread: sent {r['sent']} got {r['received_total']}")
    check(r["bad_headers"] == 0, f"{name}: spread: {r['bad_headers']} packets with wrong headers")
    ports = per_port(r)
    check(set(ports) == set(UPLINKS), f"{name}: spread: packets on ports {ports}, expected all of {UPLINKS}")
    check(loc["received_total"] == PACKETS and per_port(loc) == {1: PACKETS},
          f"{name}: local delivery {loc}")
    check(loc["bad_headers"] == 0, f"{name}: local: {loc['bad_headers']} packets with wrong headers")
    check(t["rx_packets"] == 2 * PACKETS + extra_rx,
          f"{name}: switch rx {t['rx_packets']}, expected {2 * PACKETS + extra_rx}")
    drops = dict(t["drops"])
    check(drops.get("no_route", 0) == extra_no_route, f"{name}: no_route drops {drops.get('no_route')}")
    drops.pop("no_route", None)
    check(all(v == 0 for v in drops.values()), f"{name}: drops {t['drops']}")
    return ports


def kernel_traffic(c):
    """While the switch runs: ARP + ICMP echo and UDP that is not the testbed's, from the driver's
    namespace to the switch's; returns (echo replies, datagrams the kernel got per target)."""
    sw, drv = c.net.sw_ns, c.net.drv_ns
    sh("ip", "-n", sw, "addr", "add", f"{SW_IP}/24", "dev", "sw0")
    sh("ip", "-n", sw, "addr", "add", f"{SW_TESTNET_IP}/32", "dev", "sw0")
    sh("ip", "-n", drv, "addr", "add", f"{DRV_IP}/24", "dev", "dr0")
    sh("ip", "-n", drv, "route", "add", f"{SW_TESTNET_IP}/32", "via", SW_IP, "dev", "dr0")
    listener = subprocess.Popen(
        ["ip", "netns", "exec", sw, sys.executable, "-c",
         LISTENER % {"ports": f"{OTHER_PORT}, {TESTBED_PORT}", "seconds": 20}],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if listener.stdout.readline().strip() != "ready":
            raise AssertionError(f"listener did not start: {listener.stderr.read()}")
        targets = [(SW_IP, TESTBED_PORT), (SW_TESTNET_IP, OTHER_PORT), (SW_TESTNET_IP, TESTBED_PORT)]
        sender = subprocess.run(
            ["ip", "netns", "exec", drv, sys.executable, "-c",
             SENDER % {"probes": PROBES, "sw_ip": SW_IP, "other_port": OTHER_PORT, "targets": repr(targets)}],
            capture_output=True, text=True, timeout=60)
        check(sender.returncode == 0, f"sender: {sender.stderr}")
        echo = json.loads(sender.stdout.strip().splitlines()[-1])["echo_replies"]
        out, err = listener.communicate(timeout=30)
        got = json.loads(out.strip().splitlines()[-1])
    finally:
        if listener.poll() is None:
            listener.kill()
            listener.wait()
    return echo, got


def test_af_xdp(args):
    c = Case(args, "af_xdp", "af_xdp")
    try:
        c.start_switch()
        check(c.net.xdp_prog("sw0") == "spraylab_xdp",
              f"sw0 runs XDP program {c.net.xdp_prog('sw0')}, expected spraylab_xdp")
        out = c.run_driver("--mode", "spread,local", "--packets", str(PACKETS), "--flows", "64", "--window", str(WINDOW),
                           "--rate", str(RATE))
        echo, got = kernel_traffic(c)
    finally:
        stats = c.finish()
    ports = check_delivery("af_xdp", out, stats, extra_rx=PROBES, extra_no_route=PROBES)
    # What the program passes reached the kernel; the testbed's UDP (10/8, port 4791) did not.
    check(echo == PROBES, f"{echo} of {PROBES} ICMP echoes answered: ARP/ICMP did not reach the kernel")
    check(got.get(f"{SW_IP}:{TESTBED_PORT}", 0) == PROBES,
          f"UDP {TESTBED_PORT} outside 10/8: kernel got {got.get(f'{SW_IP}:{TESTBED_PORT}', 0)} of {PROBES} (all: {got})")
    check(got.get(f"{SW_TESTNET_IP}:{OTHER_PORT}", 0) == PROBES,
          f"UDP {OTHER_PORT} to 10/8: kernel got {got.get(f'{SW_TESTNET_IP}:{OTHER_PORT}', 0)} of {PROBES}")
    check(got.get(f"{SW_TESTNET_IP}:{TESTBED_PORT}", 0) == 0,
          f"testbed UDP reached the kernel {got.get(f'{SW_TESTNET_IP}:{TESTBED_PORT}')} times")
    check(c.prog_after_stop is None, f"XDP program {c.prog_after_stop} still attached after the switch stopped")
    return (f"per uplink {ports}, local {PACKETS}/{PACKETS}; kernel got echo {echo}/{PROBES}, "
            f"udp {got}; switch took {PROBES} testbed probes (no_route); program detached at stop")


def test_two_workers_full_frames(args, pmd):
    """Two workers (one owns ports 0 and 2, the other 1 and 3, so packets cross workers through
    the egress rings) and 1514-byte frames, the largest a veth of MTU 1500 carries. The two
    workers time-share CPU 1; the driver's window (WINDOW frames, under the 530 such frames the
    800 KB egress buffer holds) is what keeps a descheduled port owner from overflowing it."""
    c = Case(args, f"{pmd}_w2", pmd, workers=2)
    try:
        c.start_switch()
        out = c.run_driver("--mode", "spread,local", "--packets", str(PACKETS), "--flows", "64", "--window", str(WINDOW),
                           "--rate", str(RATE // 2), "--payload", "1472")
    finally:
        stats = c.finish()
    ports = check_delivery(f"{pmd}, 2 workers", out, stats)
    per_worker = stats["worker_rx_packets"]
    check(len(per_worker) == 2, f"{pmd}: {len(per_worker)} workers reported")
    return f"per uplink {ports}, local {PACKETS}/{PACKETS}, rx per worker {per_worker}"


def test_af_packet(args):
    c = Case(args, "af_packet", "af_packet")
    try:
        c.start_switch()
        out = c.run_driver("--mode", "spread,local", "--packets", str(PACKETS), "--flows", "64", "--window", str(WINDOW),
                           "--rate", str(RATE))
    finally:
        stats = c.finish()
    ports = check_delivery("af_packet", out, stats)
    return f"per uplink {ports}, local {PACKETS}/{PACKETS}"


def main():
    ap = case_parser()
    ap.add_argument("--xdp-prog", required=True, help="the built switch/xdp/spraylab_xdp.o")
    args = ap.parse_args()
    args.xdp_prog = os.path.abspath(args.xdp_prog)
    if os.geteuid() != 0:
        print("FAIL: needs root (network namespaces, veth, AF_XDP)")
        return 1
    ensure_hugepages()
    cases = [("af_xdp_delivers_and_passes_the_rest", test_af_xdp, ()),
             ("af_packet_delivers_every_packet", test_af_packet, ()),
             ("af_xdp_two_workers_1514B_frames", test_two_workers_full_frames, ("af_xdp",))]
    return run_cases(args, cases)


if __name__ == "__main__":
    sys.exit(main())
