"""spraylab-switch with buffer.flow_control: pfc on net_pcap ports, under an incast it cannot
drain: what the PFC tests (switch_pfc_test.py, tests/monitoring/prometheus_scrape_test.py) share.

leaf0 of a 2-leaf, 1-spine fabric at 1 Gb/s: port 0 faces h0, port 1 h1, port 2 spine0. Each
host port's input file holds FRAMES 1000-byte frames to h2 (behind the spine), read by the PMD as
fast as the switch polls: far more than the one 1 Gb/s egress port drains, so both host ports'
ingress bytes pass XOFF at once and each upstream is owed a PAUSE; when the egress has drained
them to XON, a resume. The spine's input file holds one 802.1Qbb PAUSE for class 0 at the maximum
quanta: the switch's egress to the spine must stop for 65535 x 512 bit times (33.55392 ms at
1 Gb/s) and the switch counts exactly that as the port's paused time. Every frame the switch
sends lands in the port's tx file (tx_pcap).

The frames are decoded here from the standard's layout (IEEE 802.1Qbb clause 36 / 802.3 annex
31D), independently of net/pfc_frame.h.
"""
import os
import re
import struct
import time
import urllib.request

from dpdk_procs import Proc, eal_args, free_port

EXPERIMENT = """\
seed: 3
topology: {generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2}
links: {rate: 1Gbps, delay: 1us}
buffer: {bytes: 64KB, flow_control: pfc}
load_balancer: {algorithm: ofan}
"""
PORTS = 3
HOST_PORTS = (0, 1)
SPINE_PORT = 2
FRAMES = 300
FRAME_BYTES = 1000
PORT_MACS = ["06:00:00:00:00:00", "06:00:00:00:00:01", "06:00:00:00:00:02"]  # leaf0's (--dump-tables)
HOST_MACS = ["02:00:00:00:00:03", "02:00:00:00:00:04"]
SPINE_MAC = "06:00:00:02:00:00"
HOST_IPS = ["10.0.0.1", "10.0.0.2"]
DEST_IP = "10.0.1.1"  # h2, behind the spine
PFC_DEST = "01:80:c2:00:00:01"
MAX_QUANTA = 0xFFFF
PAUSE_NS = MAX_QUANTA * 512  # at 1 Gb/s a bit time is 1 ns


def mac(text):
    return bytes(int(b, 16) for b in text.split(":"))


def mac_text(raw):
    return ":".join(f"{b:02x}" for b in raw)


def ipv4(text):
    return bytes(int(b) for b in text.split("."))


def ip_checksum(header):
    s = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def udp_frame(src_mac, dst_mac, src_ip, dst_ip, sport, length):
    """An Ethernet/IPv4/UDP frame of `length` bytes (no FCS) to UDP port 4792."""
    ip_len = length - 14
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 0, 0, 64, 17, 0, ipv4(src_ip), ipv4(dst_ip)))
    struct.pack_into("!H", ip, 10, ip_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", sport, 4792, ip_len - 20, 0)
    return mac(dst_mac) + mac(src_mac) + b"\x08\x00" + bytes(ip) + udp + bytes(ip_len - 28)


def pfc_frame(src_mac, class_enable, quanta):
    """802.1Qbb: to 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0101, the class-enable vector,
    eight 16-bit quanta, zero padding to 60 bytes."""
    body = struct.pack("!HH8H", 0x0101, class_enable, *quanta)
    frame = mac(PFC_DEST) + mac(src_mac) + b"\x88\x08" + body
    return frame + bytes(60 - len(frame))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1, i, len(fr), len(fr)) + fr)


def read_pcap(path):
    """The frames of a pcap file (either byte order, micro- or nanosecond stamps)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    endian = "<" if struct.unpack("<I", data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    frames, at = [], 24
    while at + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[at:at + 16])
        frames.append(data[at + 16:at + 16 + incl])
        at += 16 + incl
    return frames


def decode_pfc(frame):
    """A MAC control frame read as 802.1Qbb says, or None if it is not one; raises AssertionError
    naming the first field that breaks the standard."""
    if len(frame) < 14 or frame[12:14] != b"\x88\x08":
        return None
    if len(frame) < 60:
        raise AssertionError(f"MAC control frame of {len(frame)} B: 60 B is the minimum")
    if frame[0:6] != mac(PFC_DEST):
        raise AssertionError(f"destination {mac_text(frame[0:6])}, not {PFC_DEST}")
    opcode, enable = struct.unpack("!HH", frame[14:18])
    if opcode != 0x0101:
        raise AssertionError(f"opcode {opcode:#06x}, not 0x0101 (PFC)")
    if enable >> 8:
        raise AssertionError(f"class-enable vector {enable:#06x} sets reserved bits 8-15")
    quanta = struct.unpack("!8H", frame[18:34])
    if any(frame[34:60]):
        raise AssertionError("padding after the quanta is not zero")
    return {"src": mac_text(frame[6:12]), "class_enable": enable, "quanta": quanta}


def input_frames():
    """Per port, the frames its rx file holds."""
    frames = {}
    for p in HOST_PORTS:
        frames[p] = [udp_frame(HOST_MACS[p], PORT_MACS[p], HOST_IPS[p], DEST_IP, 49152 + i, FRAME_BYTES)
                     for i in range(FRAMES)]
    frames[SPINE_PORT] = [pfc_frame(SPINE_MAC, 0x01, [MAX_QUANTA] + [0] * 7)]
    return frames


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def metric(text, name, **labels):
    """The sum of the samples of `name` whose labels include `labels`."""
    total, found = 0.0, False
    for line in text.splitlines():
        m = re.match(r"^(\w+)(?:\{(.*)\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        if all(have.get(k) == str(v) for k, v in labels.items()):
            total += float(m.group(3))
            found = True
    return total if found else None


class PfcSwitch:
    """The switch on net_pcap ports in folder `d`, serving metrics on `metrics_port` (free if
    None): start() returns once both host ports have been paused and resumed (the incast drained)
    and the spine's pause has run out, or raises after `timeout` s."""

    def __init__(self, build, d, prefix, metrics_port=None):
        self.build, self.d, self.prefix = build, d, prefix
        self.metrics_port = metrics_port or free_port()
        self.proc = None

    def url(self):
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def tx_path(self, port):
        return os.path.join(self.d, f"tx{port}.pcap")

    def start(self, timeout=60):
        config = os.path.join(self.d, "exp.yaml")
        with open(config, "w") as f:
            f.write(EXPERIMENT)
        vdevs = []
        for p, frames in input_frames().items():
            write_pcap(os.path.join(self.d, f"rx{p}.pcap"), frames)
            vdevs += ["--vdev", f"net_pcap{p},rx_pcap={self.d}/rx{p}.pcap,tx_pcap={self.tx_path(p)}"]
        self.proc = Proc([f"{self.build}/switch/spraylab-switch", *eal_args("0@1", self.prefix), *vdevs, "--",
                          "--config", config, "--switch", "leaf0", "--metrics-address",
                          f"127.0.0.1:{self.metrics_port}", "--stats-json", f"{self.d}/stats.json"],
                         f"{self.d}/switch.log")
        deadline = time.time() + timeout
        while True:
            if self.proc.p.poll() is None and "workers, " in self.proc.log_text():
                text = http_get(self.url())
                resumed = [metric(text, "spraylab_switch_pfc_frames_sent_total", port=p, kind="resume") or 0
                           for p in HOST_PORTS]
                paused = metric(text, "spraylab_switch_pfc_paused_seconds_total", port=SPINE_PORT) or 0
                if min(resumed) >= 1 and paused * 1e9 >= PAUSE_NS - 1:
                    return text
            if self.proc.p.poll() is not None or time.time() > deadline:
                raise AssertionError(f"the incast was not paused and resumed: {self.proc.log_text()[-2000:]}")
            time.sleep(0.1)

    def stop(self):
        rc = self.proc.stop() if self.proc else None
        return rc
