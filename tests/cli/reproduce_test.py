#!/usr/bin/env python3
"""`spraylab reproduce` (issue 14; docs/reproduce.md): the papers' results as reproductions.

Cases:
  <name> small version holds      one case per conf/experiments/*.yaml: `spraylab reproduce NAME
                                  --small` exits 0, every check of its report.json passed, and
                                  the figures are drawn; --redraw from the same results writes the
                                  same report.json (the verdicts come from the results, nothing else).
  a failing check exits 1         an impossible check (max queue at most 0) is reported as failing,
                                  with the measured value, and the command exits 1.
  bad input is exit 2             an unknown key in reproduce: (at its line), an unknown name, a
                                  results folder spraylab did not make (its files untouched).
  --list names every reproduction one line per file with its title.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, run_cases, check  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.abspath(os.path.join(ARGS.build, "fabric", "spraylab"))
EXPERIMENTS = os.path.join(ARGS.source, "conf", "experiments")

TINY = """\
name: tiny
topology: {generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
links: {rate: 10Gbps, delay: 1us}
workload: {type: permutation, message_size: 64KB}
reproduce:
  title: tiny
  runs:
    - {name: sw, algorithms: [rps, ofan], sweep: {workload.message_size: [16KiB, 64KiB]}}
  figures:
    - {name: q, x: workload.message_size, y: queue.max_packets, fit: loglog}
  checks:
    - {figure: q, series: ofan, max_at_most: 0}
"""


def spraylab(cwd, *args, timeout=900):
    return subprocess.run([SPRAYLAB, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def small_version_holds(_args, name):
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, name)
        r = spraylab(ARGS.source, "reproduce", name, "--small", "-o", out)
        check(r.returncode == 0, f"exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        check(report["small"] and report["passed"], report)
        check(report["checks"], "a reproduction without checks shows nothing")
        failed = [c for c in report["checks"] if not c["passed"]]
        check(not failed, failed)
        for figure in report["figures"]:
            check(figure["series"], f"figure {figure['name']} has no data: {figure['problems']}")
            check(not figure["problems"], figure["problems"])
            png = os.path.join(out, "figures", figure["name"] + ".png")
            check(os.path.getsize(png) > 1000, f"{png} missing or empty")
        r2 = spraylab(ARGS.source, "reproduce", name, "--small", "--redraw", "-o", out)
        check(r2.returncode == 0, r2.stderr)
        with open(os.path.join(out, "report.json")) as f:
            check(json.load(f) == report, "--redraw changed the report")
        return "; ".join(f"{c['series']} {c['check']}: {c['measured']}" for c in report["checks"])


def failing_check_exits_1(_args):
    with tempfile.TemporaryDirectory() as t:
        write(os.path.join(t, "tiny.yaml"), TINY)
        r = spraylab(t, "reproduce", "tiny.yaml")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stdout}{r.stderr}")
        check("FAILS q ofan: every value ≤ 0 — max " in r.stdout, r.stdout)
        with open(os.path.join(t, "results", "tiny", "report.json")) as f:
            report = json.load(f)
        check(report["passed"] is False and report["checks"][0]["passed"] is False, report)
        series = {s["name"]: s for s in report["figures"][0]["series"]}
        check(set(series) == {"rps", "ofan"}, series.keys())
        check([p["x_text"] for p in series["ofan"]["points"]] == ["16KiB", "64KiB"], series)
        with open(os.path.join(t, "results", "tiny", "report.md")) as f:
            check("**fails**" in f.read(), "report.md does not say it fails")
        return report["checks"][0]["measured"]


def bad_input_is_exit_2(_args):
    with tempfile.TemporaryDirectory() as t:
        write(os.path.join(t, "typo.yaml"), TINY.replace("    - {name: sw,", "    - {nme: sw,"))
        r = spraylab(t, "reproduce", "typo.yaml")
        check(r.returncode == 2 and "typo.yaml:8:" in r.stderr and "nme" in r.stderr, r.stderr)
        r = spraylab(t, "reproduce", "no-such-reproduction")
        check(r.returncode == 2 and "--list" in r.stderr, r.stderr)
        write(os.path.join(t, "tiny.yaml"), TINY)
        os.makedirs(os.path.join(t, "mine"))
        write(os.path.join(t, "mine", "notes.txt"), "keep")
        r = spraylab(t, "reproduce", "tiny.yaml", "-o", "mine")
        check(r.returncode == 2 and "not a spraylab reproduction folder" in r.stderr, r.stderr)
        check(os.listdir(os.path.join(t, "mine")) == ["notes.txt"], "the folder was touched")
        # A run's mistyped balancer names the run, not a command-line option nobody gave.
        write(os.path.join(t, "alg.yaml"), TINY.replace("algorithms: [rps, ofan]",
                                                        "algorithms: [rps, ofna]"))
        r = spraylab(t, "reproduce", "alg.yaml")
        check(r.returncode == 2 and "found ofna (from reproduce run 'sw' algorithms ofna)"
              in r.stderr, f"exit {r.returncode}: {r.stderr}")
        # A y no summary has: the file is wrong, not the result (was exit 1, "FAILS ... no series").
        write(os.path.join(t, "figy.yaml"), TINY.replace("y: queue.max_packets", "y: queue.nosuch"))
        r = spraylab(t, "reproduce", "figy.yaml")
        check(r.returncode == 2 and "figure q draws nothing" in r.stderr and
              "summary.json has no number at queue.nosuch" in r.stderr,
              f"exit {r.returncode}: {r.stderr}")


def list_names_every_reproduction(_args):
    r = spraylab(ARGS.source, "reproduce", "--list")
    check(r.returncode == 0, r.stderr)
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(EXPERIMENTS, "*.yaml")))
    listed = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    check(listed == names, f"{listed} != {names}")
    # How long a full-size run takes, where the file records it (issue 43, point 7).
    scale = [line for line in r.stdout.splitlines() if line.startswith("ofan-scale ")]
    check(scale and "(full size: 30 minutes; --small: seconds)" in scale[0], f"{scale}")
    silent = [line for line in r.stdout.splitlines() if line.strip() and "(full size: " not in line]
    check(not silent, f"lines that do not say what a full-size run costs: {silent}")
    return f"{len(names)} reproductions"


CASES = [(f"{os.path.basename(p)[:-5]} small version holds", small_version_holds,
          (os.path.basename(p)[:-5],))
         for p in sorted(glob.glob(os.path.join(EXPERIMENTS, "*.yaml")))]
def each_runs_table_says_which_run_and_notes_come_once(_args):
    # Issue 43, point 7: two runs' tables looked identical, and a note came once per variant.
    with tempfile.TemporaryDirectory() as work:
        r = spraylab(work, "reproduce", "ofan-queue-growth", "--small", "-o", "out")
        check(r.returncode == 0, r.stderr[-2000:])
        headers = [line for line in r.stdout.splitlines() if " mode, " in line]
        check(len(headers) > 1 and len(set(headers)) == len(headers), f"table headers: {headers}")
        check(all("(run " in h for h in headers), f"a header names no run: {headers}")
        notes = [line for line in (r.stdout + r.stderr).splitlines() if line.startswith("note: ")]
        check(len(notes) == len(set(notes)), f"notes said more than once: {notes}")
        return f"{len(headers)} tables, {len(notes)} notes"


CASES += [
    ("each run's table says which run, and a note comes once",
     each_runs_table_says_which_run_and_notes_come_once, ()),
    ("a failing check exits 1", failing_check_exits_1, ()),
    ("bad input is exit 2", bad_input_is_exit_2, ()),
    ("--list names every reproduction", list_names_every_reproduction, ()),
]
sys.exit(run_cases(ARGS, CASES))
