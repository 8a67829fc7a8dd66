#!/usr/bin/env python3
"""spraylab-switch sends 802.1Qbb PFC frames on its DPDK ports and obeys the ones it receives
(issue 39; docs/switch.md, "Lossless links (PFC)").

The switch runs with buffer.flow_control: pfc on three net_pcap ports under the incast of
pfc_pcap.py (two host ports' input files far beyond what the 1 Gb/s egress drains, and a PAUSE
from the spine). One busy-polling process, on CPU 1, for a second or two.

Cases:
  pause_frames_on_the_wire_are_8021qbb  each host port's tx file holds PFC frames and nothing
                      else: every one decodes as 802.1Qbb (this file's own decoder and, where
                      installed, tshark's), from the port's MAC, class 0 alone; a PAUSE of the
                      maximum quanta first and a resume (quanta 0) last, alternating; their
                      numbers are the switch's pfc_frames_sent_total.
  received_pause_is_obeyed_and_counted  the spine's PAUSE is counted as received and the spine
                      port's paused time is exactly its 65535 quanta (33.55392 ms at 1 Gb/s); the
                      data frames that left for the spine and the pfc_headroom drops add up to
                      what the host ports sent (the upstream's input ignores the pause: the
                      headroom is all that is left of it), and none went out elsewhere.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # dpdk_procs, pfc_pcap here, cases in tests/
import pfc_pcap as pp  # noqa: E402
from dpdk_procs import ensure_hugepages  # noqa: E402
from cases import case_parser, check, run_cases  # noqa: E402
# Every DPDK process here gets dpdk_procs.eal_args: --no-pci and a --file-prefix of its own.


def run_switch(args):
    """The switch's run: its last scrape before the stop, its stats file, the tx files' frames."""
    d = tempfile.mkdtemp(prefix="spraylab-pfc-")
    prefix = f"sl_pfc_{os.getpid()}"
    sw = pp.PfcSwitch(args.build, d, prefix)
    try:
        text = sw.start()
        rc = sw.stop()
        check(rc == 0, f"switch exited {rc}: {sw.proc.log_text()[-2000:]}")
        with open(f"{d}/stats.json") as f:
            stats = json.load(f)
        tx = {p: pp.read_pcap(sw.tx_path(p)) for p in range(pp.PORTS)}
        tshark = None
        if shutil.which("tshark"):
            tshark = {p: subprocess.run(
                ["tshark", "-r", sw.tx_path(p), "-T", "fields", "-E", "separator=,", "-e", "eth.dst",
                 "-e", "eth.type", "-e", "macc.opcode", "-e", "macc.cbfc.enbv",
                 *sum((["-e", f"macc.cbfc.pause_time.c{c}"] for c in range(8)), [])],
                capture_output=True, text=True, timeout=60) for p in pp.HOST_PORTS}
        return text, stats, tx, tshark
    finally:
        sw.stop()
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)


RUN = {}


def the_run(args):
    if not RUN:
        RUN["r"] = run_switch(args)
    return RUN["r"]


def test_pause_frames_on_the_wire_are_8021qbb(args):
    text, _, tx, tshark = the_run(args)
    shown = []
    for p in pp.HOST_PORTS:
        frames = [pp.decode_pfc(f) for f in tx[p]]
        check(frames and all(f is not None for f in frames),
              f"port {p}: {len(tx[p])} frames sent, not all PFC: {[fr[:16].hex() for fr in tx[p][:4]]}")
        for f in frames:
            check(f["src"] == pp.PORT_MACS[p], f"port {p}: PFC from {f['src']}, not the port's {pp.PORT_MACS[p]}")
            check(f["class_enable"] == 0x01, f"port {p}: class-enable vector {f['class_enable']:#x}, not class 0")
            check(f["quanta"][1:] == (0,) * 7, f"port {p}: quanta {f['quanta']} for classes other than 0")
        q = [f["quanta"][0] for f in frames]
        check(q[0] == pp.MAX_QUANTA and q[-1] == 0, f"port {p}: quanta {q}: a pause first, a resume last")
        check(all(a != b for a, b in zip(q, q[1:])) and set(q) == {0, pp.MAX_QUANTA},
              f"port {p}: quanta {q}: pauses and resumes alternate")
        pauses, resumes = q.count(pp.MAX_QUANTA), q.count(0)
        for kind, n in (("pause", pauses), ("resume", resumes)):
            m = pp.metric(text, "spraylab_switch_pfc_frames_sent_total", port=p, kind=kind)
            check(m == n, f"port {p}: {n} {kind} frames on the wire, pfc_frames_sent_total says {m}")
        if tshark:
            r = tshark[p]
            check(r.returncode == 0, f"tshark: {r.stderr}")
            rows = [line.split(",") for line in r.stdout.splitlines() if line]
            check(len(rows) == len(frames), f"tshark read {len(rows)} frames of {len(frames)}")
            for row, quanta in zip(rows, q):
                check(row[:4] == [pp.PFC_DEST, "0x8808", "0x0101", "0x0001"], f"tshark: {row}")
                check([int(v) for v in row[4:]] == [quanta] + [0] * 7, f"tshark quanta: {row}")
        shown.append(f"port {p}: {pauses} pause, {resumes} resume")
    return "; ".join(shown) + ("; tshark agrees" if tshark else "; tshark not installed")


def test_received_pause_is_obeyed_and_counted(args):
    text, stats, tx, _ = the_run(args)
    s = pp.SPINE_PORT
    got = pp.metric(text, "spraylab_switch_pfc_frames_received_total", port=s, kind="pause")
    check(got == 1, f"spine port: {got} pauses received, 1 sent to it")
    paused = pp.metric(text, "spraylab_switch_pfc_paused_seconds_total", port=s)
    check(round(paused * 1e9) == pp.PAUSE_NS, f"spine port paused {paused * 1e9:.0f} ns, the pause is {pp.PAUSE_NS} ns")
    data = [f for f in tx[s] if pp.decode_pfc(f) is None]
    check(len(data) == len(tx[s]), f"the spine port sent {len(tx[s]) - len(data)} PFC frames: nothing paused it")
    # Charged to the egress port the frames were routed to, as every egress drop is.
    headroom = pp.metric(text, "spraylab_switch_drops_total", reason="pfc_headroom")
    others = sum(float(line.split()[-1]) for line in text.splitlines()
                 if line.startswith("spraylab_switch_drops_total{") and 'reason="pfc_headroom"' not in line)
    sent = len(pp.HOST_PORTS) * pp.FRAMES
    check(others == 0, f"drops other than pfc_headroom: {others}")
    check(len(data) + headroom == sent, f"{len(data)} forwarded + {headroom:.0f} headroom drops != {sent} sent")
    check(len(data) > 0 and headroom > 0, f"{len(data)} forwarded, {headroom:.0f} headroom drops")
    fails = pp.metric(text, "spraylab_switch_pfc_send_failures_total")
    return (f"paused {paused * 1e3:.5f} ms; {len(data)} frames to the spine, {headroom:.0f} pfc_headroom drops; "
            f"{fails:.0f} send failures; switch rx {stats['totals']['rx_packets']}")


def main():
    args = case_parser().parse_args()
    ensure_hugepages()
    return run_cases(args, [
        ("pause_frames_on_the_wire_are_8021qbb", test_pause_frames_on_the_wire_are_8021qbb, ()),
        ("received_pause_is_obeyed_and_counted", test_received_pause_is_obeyed_and_counted, ()),
    ])


if __name__ == "__main__":
    sys.exit(main())
