#!/usr/bin/env python3
"""What spraylab's processes expose by default (issue 12, "Exposure").

Every socket a process holds is found from /proc: its descriptors (/proc/PID/fd, "socket:[INODE]")
looked up in the tables of its network namespace (/proc/PID/net/tcp, tcp6, udp, udp6, raw, raw6,
unix, netlink, packet). A socket is acceptable when it is
  - TCP/UDP/raw bound to a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z),
  - UNIX with no name (socket pairs, clients), or a filesystem name under the process's DPDK
    runtime folder (/var/run/dpdk/<file-prefix>/: EAL's multi-process channel, the telemetry
    socket) or one of the memif socket paths the test gave,
  - netlink (local to the kernel by nature).
Anything else — a wildcard or external address, an abstract UNIX name, a UNIX name elsewhere, a
packet socket — is reported with what it is.

Cases:
  switch_and_generator_bind_only_local  spraylab-switch (leaf0, memif server) and spraylab-gen (h0,
                                        h1, memif clients) with default options, wired to each other:
                                        scanned after the generator finished (holding its ports)
                                        while both serve metrics; both must show a loopback TCP
                                        listener (the exporter), and nothing non-local.
  inprocess_fabric_binds_nothing        `spraylab run --mode inprocess` scanned mid-run: no TCP/UDP
                                        socket and no named UNIX socket at all.
  wildcard_bind_is_caught               the scan's own check: a switch told --metrics-address
                                        0.0.0.0:0 is reported, naming that listener (and the
                                        switch warns about it at start-up).

At most two busy-polling processes run at once (switch on CPU 1, generator on CPU 0).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TESTS, "integration"), TESTS]  # dpdk_procs, cases
from dpdk_procs import Proc, eal_args, ensure_hugepages  # noqa: E402
from cases import case_parser, run_cases, check, fabric_runtime_dir  # noqa: E402

EXPERIMENT = """\
seed: 4
topology: {generator: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 2}
links: {rate: 1Gbps, delay: 1us}
workload: {type: permutation, message_size: 64KB, payload: 1024}
"""
SWITCH_PORTS = 3  # leaf0: h0, h1, spine0 (no peer: its link stays down)
HOSTS = 2

# A fabric run that lasts long enough to be scanned: a big permutation on a slow in-process link.
FABRIC_EXPERIMENT = """\
name: exposure
seed: 4
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
links: {rate: 100Mbps, delay: 1us}
workload: {type: permutation, message_size: 64MB}
"""



# ---- The scan. ----

def socket_inodes(pid):
    """Inodes of every socket the process holds (its threads share the descriptor table)."""
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue  # closed since listdir
        if target.startswith("socket:["):
            inodes.add(int(target[len("socket:["):-1]))
    return inodes


def hex_ipv4(text):
    """/proc/net/tcp's little-endian hex address as dotted quad."""
    raw = bytes.fromhex(text)
    return ".".join(str(b) for b in reversed(raw))


def hex_ipv6(text):
    """/proc/net/tcp6's address: four little-endian 32-bit words."""
    raw = b"".join(bytes.fromhex(text[i:i + 8])[::-1] for i in range(0, 32, 8))
    return ":".join(raw[i:i + 2].hex() for i in range(0, 16, 2))


def is_loopback(family, addr):
    if family == 4:
        return addr.startswith("127.")
    words = addr.split(":")
    if words == ["0000"] * 7 + ["0001"]:  # ::1
        return True
    if words[:6] == ["0000"] * 5 + ["ffff"]:  # ::ffff:a.b.c.d
        return int(words[6][:2], 16) == 127
    return False


def inet_sockets(pid, table):
    """{inode: (table, local address, port, state)} of the namespace's table."""
    family = 6 if table.endswith("6") else 4
    out = {}
    try:
        with open(f"/proc/{pid}/net/{table}") as f:
            lines = f.readlines()[1:]
    except FileNotFoundError:
        return out
    for line in lines:
        fields = line.split()
        local, state, inode = fields[1], fields[3], int(fields[9])
        host, port = local.split(":")
        addr = hex_ipv4(host) if family == 4 else hex_ipv6(host)
        out[inode] = (table, family, addr, int(port, 16), state)
    return out


def unix_sockets(pid):
    """{inode: path or ''} of the namespace's UNIX sockets."""
    out = {}
    with open(f"/proc/{pid}/net/unix") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            out[int(fields[6])] = fields[7] if len(fields) > 7 else ""
    return out


def inode_column(pid, table, column):
    try:
        with open(f"/proc/{pid}/net/{table}") as f:
            return {int(line.split()[column]) for line in f.readlines()[1:]}
    except FileNotFoundError:
        return set()


def runtime_dir(prefix):
    """DPDK 22.11's runtime folder of a --file-prefix (eal_create_runtime_dir)."""
    if os.geteuid() == 0:
        base = "/var/run"
    else:
        base = os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", prefix)


def under(path, folder):
    return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def scan(pid, allowed_dirs=(), allowed_paths=()):
    """(every socket described, the non-local ones described) of a running process."""
    inodes = socket_inodes(pid)
    inet = {}
    for table in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6"):
        inet.update(inet_sockets(pid, table))
    unix = unix_sockets(pid)
    netlink = inode_column(pid, "netlink", 9)
    packet = inode_column(pid, "packet", 8)
    allowed_paths = {os.path.realpath(p) for p in allowed_paths}
    seen, bad = [], []
    for inode in sorted(inodes):
        if inode in inet:
            table, family, addr, port, state = inet[inode]
            what = f"{table} {addr}:{port}" + (" LISTEN" if table.startswith("tcp") and state == "0A" else "")
            seen.append(what)
            if not is_loopback(family, addr):
                bad.append(what + " (not loopback)")
        elif inode in unix:
            path = unix[inode]
            seen.append(f"unix {path or '(unnamed)'}")
            if not path:
                continue
            if path.startswith("@"):
                bad.append(f"unix {path} (abstract: reachable from the whole network namespace)")
            elif not (os.path.realpath(path) in allowed_paths or any(under(path, d) for d in allowed_dirs)):
                bad.append(f"unix {path} (outside {list(allowed_dirs)} and {sorted(allowed_paths)})")
        elif inode in netlink:
            seen.append("netlink")
        elif inode in packet:
            seen.append("packet")
            bad.append("packet socket (sees every frame of an interface)")
        else:
            # Closed between the two reads, or a kind no table lists: say so rather than pass it.
            if os.path.exists(f"/proc/{pid}"):
                still = socket_inodes(pid)
                if inode in still:
                    bad.append(f"socket inode {inode} in no table the scan reads")
    return seen, bad


# ---- Processes. ----

class Wiring:
    """A temporary folder with the experiment and the memif sockets, and the processes' prefixes."""

    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix=f"spraylab-expose-{name}-")
        self.config = os.path.join(self.dir, "exp.yaml")
        with open(self.config, "w") as f:
            f.write(EXPERIMENT)
        tag = f"{os.getpid()}_{name}"
        self.sw_prefix, self.gen_prefix = f"sl_expose_sw_{tag}", f"sl_expose_gen_{tag}"
        self.socks = [os.path.join(self.dir, f"p{p}.sock") for p in range(SWITCH_PORTS)]

    def vdevs(self, role, n):
        return sum((["--vdev", f"net_memif{p},role={role},id=0,socket={self.socks[p]},socket-abstract=no"]
                    for p in range(n)), [])

    def start_switch(self, build, *extra):
        sw = Proc([f"{build}/switch/spraylab-switch", *eal_args("0@1", self.sw_prefix),
                   *self.vdevs("server", SWITCH_PORTS), "--", "--config", self.config, "--switch", "leaf0",
                   *extra], f"{self.dir}/switch.log")
        deadline = time.time() + 30
        while "workers, " not in sw.log_text():
            check(sw.p.poll() is None and time.time() < deadline, f"switch did not start: {sw.log_text()[-2000:]}")
            time.sleep(0.05)
        return sw

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        for prefix in (self.sw_prefix, self.gen_prefix):
            shutil.rmtree(runtime_dir(prefix), ignore_errors=True)


def describe(name, seen, bad):
    return f"{name}: {len(seen)} sockets ({', '.join(seen)})" + (f"; NOT LOCAL: {bad}" if bad else "")


def test_switch_and_generator_bind_only_local(args):
    ensure_hugepages()
    w = Wiring("default")
    sw = gen = None
    try:
        sw = w.start_switch(args.build)
        gen = Proc([f"{args.build}/trafficgen/spraylab-gen", *eal_args("0@0", w.gen_prefix), *w.vdevs("client", HOSTS),
                    "--", "--config", w.config, "--hosts", f"h0-h{HOSTS - 1}", "--hold", "--timeout", "60"],
                   f"{w.dir}/gen.log", stdin=subprocess.PIPE)
        line = gen.read_line(90)
        check(line is not None, f"generator reported nothing: {gen.log_text()[-2000:]}")
        check(gen.p.poll() is None, f"generator ended: {line} {gen.log_text()[-2000:]}")
        report = []
        for name, proc, prefix, socks in (("switch", sw, w.sw_prefix, w.socks),
                                          ("generator", gen, w.gen_prefix, w.socks[:HOSTS])):
            seen, bad = scan(proc.p.pid, [runtime_dir(prefix)], socks)
            check(not bad, describe(name, seen, bad))
            # The scan saw what it should: the exporter's listener and the memif sockets.
            check(any(s.startswith("tcp 127.0.0.1:") and s.endswith("LISTEN") for s in seen),
                  f"{name}: no loopback TCP listener (the exporter) among {seen}: {proc.log_text()[-1500:]}")
            check(any(s.startswith("unix ") and s != "unix (unnamed)" for s in seen), f"{name}: no named UNIX socket {seen}")
            report.append(describe(name, seen, bad))
    finally:
        if gen and gen.p.poll() is None:
            gen.p.stdin.write("quiesce\n")
            gen.p.stdin.flush()
            gen.read_line(10)
        sw_rc = sw.stop() if sw else None
        gen_rc = gen.release() if gen else None
        w.cleanup()
    check(sw_rc == 0 and gen_rc == 0, f"exit codes switch {sw_rc} generator {gen_rc}")
    return "; ".join(report)


def test_inprocess_fabric_binds_nothing(args):
    d = tempfile.mkdtemp(prefix="spraylab-expose-fabric-")
    config = os.path.join(d, "exp.yaml")
    with open(config, "w") as f:
        f.write(FABRIC_EXPERIMENT)
    log = open(os.path.join(d, "run.log"), "w")
    p = subprocess.Popen([f"{args.build}/fabric/spraylab", "run", config, "--mode", "inprocess", "--rate", "file",
                          "--out", os.path.join(d, "results"), "--timeout", "120"],
                         stdout=log, stderr=subprocess.STDOUT)
    try:
        # The first progress line comes from the running fabric: EAL and the nodes are up.
        deadline = time.time() + 60
        while "[1/1]" not in open(os.path.join(d, "run.log")).read():
            check(p.poll() is None, f"spraylab run ended before the scan: {open(os.path.join(d, 'run.log')).read()}")
            check(time.time() < deadline, "no progress line in 60 s")
            time.sleep(0.1)
        seen, bad = scan(p.pid)
        named = [s for s in seen if s != "unix (unnamed)" and s != "netlink"]
        check(p.poll() is None, "spraylab run ended during the scan")
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait()
        log.close()
        shutil.rmtree(d, ignore_errors=True)
        # What a killed run cannot remove itself (the next fabric run would, fabric/emu/eal.cpp).
        shutil.rmtree(fabric_runtime_dir(p.pid), ignore_errors=True)
    check(not bad and not named, describe("spraylab run", seen, bad))
    return describe("spraylab run", seen, bad)


def test_wildcard_bind_is_caught(args):
    ensure_hugepages()
    w = Wiring("wildcard")
    sw = None
    try:
        sw = w.start_switch(args.build, "--metrics-address", "0.0.0.0:0")
        seen, bad = scan(sw.p.pid, [runtime_dir(w.sw_prefix)], w.socks)
        log = sw.log_text()
    finally:
        sw_rc = sw.stop() if sw else None
        w.cleanup()
    check(len(bad) == 1 and bad[0].startswith("tcp 0.0.0.0:") and "LISTEN" in bad[0],
          f"the scan did not report exactly the wildcard listener: {describe('switch', seen, bad)}")
    check(sw_rc == 0, f"switch exit code {sw_rc}")
    # The switch itself says so at start-up: an address other machines reach is worth a warning.
    check("warning: metrics on http://0.0.0.0:" in log and "reachable from other machines" in log,
          f"the switch did not warn about its non-local metrics address: {log[-1500:]}")
    return f"reported: {bad[0]}"


def main():
    args = case_parser().parse_args()
    return run_cases(args, [
        ("switch_and_generator_bind_only_local", test_switch_and_generator_bind_only_local, ()),
        ("inprocess_fabric_binds_nothing", test_inprocess_fabric_binds_nothing, ()),
        ("wildcard_bind_is_caught", test_wildcard_bind_is_caught, ()),
    ])


if __name__ == "__main__":
    sys.exit(main())
