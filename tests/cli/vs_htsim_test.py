#!/usr/bin/env python3
"""bench/vs-htsim's matrix writer (issue 36): the one message list goes to spraylab's trace and to
htsim's connection matrix alike, spraylab runs the trace as the matrix lists it, and the settings
the bench derives from htsim_uec's command line are the ones htsim_uec prints. Needs no htsim
binary: the .tm is checked against the message list spraylab itself reports."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, check, run_cases  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
sys.path.insert(0, os.path.join(ARGS.source, "bench"))
import htsim_common as hc  # noqa: E402

BENCH = os.path.join(ARGS.source, "bench", "vs-htsim")
SPRAYLAB = os.path.join(ARGS.build, "fabric", "spraylab")
HOSTS = 16
work = tempfile.mkdtemp(prefix="spraylab-vs-htsim-test-")


def write(size):
    p = subprocess.run([sys.executable, BENCH, "--write-only", "--main-keys", "--workdir", work,
                        "--hosts", str(HOSTS), "--workload", "permutation,alltoall",
                        "--size", size, "--entropy", "reps"],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")


write("12KiB")  # three packets of 4096 B per message


def matrix(workload):
    return os.path.join(work, f"{workload}-{HOSTS}-{12 * 1024}-s1")


def read_trace(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        check(r["start_ns"] == "0" and r["depends_on"] == "", r)
    return [hc.Message(int(r["src"]), int(r["dst"]), int(r["bytes"])) for r in rows]


def trace_and_matrix_list_the_same_messages(_args):
    for workload in ("permutation", "alltoall"):
        hosts, tm = hc.read_tm(matrix(workload) + ".tm")
        check(hosts == HOSTS, hosts)
        trace = read_trace(matrix(workload) + ".csv")
        check(tm == trace, f"{workload}: .tm and trace differ")
        check(all(m.bytes == 12 * 1024 and m.src != m.dst for m in tm), workload)
    _, perm = hc.read_tm(matrix("permutation") + ".tm")
    check(sorted(m.src for m in perm) == list(range(HOSTS)), "a sender twice or never")
    check(sorted(m.dst for m in perm) == list(range(HOSTS)), "a receiver twice or never")
    _, a2a = hc.read_tm(matrix("alltoall") + ".tm")
    pairs = {(m.src, m.dst) for m in a2a}
    check(len(a2a) == HOSTS * (HOSTS - 1) and len(pairs) == len(a2a), "not every pair once")
    # Round j is a permutation: each host sends once and receives once in it.
    for j in range(HOSTS - 1):
        rnd = a2a[j * HOSTS:(j + 1) * HOSTS]
        check(len({m.src for m in rnd}) == HOSTS and len({m.dst for m in rnd}) == HOSTS, j)
    return f"{len(perm)} + {len(a2a)} messages"


def spraylab_runs_the_trace_as_the_matrix_lists_it(_args, workload):
    config = os.path.join(work, f"{workload}-{12 * 1024}-nscc-reps-trimon.yaml")
    out = os.path.join(work, "out-" + workload)
    p = subprocess.run([SPRAYLAB, "run", config, "--mode", "virtual", "--out", out],
                       capture_output=True, text=True, timeout=600)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    found = [os.path.join(d, "generator.json") for d, _, files in os.walk(out)
             if "generator.json" in files]
    check(len(found) == 1, found)
    with open(found[0]) as f:
        msgs = sorted(json.load(f)["messages"], key=lambda m: m["id"])
    _, tm = hc.read_tm(matrix(workload) + ".tm")
    ran = [hc.Message(m["src"], m["dst"], m["bytes"]) for m in msgs]
    check(ran == tm, f"spraylab ran {ran[:4]}..., the .tm lists {tm[:4]}...")
    check(all(m["completed"] for m in msgs), "a message did not complete")
    return f"{len(msgs)} messages, ids 0..{len(msgs) - 1} = the .tm's 1..{len(tm)}"


def reference_settings_are_htsim_uecs(_args):
    # By hand from datacenter/main_uec.cpp, and as htsim_uec printed them for -nodes 128 -tiers 3
    # -linkspeed 800000 -mtu 4160 (default 1 us hops): RTT = 2 x 6 us + 6 x (4160 + 64) x 8 /
    # 800 Gb/s = 12,253,440 ps; BDP ceil(12.25344 us x 100 GB/s / 4160) = 295 packets; queue
    # 1 x BDP = 1,227,200 B with trimming, 5 x = 6,136,000 B without; ECN ceil(0.2 x 295) = 59 and
    # ceil(0.8 x 295) = 236 packets; min RTO 15 us + queue x 48 / 800 Gb/s.
    on = hc.reference_settings(128, mtu=4160, trimming=True)
    off = hc.reference_settings(128, mtu=4160, trimming=False)
    check(on["rtt_ps"] == 12253440, on["rtt_ps"])
    check(on["bdp_packets"] == 295, on["bdp_packets"])
    check(on["queue_bytes"] == 1227200 and off["queue_bytes"] == 6136000,
          (on["queue_bytes"], off["queue_bytes"]))
    check(on["ecn_low_bytes"] == 245440 and on["ecn_high_bytes"] == 981760,
          (on["ecn_low_bytes"], on["ecn_high_bytes"]))
    check(on["min_rto_ps"] == 88632000 and off["min_rto_ps"] == 383160000,
          (on["min_rto_ps"], off["min_rto_ps"]))
    check(on["mss"] == 4096 and on["ack_every_packets"] == 4, (on["mss"], on["ack_every_packets"]))
    check(hc.fat_tree_k(128) == 8 and hc.fat_tree_k(16) == 4, "k")
    # The spraylab config carries them.
    with open(os.path.join(work, f"permutation-{12 * 1024}-nscc-reps-trimon.yaml")) as f:
        text = f.read()
    for want in ("bytes: 1227200B", "delay: 1000ns", "payload: 4096", "ack_every: 4",
                 "retransmit_timeout: 88632ns", "entropy_range: 64", "k: 4"):
        check(want in text, f"'{want}' not in the config:\n{text}")


def rccc_runs_receiver_credits_on_both_sides(_args):
    # --rccc: spraylab's config takes cc nscc+rccc, htsim_uec -sender_cc -receiver_cc in place of
    # -sender_cc_only; spraylab completes the permutation with credits.
    p = subprocess.run([sys.executable, BENCH, "--write-only", "--rccc", "--workdir", work,
                        "--hosts", str(HOSTS), "--workload", "permutation", "--size", "12KiB",
                        "--entropy", "oblivious"], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    config = os.path.join(work, f"permutation-{12 * 1024}-nscc-rccc-oblivious-trimon.yaml")
    with open(config) as f:
        text = f.read()
    check("cc: nscc+rccc" in text, text)
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("vs_htsim", BENCH)
    spec = importlib.util.spec_from_loader("vs_htsim", loader)
    vs = importlib.util.module_from_spec(spec)
    loader.exec_module(vs)
    args = vs.argparse.Namespace(htsim="htsim_uec", rate_gbps=800, hop_latency_us=1.0,
                                 switch_latency_us=0.0, mtu=4160, htsim_seed=13, end_us=100,
                                 htsim_args="")
    case = {"hosts": HOSTS, "cc": "nscc", "entropy": "oblivious", "trim": True, "rccc": True}
    cmd = vs.htsim_command(args, case, "m.tm")
    check("-receiver_cc" in cmd and "-sender_cc" in cmd and "-sender_cc_only" not in cmd, cmd)
    case["rccc"] = False
    check("-sender_cc_only" in vs.htsim_command(args, case, "m.tm"), "without --rccc")
    out = os.path.join(work, "out-rccc")
    p = subprocess.run([SPRAYLAB, "run", config, "--mode", "virtual", "--out", out],
                       capture_output=True, text=True, timeout=600)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    found = [os.path.join(d, "generator.json") for d, _, files in os.walk(out)
             if "generator.json" in files]
    with open(found[0]) as f:
        g = json.load(f)
    check(all(m["completed"] for m in g["messages"]), "a message did not complete")
    check(g["counters"]["credit_spent_bytes"] > 0, g["counters"])
    return f"{len(g['messages'])} messages with credits, {g['counters']['tx_pull_packets']} PULLs"


CASES = [
    ("the trace and the .tm list the same messages", trace_and_matrix_list_the_same_messages, ()),
    ("spraylab runs the permutation trace as the .tm lists it",
     spraylab_runs_the_trace_as_the_matrix_lists_it, ("permutation",)),
    ("spraylab runs the all-to-all trace as the .tm lists it",
     spraylab_runs_the_trace_as_the_matrix_lists_it, ("alltoall",)),
    ("the bench's reference settings are htsim_uec's", reference_settings_are_htsim_uecs, ()),
    ("--rccc runs receiver credits on both sides", rccc_runs_receiver_credits_on_both_sides, ()),
]
status = run_cases(ARGS, CASES)
shutil.rmtree(work)
sys.exit(status)
