"""Helpers for integration tests that run real DPDK processes: hugepages, memif port wiring,
process start/stop with their own --file-prefix, DPDK telemetry queries, and veth pairs between
network namespaces of a test's own."""
import glob
import json
import os
import signal
import socket
import subprocess
import threading
import time


def fabric_processes(prefix):
    """pids whose command line gives EAL a file prefix of the fabric."""
    found = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(os.path.join(d, "cmdline"), "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        for i, a in enumerate(argv[:-1]):
            if a == b"--file-prefix" and argv[i + 1].decode(errors="replace").startswith(prefix):
                found.append(int(os.path.basename(d)))
    return sorted(found)


def fabric_namespaces(prefix):
    """The network namespaces whose names start with `prefix` (a fabric's: sl-<name>-)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(prefix)]


def run_spraylab(build, *argv, timeout=600):
    """`spraylab ARGV` from the build folder, its output printed with the time it took."""
    t0 = time.time()
    p = subprocess.run([os.path.join(build, "fabric", "spraylab"), *argv],
                       capture_output=True, text=True, timeout=timeout)
    print(f"$ spraylab {' '.join(argv)}  -> {p.returncode} ({time.time() - t0:.0f} s)\n"
          f"{p.stdout}{p.stderr[-3000:]}", flush=True)
    return p


def free_port():
    """A TCP port on loopback that nothing listens on now (for an exporter or Prometheus)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_hugepages(pages=1024):
    """The setup script reserves hugepages; tests re-check so they also run on their own."""
    try:
        with open("/proc/sys/vm/nr_hugepages") as f:
            have = int(f.read())
        if have < pages and os.geteuid() == 0:
            with open("/proc/sys/vm/nr_hugepages", "w") as f:
                f.write(str(pages))
        os.makedirs("/dev/hugepages", exist_ok=True)
        if os.geteuid() == 0 and subprocess.run(["mountpoint", "-q", "/dev/hugepages"]).returncode:
            subprocess.run(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"], check=True)
    except OSError as e:
        print(f"warning: cannot prepare hugepages: {e}")


def memif_vdevs(sock_dir, ports, role):
    """One memif device per port, each on its own filesystem socket (abstract sockets do not
    cross network namespaces; DESIGN.md)."""
    args = []
    for p in range(ports):
        args += ["--vdev", f"net_memif{p},role={role},id=0,socket={sock_dir}/p{p}.sock,socket-abstract=no"]
    return args


def vhost_vdevs(sock_dir, ports, role):
    """vhost-user on the "server" side (it creates the sockets), virtio-user on the "client" side.
    Both need their memory in hugepages; EAL args should add --single-file-segments."""
    if role == "server":
        return sum((["--vdev", f"net_vhost{p},iface={sock_dir}/v{p}.sock,queues=1"] for p in range(ports)), [])
    return sum((["--vdev", f"net_virtio_user{p},path={sock_dir}/v{p}.sock,queues=1"] for p in range(ports)), [])


def link_vdevs(kind, sock_dir, ports, role):
    return (memif_vdevs if kind == "memif" else vhost_vdevs)(sock_dir, ports, role)


def eal_args(lcores, prefix, extra=(), memory="--huge-unlink"):
    # --no-pci: the VM's own virtio NIC must never be probed. --huge-unlink: no hugepage files
    # left behind. (Not --in-memory for memif: it needs the multi-process channel that disables.
    # vhost-user needs --single-file-segments, which --huge-unlink excludes: it uses --in-memory.)
    return ["--lcores", lcores, "--no-pci", memory, "--file-prefix", prefix, "--log-level", "lib.eal:error",
            *extra]


class Proc:
    def __init__(self, argv, log_path, stdin=None):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=self.log, text=True)

    def read_line(self, timeout):
        """The next line of standard output, or None if the process ends or the time runs out."""
        result = []
        t = threading.Thread(target=lambda: result.append(self.p.stdout.readline()), daemon=True)
        t.start()
        t.join(timeout)
        return result[0] if result and result[0] else None

    def _reap(self, timeout):
        """Waits for the process (killing it after `timeout`), closes its log, returns its code."""
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()
        return self.p.returncode

    def release(self, timeout=30):
        """Closes standard input (a --hold process then exits) and waits."""
        self.p.stdin.close()
        return self._reap(timeout)

    def stop(self, timeout=30):
        """SIGINT (DPDK programs here stop cleanly on it), then waits. Closing ports can take
        seconds on a loaded machine (af_xdp detaches its XDP program and frees its umem)."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        return self._reap(timeout)

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()


class Telemetry:
    """DPDK telemetry v2 socket client (what usertools/dpdk-telemetry.py speaks)."""

    def __init__(self, prefix, timeout=10):
        path = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
        deadline = time.time() + timeout
        while not os.path.exists(path):
            if time.time() > deadline:
                raise RuntimeError(f"no telemetry socket at {path}")
            time.sleep(0.05)
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(path)
        self.s.recv(16384)  # greeting

    def query(self, cmd):
        self.s.send(cmd.encode())
        reply = json.loads(self.s.recv(1 << 20).decode())
        return reply[cmd.split(",")[0]]

    def close(self):
        self.s.close()


def sh(*argv, check=True):
    """Runs a command (ip, sysctl); raises with its stderr if it fails and `check`."""
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


class VethPairs:
    """Two namespaces of the test's own, spraylab-t-<tag>-sw and -drv, and one veth pair per port
    between them (swI in the first, drI in the second). Deleting the namespaces deletes the veths,
    so close() leaves nothing even after a crash of a process."""

    def __init__(self, tag, ports):
        self.sw_ns, self.drv_ns = f"spraylab-t-{tag}-sw", f"spraylab-t-{tag}-drv"
        self.ports = ports
        self.created = []
        try:
            for ns in (self.sw_ns, self.drv_ns):
                sh("ip", "netns", "add", ns)
                self.created.append(ns)
                # Before the links exist: no IPv6 link-local address, no router solicitations.
                sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                   "net.ipv6.conf.default.disable_ipv6=1")
                sh("ip", "-n", ns, "link", "set", "lo", "up")
            for i in range(ports):
                # One queue each way: net_af_xdp in 22.11 binds one socket to queue 0, and a veth
                # delivers a frame to the rx queue of the sender's tx queue.
                sh("ip", "-n", self.sw_ns, "link", "add", f"sw{i}", "numtxqueues", "1", "numrxqueues", "1",
                   "type", "veth", "peer", "name", f"dr{i}", "netns", self.drv_ns, "numtxqueues", "1",
                   "numrxqueues", "1")
                sh("ip", "-n", self.sw_ns, "link", "set", f"sw{i}", "up")
                sh("ip", "-n", self.drv_ns, "link", "set", f"dr{i}", "up")
        except Exception:
            self.close()
            raise

    def exec_argv(self, ns):
        return ["ip", "netns", "exec", ns]

    def xdp_prog(self, ifname):
        """The name of the XDP program attached to a switch-side veth, or None."""
        out = sh("ip", "-n", self.sw_ns, "-d", "link", "show", ifname)
        for line in out.splitlines():
            words = line.split()
            if words and words[0].startswith("prog/xdp") and "name" in words:
                return words[words.index("name") + 1]
        return None

    def close(self):
        for ns in reversed(self.created):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.created = []
