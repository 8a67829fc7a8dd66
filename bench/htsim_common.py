"""What bench/vs-htsim shares with its test (tests/cli/vs_htsim_test.py): the traffic matrix written
once for both simulators, and the settings the UEC reference simulator (htsim_uec, HLC-Lab/uet-htsim)
derives from its command line, computed here as it computes them so that spraylab's side can be
given the same numbers.

A matrix is a list of Message(src, dst, bytes), all ready at time 0. It is written twice from the
same list: as spraylab's trace file (workload.type: trace; docs/workloads.md, "Trace files") and as
htsim's connection matrix (datacenter/connection_matrix.cpp's format, one connection per message,
its id the message's row + 1, since htsim refuses flow id 0). Ranks are host indices, and both
number a fat tree's hosts the same way: edge switch e has hosts e*k/2 .. e*k/2 + k/2 - 1, pod p
edges p*k/2 .. (spraylab: topo/generators.cpp; htsim: FatTreeTopologyCfg::HOST_POD_SWITCH)."""
import math
import random
import re
from typing import NamedTuple


class Message(NamedTuple):
    src: int
    dst: int
    bytes: int


SIZE_UNITS = {"B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3,
              "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}


def parse_size(text):
    """'1MiB', '256KiB', '4096B' or '4096' (spraylab's size syntax, docs/configuration.md)."""
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(text))
    if not m or (m.group(2) and m.group(2) not in SIZE_UNITS):
        raise ValueError(f"size '{text}': expected a whole number with B, KB, MB, KiB or MiB")
    return int(m.group(1)) * SIZE_UNITS.get(m.group(2) or "B", 1)


def fat_tree_k(hosts):
    """k of the 3-level fat tree with k^3/4 hosts (htsim_uec's -nodes: the smallest K with
    K^3/4 >= nodes, which must then be equal)."""
    k = 2
    while k ** 3 // 4 < hosts:
        k += 2
    if k ** 3 // 4 != hosts:
        raise ValueError(f"{hosts} hosts is not k^3/4 for an even k (16, 128, 432, 1024, ...)")
    return k


def permutation(hosts, size, seed):
    """Every host sends one message to another; the destinations are a uniformly random
    derangement drawn from `seed` (rejection: shuffle until no host is its own target)."""
    rng = random.Random(seed)
    dst = list(range(hosts))
    while any(d == s for s, d in enumerate(dst)):
        rng.shuffle(dst)
    return [Message(s, d, size) for s, d in enumerate(dst)]


def alltoall(hosts, size, seed):
    """Every host sends `size` to every other. Listed round by round: in round j (1 .. n-1) the
    host at ring position i sends to position i + j, the ranks on a ring in a random order from
    `seed`, so each round is a permutation (htsim's connection_matrices/gen_serial_alltoall.py
    and spraylab's `order: shifted`). Both simulators start every message at once, so the order
    only sets which message a host's round robin (spraylab) or NIC (htsim) serves first."""
    ring = list(range(hosts))
    random.Random(seed).shuffle(ring)
    return [Message(ring[i], ring[(i + j) % hosts], size)
            for j in range(1, hosts) for i in range(hosts)]


WORKLOADS = {"permutation": permutation, "alltoall": alltoall}


def make_messages(workload, hosts, size, seed):
    if workload not in WORKLOADS:
        raise ValueError(f"workload '{workload}': expected one of {', '.join(WORKLOADS)}")
    return WORKLOADS[workload](hosts, size, seed)


def write_trace(path, messages):
    """spraylab's trace: start_ns,src,dst,bytes,depends_on; row i is message id i."""
    with open(path, "w") as f:
        f.write("start_ns,src,dst,bytes,depends_on\n")
        for m in messages:
            f.write(f"0,{m.src},{m.dst},{m.bytes},\n")


def write_tm(path, messages, hosts):
    """htsim's connection matrix: 'Nodes N', 'Connections C', then 'src->dst id I start 0 size B'
    (start in the line-oriented parser is in picoseconds; 0 is 0 in either unit)."""
    with open(path, "w") as f:
        f.write(f"Nodes {hosts}\nConnections {len(messages)}\n")
        for i, m in enumerate(messages):
            f.write(f"{m.src}->{m.dst} id {i + 1} start 0 size {m.bytes}\n")


TM_LINE = re.compile(r"(\d+)->(\d+) id (\d+) start 0 size (\d+)")


def read_tm(path):
    """(hosts, messages) of a matrix write_tm wrote; a line in any other shape is an error."""
    with open(path) as f:
        lines = f.read().splitlines()
    hosts = int(re.fullmatch(r"Nodes (\d+)", lines[0]).group(1))
    count = int(re.fullmatch(r"Connections (\d+)", lines[1]).group(1))
    messages = []
    for n, line in enumerate(lines[2:], start=3):
        m = TM_LINE.fullmatch(line)
        if not m:
            raise ValueError(f"{path}:{n}: not a connection line: {line}")
        if int(m.group(3)) != len(messages) + 1:
            raise ValueError(f"{path}:{n}: id {m.group(3)}, expected {len(messages) + 1}")
        messages.append(Message(int(m.group(1)), int(m.group(2)), int(m.group(4))))
    if len(messages) != count:
        raise ValueError(f"{path}: {len(messages)} connections, header says {count}")
    return hosts, messages


# ---- The reference's derived settings -----------------------------------------------------------
# datacenter/main_uec.cpp (calculate_rtt, calculate_bdp_pkt, the automatic queue sizing, the ECN
# defaults and the minimum RTO), uec.cpp (initNsccParams, initNscc) and config.cpp (memFromPkt,
# timeFromUs), with their integer and floating-point steps in the same order.

ACK_BYTES = 64          # UecBasePacket::ACKSIZE: ACKs, NACKs, pulls; also -trimsize's default
HEADER_BYTES = 64       # UecSrc::_hdr_size: mss = mtu - 64
SACK_BYTES = 16384      # UecSink::_bytes_unacked_threshold: an ACK per 16 KiB received
PATHS = 64              # -paths: path_entropy_size, EVs a connection uses


def reference_settings(hosts, tiers=3, linkspeed_mbps=800000.0, hop_latency_us=1.0,
                       switch_latency_us=0.0, mtu=4160, trimming=True, queue_factor=0):
    """The numbers htsim_uec prints at start-up for these flags (its 'Setting ECN to parameters
    low L high H', 'Setting min RTO to R', the topology's queue_down=Q, NSCC's _network_rtt and
    _target_Qdelay). Times in picoseconds unless named _us; sizes in bytes."""
    linkspeed = int(linkspeed_mbps * 1000000)                  # speedFromMbps(double)
    hop = int(hop_latency_us * 1000000)                        # timeFromUs(double)
    switch = int(switch_latency_us * 1000000)
    diameter = 2 * tiers
    diameter_latency = hop * diameter + switch * (diameter - 1)
    gbps = linkspeed / 1e9
    rtt = int(2 * diameter_latency + (mtu * 8 / gbps * diameter * 1000)
              + (ACK_BYTES * 8 / gbps * diameter * 1000))
    bdp_pkt = math.ceil((rtt / 1e12) * (linkspeed // 8) / mtu)
    factor = queue_factor or (1 if trimming else 5)
    queue = math.ceil(bdp_pkt * factor * mtu)
    ecn_low = math.ceil(math.ceil(bdp_pkt * 0.2) * mtu)
    ecn_high = math.ceil(math.ceil(bdp_pkt * 0.8) * mtu)
    min_rto = int((15 + queue * 6.0 * 8 * 1000000 / linkspeed) * 1000000)
    target_qdelay = int(rtt * 0.75) if trimming else rtt
    bdp_bytes = (rtt / 1e12) * (linkspeed / 8)
    return {
        "hosts": hosts, "tiers": tiers, "linkspeed_bps": linkspeed, "mtu": mtu,
        "mss": mtu - HEADER_BYTES, "hop_latency_ps": hop, "switch_latency_ps": switch,
        "diameter_latency_ps": diameter_latency, "rtt_ps": rtt, "bdp_packets": bdp_pkt,
        "queue_factor": factor, "queue_bytes": queue, "ecn_low_bytes": ecn_low,
        "ecn_high_bytes": ecn_high, "min_rto_ps": min_rto, "target_qdelay_ps": target_qdelay,
        "nscc_maxwnd_bytes": int(1.5 * bdp_bytes), "trimming": trimming,
        "ack_every_packets": SACK_BYTES // (mtu - HEADER_BYTES), "paths": PATHS,
    }
