#!/usr/bin/env python3
"""`spraylab run --mode virtual` end to end on the demo's 16-host fat tree: every results file is
written, two runs give byte-identical summaries (the issue's determinism acceptance), the resolved
config re-runs as it ran, and Ofan's and pOfan's maximum queues are below RPS's."""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, check, run_cases  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.join(ARGS.build, "fabric", "spraylab")
DEMO = os.path.join(ARGS.source, "conf", "examples", "demo.yaml")
ALGORITHMS = ["ofan", "pofan", "rps"]
VARIANT_FILES = ["config.yaml", "summary.json", "queues.csv", "generator.json", "run.json"]


def run(*args, timeout=600):
    return subprocess.run([SPRAYLAB, *args], capture_output=True, text=True, timeout=timeout)


def virtual_run(out):
    p = run("run", DEMO, "--mode", "virtual", "--algorithms", ",".join(ALGORITHMS), "--out", out)
    check(p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


work = tempfile.mkdtemp(prefix="spraylab-run-")
a, b = os.path.join(work, "a"), os.path.join(work, "b")
first = virtual_run(a)
virtual_run(b)


def every_file_is_written(_args):
    for algorithm in ALGORITHMS:
        for name in VARIANT_FILES:
            path = os.path.join(a, algorithm, name)
            check(os.path.getsize(path) > 0, f"{path} missing or empty")
    for name in ["summary.csv", "summary.json"]:
        check(os.path.getsize(os.path.join(a, name)) > 0, name)
    with open(os.path.join(a, "ofan", "queues.csv")) as f:
        header, row = f.readline().strip(), f.readline()
        check(header == "t_ns,switch,port,peer,packets,bytes", header)
        check(row.count(",") == 5, row)
    if shutil.which("gnuplot"):
        for plot in ["queue_depth", "cct_cdf", "max_queue"]:
            for ext in ["png", "svg"]:
                path = os.path.join(a, "plots", f"{plot}.{ext}")
                check(os.path.getsize(path) > 0, f"{path} missing")


def two_runs_give_byte_identical_summaries(_args):
    for algorithm in ALGORITHMS:
        name = os.path.join(algorithm, "summary.json")
        check(filecmp.cmp(os.path.join(a, name), os.path.join(b, name), shallow=False), name)
    for name in ["summary.json", "summary.csv"]:
        check(filecmp.cmp(os.path.join(a, name), os.path.join(b, name), shallow=False), name)


def summaries_say_the_workload_completed_within_its_bound(_args):
    with open(os.path.join(a, "summary.json")) as f:
        table = json.load(f)
    check([v["variant"] for v in table["variants"]] == ALGORITHMS, table["variants"])
    for v in table["variants"]:
        cct = v["cct"]
        check(v["completed"] and v["mode"] == "virtual", v)
        check(cct["messages"] == cct["messages_completed"] == 16, cct)
        check(cct["collective_ns"] >= cct["bound_ns"] > 0, cct)
        check(v["queue"]["max_bytes"] > 0 and v["events"] > 0, v)
    for line in first.stdout.splitlines()[-len(ALGORITHMS):]:
        check(line.split()[0] in ALGORITHMS, first.stdout)


def resolved_config_reruns_as_it_ran(_args):
    config = os.path.join(a, "pofan", "config.yaml")
    p = run("run", config, "--dry-run")
    check(p.returncode == 0 and p.stdout.split()[0] == "pofan", p.stdout + p.stderr)
    out = os.path.join(work, "again")
    p = run("run", config, "--mode", "virtual", "--out", out)
    check(p.returncode == 0, p.stderr)
    check(filecmp.cmp(os.path.join(a, "pofan", "summary.json"),
                      os.path.join(out, "pofan", "summary.json"), shallow=False),
          "pofan's summary.json differs")


def ofan_and_pofan_queue_less_than_rps(_args):
    with open(os.path.join(a, "summary.json")) as f:
        q = {v["variant"]: v["queue"]["max_bytes"] for v in json.load(f)["variants"]}
    check(q["ofan"] < q["rps"] and q["pofan"] < q["rps"], q)


CASES = [
    ("every file is written", every_file_is_written, ()),
    ("two runs give byte-identical summaries", two_runs_give_byte_identical_summaries, ()),
    ("summaries say the workload completed within its bound",
     summaries_say_the_workload_completed_within_its_bound, ()),
    ("the resolved config re-runs as it ran", resolved_config_reruns_as_it_ran, ()),
    ("Ofan's and pOfan's max queues are below RPS's", ofan_and_pofan_queue_less_than_rps, ()),
]
status = run_cases(ARGS, CASES)
shutil.rmtree(work)
sys.exit(status)
