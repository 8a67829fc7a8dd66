#!/usr/bin/env python3
"""buffer.flow_control: pfc on the namespaced fabric (spraylab-switch and spraylab-gen processes in
network namespaces): the switches send 802.1Qbb pauses on their DPDK ports and the generators obey
them (docs/generator.md, "PFC pauses").

A 3-to-1 incast on a 2-leaf, 1-spine leaf-spine (2 hosts a leaf) with a 32 KB buffer a port, every
link shaped to 2 Mb/s (time x500 over the file's 1 Gb/s): the receiver's leaf port gets three
senders' frames at once. The PFC headroom is the namespaced fabric's default (docs/switch.md, "Wall
clock"; fabric/namespaced/pfc_headroom.h): on processes that sleep between polls a pause is sent
at the receiver's turn and read at the sender's, so besides the wire's round trip it covers a
sleep of each (--idle-sleep, 20 ms: 5 KB at 2 Mb/s) and a late sender's burst (two frames), at
most a ring. The file's default alone (the wire's round trip, two frames and the pause: 2.5 KB)
had 24 pfc_headroom drops in one run on this loaded 2-CPU machine.
  pfc_incast_drops_nothing   with pfc every message completes, no switch drops a frame, the
                             switches sent pauses, and every pause a switch port sent arrived at
                             its peer: a switch port or a generator's port (counted there);
                             the fabric said the headroom it set, at least two sleeps at the
                             rate and two frames
  none_incast_drops          the same incast without flow control drops at the switches (the
                             check that the incast overflows at all)
Over memif links and over veth (af_xdp; the XDP program hands MAC control frames to the socket).
Nothing here asserts a speed: the figures (CCT, pauses, paused time) are printed.
Needs root (ip netns); skips (exit 77) otherwise.
"""
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
from dpdk_procs import fabric_namespaces, fabric_processes, run_spraylab  # noqa: E402
from cases import Skip, case_parser, run_cases, check  # noqa: E402

EXPERIMENT = """\
name: nspfc
seed: 4
topology: {{generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2}}
links: {{rate: 1Gbps, delay: 1us}}
buffer: {{bytes: 32KB, flow_control: {fc}}}
load_balancer: {{algorithm: ecmp}}
workload: {{type: incast, fan_in: 3, message_size: 48KB, payload: 1000, retransmit_timeout: 200us}}
measurement: {{queue_sample: 100us}}
"""
RATE = "2Mbps"
RATE_BPS = 2e6
IDLE_SLEEP_S = 20e-3  # the fabric's default --idle-sleep (fabric/namespaced/launcher.h)
FRAME_BYTES = 1000 + 82  # the payload and the testbed's headers
HEADROOM_NOTE = re.compile(r"note: buffer\.pfc\.headroom (\d+) B")


def incast(args, fc, links):
    """One namespaced run of the incast with flow_control `fc` over `links`: its summary.json and
    the run's stderr."""
    if os.geteuid() != 0:
        raise Skip("needs root (ip netns add)")
    work = tempfile.mkdtemp(prefix=f"spraylab-nspfc-{fc}-")
    name = f"p{fc[0]}{links[0]}{os.getpid()}"
    folder = os.path.join(work, "fabric")
    out = os.path.join(work, "out")
    exp = os.path.join(work, "incast.yaml")
    with open(exp, "w") as f:
        f.write(EXPERIMENT.format(fc=fc))
    try:
        r = run_spraylab(args.build, "run", exp, "--mode", "namespaced", "--links", links,
                         "--rate", RATE, "--fabric-name", name, "--fabric-dir", folder,
                         "--timeout", "120", "-o", out, timeout=600)
        check(r.returncode == 0, f"spraylab run --mode namespaced (flow_control {fc}) failed")
        with open(os.path.join(out, "ecmp", "summary.json")) as f:
            return json.load(f), r.stderr
    finally:
        left = fabric_namespaces(f"sl-{name}-") + fabric_processes(f"sl-{name}-")
        shutil.rmtree(work, ignore_errors=True)
        check(not left, f"left behind: {left}")


def test_pfc_incast_drops_nothing(args, links):
    s, err = incast(args, "pfc", links)
    note = HEADROOM_NOTE.search(err)
    check(note, "the fabric did not say the PFC headroom it set")
    headroom = int(note.group(1))
    least = 2 * (IDLE_SLEEP_S * RATE_BPS / 8 + FRAME_BYTES)
    check(headroom >= least, f"headroom {headroom} B: less than two sleeps at the rate and two "
          f"frames ({least:.0f} B)")
    cct = s["cct"]
    check(s["completed"] and cct["messages_completed"] == cct["messages"] == 3,
          f"not every message completed: {cct}")
    drops = s["loss"]["switch_drops"]
    p = s["pfc"]
    check(drops == 0, f"{drops} frames dropped at the switches with pfc: {p}")
    check(p["headroom_drops"] == 0, f"pfc_headroom drops: {p}")
    check(p["pause_sent"] > 0, f"no switch sent a pause: the incast did not fill a buffer: {p}")
    check(p["host_pause_received"] > 0 or p["pause_received"] > 0, f"no pause arrived: {p}")
    # Every pause a switch port sent arrived at its peer (the run ends with every frame delivered).
    check(p["pause_received"] + p["host_pause_received"] == p["pause_sent"],
          f"pauses sent {p['pause_sent']} != received by switches {p['pause_received']} + hosts "
          f"{p['host_pause_received']}")
    return (f"headroom {headroom} B, cct {cct['collective_ns'] / 1e6:.1f} ms, pauses sent "
            f"{p['pause_sent']}, received by switches {p['pause_received']} and hosts "
            f"{p['host_pause_received']}, resumes "
            f"{p['resume_sent']}/{p['resume_received'] + p['host_resume_received']}, paused "
            f"{p['paused_ns'] / 1e6:.1f} ms (switches) {p['host_paused_ns'] / 1e6:.1f} ms (hosts)")


def test_none_incast_drops(args, links):
    s, _ = incast(args, "none", links)
    drops = s["loss"]["switch_drops"]
    check(drops > 0, "the incast dropped nothing without flow control: it proves nothing")
    check("pfc" not in s, "a pfc block without pfc")
    return f"switch drops {drops}, retransmits {s['loss']['retransmits']}"


if __name__ == "__main__":
    args = case_parser(__doc__).parse_args()
    sys.exit(run_cases(args, [
        ("pfc_incast_drops_nothing_memif", test_pfc_incast_drops_nothing, ("memif",)),
        ("none_incast_drops_memif", test_none_incast_drops, ("memif",)),
        ("pfc_incast_drops_nothing_veth", test_pfc_incast_drops_nothing, ("veth",)),
    ]))
