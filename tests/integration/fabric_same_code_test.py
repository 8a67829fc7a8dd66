#!/usr/bin/env python3
"""The in-process fabric runs the switch's own code (issue: fabrics in wall-clock and virtual time).

For each algorithm that does not read queue depths (those depend on timing), the standalone
spraylab-switch on memif (driven by switch_driver, as in switch_memif_test.py) and one switch of
the fabric (tests/fabric/fabric_switch_probe.cpp, fed through the fabric's own link) get the same
4000 frames in the same order with the same seed, and must send exactly as many of each
destination's frames out of each port. A run of the probe with another seed must not (for the
random algorithm), so the comparison can fail.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # dpdk_procs here, cases in tests/
from dpdk_procs import ensure_hugepages  # noqa: E402
from cases import case_parser, run_cases  # noqa: E402
from switch_memif_test import Case, check  # noqa: E402

ALGORITHMS = ["ecmp", "rps", "rr", "ofan", "pofan"]
FRAMES = ["--packets", "4000", "--flows", "64"]


def probe(args, config, *extra):
    out = subprocess.run([f"{args.build}/tests/fabric/fabric_switch_probe", "--config", config,
                          "--switch", "leaf0", *FRAMES, *extra],
                         capture_output=True, text=True, timeout=120)
    check(out.returncode == 0, f"probe failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout)["spread"]


def test_same_decisions(args, algorithm):
    c = Case(args, f"same_{algorithm}", algorithm)
    c.start_switch()
    try:
        real = c.run_driver("--mode", "spread", *FRAMES)["spread"]
        fab = probe(args, c.config)
        other = probe(args, c.config, "--seed", "8") if algorithm == "rps" else None
    finally:
        c.finish()
    check(real["received_total"] == real["sent"] == 4000, f"switch delivered {real['received_total']}")
    check(fab["received_total"] == 4000, f"fabric delivered {fab['received_total']}")
    check(fab["received"] == real["received"],
          f"{algorithm}: per port, fabric {fab['received']} vs switch {real['received']}")
    check(fab["per_dest"] == real["per_dest"], f"{algorithm}: per destination and port differ")
    if other is not None:
        check(other["per_dest"] != real["per_dest"], "rps with another seed chose the same ports")
    return f"{real['received']}"


def main():
    args = case_parser().parse_args()
    ensure_hugepages()
    cases = [(f"same_decisions[{a}]", test_same_decisions, (a,)) for a in ALGORITHMS]
    return run_cases(args, cases)


if __name__ == "__main__":
    sys.exit(main())
