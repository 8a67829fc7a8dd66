#!/usr/bin/env python3
"""Writes the frame fuzzer's seed corpus (tests/fuzz/corpus/frame/): one file per kind of frame
the switch and the generator receive, valid and malformed. Run from anywhere; it overwrites the
seed-* files and leaves other files (crashes found, merged entries) alone.

Layout as in trafficgen/packet.h and net/frame.h: Ethernet (optionally one 802.1Q
tag), IPv4, UDP to the generator's port 4792, the 40-byte testbed header, payload.
"""
import os
import struct

GEN_PORT = 4792
DATA, ACK, ECN_ECHO, RETRANSMIT = 1, 2, 4, 8


def checksum(header: bytes) -> int:
    s = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def testbed(flags, entropy=0xC001, acked=0, msg=7, seq=3, offset=3 * 4096, size=65536, ts=123456789,
            magic=0x5350, version=1):
    return struct.pack("!HBBHHIIQQQ", magic, version, flags, entropy, acked, msg, seq, offset, size,
                       ts)


def ipv4(payload: bytes, proto=17, ttl=64, tos=0x02, options=b"", total=None):
    ihl = 5 + len(options) // 4
    length = total if total is not None else 4 * ihl + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, length, 0, 0, ttl, proto, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 0, 1, 2])) + options
    h = h[:10] + struct.pack("!H", checksum(h)) + h[12:]
    return h + payload


def udp(payload: bytes, sport=0xC001, dport=GEN_PORT):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def eth(payload: bytes, ethertype=0x0800, vlan=None):
    macs = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2])
    tag = struct.pack("!HH", 0x8100, vlan) if vlan is not None else b""
    return macs + tag + struct.pack("!H", ethertype) + payload


def seeds():
    data = testbed(DATA) + bytes(64)
    yield "data", eth(ipv4(udp(data)))
    yield "data-last", eth(ipv4(udp(testbed(DATA, seq=15, offset=15 * 4096) + bytes(16))))
    yield "data-retransmit", eth(ipv4(udp(testbed(DATA | RETRANSMIT) + bytes(64))))
    yield "data-ce", eth(ipv4(udp(data), tos=0x03))
    yield "data-not-ect", eth(ipv4(udp(data), tos=0x00))
    yield "ack", eth(ipv4(udp(testbed(ACK, acked=1))))
    yield "ack-ecn-echo", eth(ipv4(udp(testbed(ACK | ECN_ECHO, acked=4))))
    yield "ack-padded", eth(ipv4(udp(testbed(ACK, acked=1)))) + bytes(4)
    yield "data-vlan", eth(ipv4(udp(data)), vlan=5)
    yield "data-ip-options", eth(ipv4(udp(data), options=bytes([1, 1, 1, 0])))
    yield "data-ttl1", eth(ipv4(udp(data), ttl=1))
    yield "bad-magic", eth(ipv4(udp(testbed(DATA, magic=0x1234))))
    yield "bad-version", eth(ipv4(udp(testbed(DATA, version=2))))
    yield "short-header", eth(ipv4(udp(testbed(DATA)[:30])))
    yield "udp-other-port", eth(ipv4(udp(bytes(32), dport=4791)))
    yield "tcp", eth(ipv4(bytes(20), proto=6))
    yield "icmp", eth(ipv4(bytes([8, 0, 0, 0, 0, 1, 0, 1]), proto=1))
    yield "arp", eth(bytes(28), ethertype=0x0806)
    yield "ipv6", eth(bytes(48), ethertype=0x86DD)
    yield "truncated-ip", eth(ipv4(udp(data)))[:30]
    yield "ip-total-too-long", eth(ipv4(udp(data), total=1500))
    yield "ip-total-short", eth(ipv4(udp(data), total=24))
    yield "bad-ihl", eth(b"\x44" + ipv4(udp(data))[1:])
    yield "runt", bytes(10)


def main() -> None:
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "frame")
    os.makedirs(out, exist_ok=True)
    for name, frame in seeds():
        with open(os.path.join(out, f"seed-{name}"), "wb") as f:
            f.write(frame)


if __name__ == "__main__":
    main()
