#!/usr/bin/env python3
"""`spraylab reproduce` (issues 14 and 37; docs/reproduce.md): the papers' results as
reproductions, every point over several seeds, judged on confidence intervals.

The machinery is asserted here, never a particular verdict of a real experiment: a result that
does not reproduce is a result.

Cases:
  --all --small: seeds, intervals, verdicts, differences
                                  `spraylab reproduce --all --small --report FILE` (make test's
                                  size: 3 seeds, or a file's small.seeds): exit 0 or 1 (1: some
                                  check does not hold), every reproduction's report.json names its
                                  seeds, every point has that many per-seed rows in seeds.csv and
                                  an interval (low <= mean <= high; a time series' last samples may have fewer
                                  seeds), every plot is drawn, every
                                  verdict in verdicts.json is one of the four words, each file's
                                  differences are printed and in report.md, every run's resolved
                                  settings are in report.md, and FILE has each result with its
                                  notes section (the notes file's text when there is one).
  --redraw judges the stored data again
                                  --redraw --all --small on the same folders writes the same
                                  report.json and verdicts.json.
  --redraw never upgrades a not-reproduced
                                  per-seed data that must fail, then data that must pass, redrawn
                                  in one folder: the first verdict (`not reproduced`) stays, and
                                  says it was kept; an edited check stays `not reproduced` and says
                                  it changed; the passing data in a fresh folder is `reproduced`;
                                  data on the paper's side but short of it, a smaller effect.
  each run's table says which run, and a note comes once
                                  (from the --all run's output) every table header of a
                                  reproduction names its run; no note is said twice.
  a failing check exits 1         an impossible check (max queue at most 0) is reported as failing,
                                  with the measured value, and the command exits 1.
  bad input is exit 2             an unknown key in reproduce: (at its line), an unknown name, a
                                  results folder spraylab did not make (its files untouched), a
                                  paper check without a tolerance, a difference without why,
                                  a check's series or x its figure will not have (before any
                                  run), --redraw with no stored data.
  --resume runs only what is missing
                                  tiny over 2 seeds, one variant folder removed and one's summary
                                  made a timeout: --resume --seeds 3 --dry-run marks the others
                                  `the earlier run stands`; --resume runs exactly the removed, the
                                  timed-out and the third seed's variants, and seeds.csv's rows of
                                  seeds 1 and 2 are the first run's; --resume --redraw is exit 2.
  scripts/pack-variants.py: an archive resumes elsewhere
                                  tiny on credit links over 2 seeds (8 variants), one variant
                                  moved into a killed run's staging folder, one made not whole (no
                                  run.json), one being written (.writing), and one timed out in
                                  the run's folder with a good copy in the staging folder: the
                                  archive holds the 6 whole ones and the second copy, without the
                                  per-port credit lists; extracted into a new folder, --resume
                                  runs only the two not whole and keeps the timed-out one's good
                                  copy, and seeds.csv is the first run's; a folder spraylab did
                                  not make is refused.
  --list names every reproduction one line per file with its title, its differences indented.
  --all --redraw lists a reproduction not run yet
                                  a copy of the --all folders without one reproduction's folder:
                                  --all --redraw --report exits as before, the page lists it as
                                  `not run yet` with its declared checks and differences, every
                                  other is drawn; naming it alone with --redraw is still an error,
                                  and so is --all --redraw where nothing is stored (page kept).
"""
import csv
import re
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, run_cases, check  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.abspath(os.path.join(ARGS.build, "fabric", "spraylab"))
EXPERIMENTS = os.path.join(ARGS.source, "conf", "experiments")
NAMES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(EXPERIMENTS, "*.yaml")))
VERDICTS = ["reproduced", "same direction, smaller effect", "same direction, larger effect",
            "not reproduced"]

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

# A paper check on a ratio of two series at one x: 0.5 ± 10 %, no effect at 1.
PAPER = TINY.replace("""  checks:
    - {figure: q, series: ofan, max_at_most: 0}
""", """  differences:
    - {setting: links.delay, paper: 500 ns, here: 1 us, why: a small test}
  checks:
    - {figure: q, series: ofan, measure: ratio, to: rps, at: 64KiB, paper: 0.5,
       where: "nowhere, Fig. 0", tolerance: 10%}
""")


def spraylab(cwd, *args, timeout=900):
    return subprocess.run([SPRAYLAB, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def load(path):
    with open(path) as f:
        return json.load(f)


# The --all --small run, made once and read by several cases.
ALL = {}


def all_small():
    if not ALL:
        t = tempfile.mkdtemp(prefix="spraylab-reproduce-")
        ALL["dir"] = t
        ALL["out"] = os.path.join(t, "out")
        ALL["report"] = os.path.join(t, "docs", "RESULTS.md")
        os.makedirs(os.path.join(t, "docs", "results", NAMES[0]))
        write(os.path.join(t, "docs", "results", NAMES[0], "notes.md"), "Hand-written: kept.\n")
        ALL["run"] = spraylab(ARGS.source, "reproduce", "--all", "--small", "-o", ALL["out"],
                              "--report", ALL["report"])
    return ALL


def small_seeds(name):
    """The seeds --small runs for this file: its small.seeds, else 3."""
    import yaml  # noqa: PLC0415 (only here: the rest of the script needs no PyYAML)
    with open(os.path.join(EXPERIMENTS, name + ".yaml")) as f:
        small = yaml.safe_load(f)["reproduce"].get("small", {}) or {}
    return small.get("seeds", 3)


def all_small_machinery(_args):
    a = all_small()
    r = a["run"]
    check(r.returncode in (0, 1), f"exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    verdicts_seen = []
    for name in NAMES:
        out = os.path.join(a["out"], name)
        report = load(os.path.join(out, "report.json"))
        n = small_seeds(name)
        check(report["small"] and len(report["seeds"]) == n, (name, report["seeds"]))
        with open(os.path.join(out, "seeds.csv")) as f:
            rows = list(csv.DictReader(f))
        check(sorted({int(x["seed"]) for x in rows}) == report["seeds"], (name, report["seeds"]))
        for figure in report["figures"]:
            check(figure["series"] and not figure["problems"], (name, figure["name"], figure["problems"]))
            png = os.path.join(out, "figures", figure["name"] + ".png")
            check(os.path.getsize(png) > 1000, f"{png} missing or empty")
            for s in figure["series"]:
                if s.get("model"):
                    # A model's curve (figures[].models): computed, no seeds, not in seeds.csv.
                    check(all(p["ci"]["n"] == 0 for p in s["points"]), (name, s["name"]))
                    check(not any(x["figure"] == figure["name"] and x["series"] == s["name"]
                                  for x in rows), (name, s["name"], "in seeds.csv"))
                    continue
                for p in s["points"]:
                    # A time series (a source CSV) ends when its run does: its last samples may
                    # come from fewer seeds than the rest. Every other point has every seed.
                    ci = p["ci"]
                    full = ci["n"] == n
                    check(full or (figure["source"] and 1 <= ci["n"] < n), (name, figure["name"], p))
                    check(ci["n"] < 2 or ci["low"] <= p["y"] <= ci["high"], (name, figure["name"], p))
                    if not full:
                        continue
                    mine = [float(x["y"]) for x in rows if x["figure"] == figure["name"]
                            and x["series"] == s["name"] and float(x["x"]) == p["x"]]
                    seeds = sorted(int(x["seed"]) for x in rows if x["figure"] == figure["name"]
                                   and x["series"] == s["name"] and float(x["x"]) == p["x"])
                    check(seeds == report["seeds"], (name, figure["name"], s["name"], seeds))
                    check(ci["low"] is not None, (name, figure["name"], s["name"], p))
                    check(len(mine) == n and abs(sum(mine) / n - p["y"]) <= 1e-9 * max(1, abs(p["y"])),
                          (name, figure["name"], s["name"], p["x"], mine, p["y"]))
        verdicts = load(os.path.join(out, "verdicts.json"))
        check(verdicts["vocabulary"] == VERDICTS, verdicts["vocabulary"])
        check(len(verdicts["checks"]) == len(report["checks"]) > 0, (name, verdicts["checks"]))
        for c in verdicts["checks"]:
            check(c["kind"] in ("paper", "ordering", "threshold"), c)
            if c["kind"] == "paper":
                check(c["verdict"] in VERDICTS, c)
                verdicts_seen.append(c["verdict"])
            else:
                check(isinstance(c["passed"], bool), c)
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        check("## Differences from the paper" in md and "## Settings of every run" in md, name)
        check(f"{n} seeds" in md and " ± " in md, name)
        for d in report["differences"]:
            check(f"| {d['setting']} | {d['paper']} | {d['here']} |" in md, (name, d))
            check(f"differs from the paper: {d['setting']}: paper {d['paper']}" in r.stdout, (name, d))
    with open(a["report"]) as f:
        results = f.read()
    for name in NAMES:
        check(f'<a id="{name}"></a>' in results, f"{name} missing from the generated file")
        check(os.path.exists(os.path.join(a["dir"], "docs", "results", name, "seeds.csv")), name)
        check(f"](results/{name}/figures/" in results, f"{name}: no plot linked beside the file")
        check(f"<!-- hand-written: results/{name}/notes.md" in results, name)
    check("Hand-written: kept." in results, "the notes file's text is not in the generated file")
    return f"{len(NAMES)} reproductions, {len(verdicts_seen)} paper verdicts"


def redraw_judges_the_stored_data_again(_args):
    a = all_small()
    before = {n: (load(os.path.join(a["out"], n, "report.json")),
                  load(os.path.join(a["out"], n, "verdicts.json"))) for n in NAMES}
    r = spraylab(ARGS.source, "reproduce", "--all", "--small", "--redraw", "-o", a["out"])
    check(r.returncode == a["run"].returncode, f"exit {r.returncode}\n{r.stderr[-2000:]}")
    for n in NAMES:
        report = load(os.path.join(a["out"], n, "report.json"))
        check(report == before[n][0], f"{n}: --redraw changed report.json")
        check(load(os.path.join(a["out"], n, "verdicts.json")) == before[n][1], n)


def seeds_csv(rows):
    """seeds.csv of figure q: (series, x bytes, x_text, seed, y)."""
    return "figure,series,x,x_text,seed,y\n" + "".join(
        f"q,{s},{x},{t},{seed},{y}\n" for s, x, t, seed, y in rows)


def ratio_data(ratio):
    """Three seeds of rps at 1 (16KiB) and 10 (64KiB); ofan = ratio × rps ± a little."""
    rows = []
    for seed, wiggle in ((1, -0.01), (2, 0.0), (3, 0.01)):
        for x, t, y in ((16384, "16KiB", 1.0), (65536, "64KiB", 10.0)):
            rows.append(("rps", x, t, seed, y))
            rows.append(("ofan", x, t, seed, y * (ratio + wiggle)))
    return seeds_csv(rows)


def redraw_verdict(t, out):
    r = spraylab(t, "reproduce", "paper.yaml", "--redraw", "-o", out)
    check(r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr}")
    c = load(os.path.join(t, out, "verdicts.json"))["checks"][0]
    check(c["verdict"] in VERDICTS, c)
    return c, r


def redraw_never_upgrades_a_not_reproduced(_args):
    with tempfile.TemporaryDirectory() as t:
        write(os.path.join(t, "paper.yaml"), PAPER)
        os.makedirs(os.path.join(t, "fresh"))
        write(os.path.join(t, "fresh", "seeds.csv"), ratio_data(0.5))
        c, r = redraw_verdict(t, "fresh")
        check(c["verdict"] == "reproduced" and r.returncode == 0, (c, r.stdout))
        os.makedirs(os.path.join(t, "short"))
        write(os.path.join(t, "short", "seeds.csv"), ratio_data(0.8))
        c, _ = redraw_verdict(t, "short")
        check(c["verdict"] == "same direction, smaller effect", c)
        # Data that must fail, judged first; then data that must pass, redrawn: still failed.
        os.makedirs(os.path.join(t, "kept"))
        write(os.path.join(t, "kept", "seeds.csv"), ratio_data(1.5))
        c, r = redraw_verdict(t, "kept")
        check(c["verdict"] == "not reproduced" and r.returncode == 1, c)
        write(os.path.join(t, "kept", "seeds.csv"), ratio_data(0.5))
        c, r = redraw_verdict(t, "kept")
        check(c["verdict"] == "not reproduced" and "kept the first verdict" in c.get("history", ""), c)
        check(r.returncode == 1 and "not reproduced:" in r.stdout, r.stdout)
        # The check edited after the run (a wider tolerance): it says so, and stays not reproduced.
        write(os.path.join(t, "paper.yaml"), PAPER.replace("tolerance: 10%", "tolerance: 200%"))
        c, _ = redraw_verdict(t, "kept")
        check(c["verdict"] == "not reproduced" and "changed since" in c.get("history", ""), c)
        with open(os.path.join(t, "kept", "report.md")) as f:
            md = f.read()
        check("changed since" in md and "| links.delay | 500 ns | 1 us | a small test |" in md, md)
        return c["history"]


def each_runs_table_says_which_run_and_notes_come_once(_args):
    # Issue 43, point 7: two runs' tables looked identical, and a note came once per variant.
    r = all_small()["run"]
    headers = [line for line in r.stdout.splitlines() if line.startswith("ofan-queue-growth (run ")]
    check(len(headers) > 1 and len(set(headers)) == len(headers), f"table headers: {headers}")
    notes = [line for line in (r.stdout + r.stderr).splitlines() if line.startswith("note: ")]
    check(len(notes) == len(set(notes)), f"notes said more than once: {notes}")
    return f"{len(headers)} tables, {len(notes)} notes"


def failing_check_exits_1(_args):
    with tempfile.TemporaryDirectory() as t:
        write(os.path.join(t, "tiny.yaml"), TINY)
        r = spraylab(t, "reproduce", "tiny.yaml", "--seeds", "2")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stdout}{r.stderr}")
        check("FAILS: q ofan: every value ≤ 0 — max " in r.stdout, r.stdout)
        report = load(os.path.join(t, "results", "tiny", "report.json"))
        check(report["passed"] is False and report["checks"][0]["passed"] is False, report)
        check(report["seeds"] == [1, 2], report["seeds"])
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
        check(r.returncode == 2 and "found ofna; did you mean 'ofan'? (from reproduce run 'sw' algorithms ofna)"
              in r.stderr, f"exit {r.returncode}: {r.stderr}")
        # A y no summary has: the file is wrong, not the result (was exit 1, "FAILS ... no series").
        write(os.path.join(t, "figy.yaml"), TINY.replace("y: queue.max_packets", "y: queue.nosuch"))
        r = spraylab(t, "reproduce", "figy.yaml", "--seeds", "1")
        check(r.returncode == 2 and "figure q draws nothing" in r.stderr and
              "summary.json has no number at queue.nosuch" in r.stderr,
              f"exit {r.returncode}: {r.stderr}")
        # A check naming a series its figure does not have, or an x its runs do not sweep, is the
        # file's mistake, not a result (was "not reproduced" with no measure: mrls-dragonfly's
        # 'DF cost 1.33/ugal' for a one-algorithm run whose series is 'DF cost 1.33'; then "not
        # judged", but only after every run): exit 2 before anything runs, nothing written.
        write(os.path.join(t, "to.yaml"), PAPER.replace("to: rps,", "to: rps/x,"))
        r = spraylab(t, "reproduce", "to.yaml", "--seeds", "1", "-o", "to")
        check(r.returncode == 2 and "no series 'rps/x' in q (it has: rps, ofan)" in r.stderr,
              f"exit {r.returncode}: {r.stdout[-1500:]}{r.stderr[-1500:]}")
        check(not os.path.exists(os.path.join(t, "to")), "a refused reproduction wrote its folder")
        write(os.path.join(t, "at.yaml"), PAPER.replace("at: 64KiB,", "at: 2MiB,"))
        r = spraylab(t, "reproduce", "at.yaml", "--dry-run")
        check(r.returncode == 2 and "2MiB is not an x of figure q (its runs sweep "
              "workload.message_size over 16KiB, 64KiB; write the value as the sweep does)"
              in r.stderr, f"exit {r.returncode}: {r.stderr[-1500:]}")
        write(os.path.join(t, "at.yaml"), PAPER.replace("at: 64KiB,", "at: 65536,"))  # = 64KiB
        r = spraylab(t, "reproduce", "at.yaml", "--dry-run")
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr[-1500:]}")
        # --all checks every file before the first runs: a mistake in the last file is not
        # found after the others have run for hours.
        tree = os.path.join(t, "tree")
        os.makedirs(os.path.join(tree, "conf", "experiments"))
        write(os.path.join(tree, "conf", "experiments", "a.yaml"), PAPER.replace("name: tiny", "name: a"))
        write(os.path.join(tree, "conf", "experiments", "b.yaml"),
              PAPER.replace("name: tiny", "name: b").replace("to: rps,", "to: rps/x,"))
        r = spraylab(tree, "reproduce", "--all", "--small", "--seeds", "1")
        check(r.returncode == 2 and "no series 'rps/x' in q" in r.stderr,
              f"exit {r.returncode}: {r.stderr[-1500:]}")
        check(not os.path.exists(os.path.join(tree, "results")), "--all ran a before checking b")
        # Mended, it runs; --redraw judges it again from the stored data.
        write(os.path.join(t, "to.yaml"), PAPER)
        r = spraylab(t, "reproduce", "to.yaml", "--seeds", "1", "-o", "to")
        check(r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr[-1500:]}")
        r = spraylab(t, "reproduce", "to.yaml", "--redraw", "-o", "to")
        check(r.returncode in (0, 1) and "NOT JUDGED" not in r.stdout and
              len(load(os.path.join(t, "to", "verdicts.json"))["checks"]) == 1,
              f"exit {r.returncode}: {r.stdout[-1500:]}{r.stderr[-1500:]}")
        # A paper check says its tolerance; a difference says why.
        write(os.path.join(t, "tol.yaml"), PAPER.replace(" tolerance: 10%", ""))
        r = spraylab(t, "reproduce", "tol.yaml", "--dry-run")
        check(r.returncode == 2 and "tol.yaml:" in r.stderr and "tolerance" in r.stderr, r.stderr)
        write(os.path.join(t, "why.yaml"), PAPER.replace(", why: a small test", ""))
        r = spraylab(t, "reproduce", "why.yaml", "--dry-run")
        check(r.returncode == 2 and "why.yaml:" in r.stderr and "why" in r.stderr, r.stderr)
        write(os.path.join(t, "paper.yaml"), PAPER)
        r = spraylab(t, "reproduce", "paper.yaml", "--redraw", "-o", "nothing")
        check(r.returncode == 2 and "seeds.csv: cannot read" in r.stderr, r.stderr)


def time_out(summary):
    """Makes a variant's summary.json say that --timeout stopped it (--resume runs it again)."""
    with open(summary) as f:
        text = f.read()
    check('"stopped_by": "completed"' in text, f"{summary}: not a completed run")
    write(summary, text.replace('"stopped_by": "completed"', '"stopped_by": "timeout"'))


def resume_runs_only_what_is_missing(_args):
    with tempfile.TemporaryDirectory() as t:
        write(os.path.join(t, "tiny.yaml"), TINY)
        r = spraylab(t, "reproduce", "tiny.yaml", "--seeds", "2")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stderr[-2000:]}")  # its check fails
        out = os.path.join(t, "results", "tiny")
        with open(os.path.join(out, "seeds.csv")) as f:
            first = f.read().splitlines()
        shutil.rmtree(os.path.join(out, "sw", "rps-message_size=16KiB-seed=2"))
        time_out(os.path.join(out, "sw", "ofan-message_size=64KiB-seed=1", "summary.json"))
        # Of 2 x 2 x 3 = 12 variants, 8 - 2 stand; the removed, the timed-out and seed 3's 4 run.
        again = {"rps-message_size=16KiB-seed=2", "ofan-message_size=64KiB-seed=1"} | {
            f"{a}-message_size={m}-seed=3" for a in ("rps", "ofan") for m in ("16KiB", "64KiB")}
        r = spraylab(t, "reproduce", "tiny.yaml", "--seeds", "3", "--resume", "--dry-run")
        check(r.returncode == 0, r.stderr)
        marked = {line.split("/")[1].split(" ")[0] for line in r.stdout.splitlines()
                  if line.endswith(" (the earlier run stands)")}
        check(len(marked) == 6 and not marked & again, r.stdout)
        r = spraylab(t, "reproduce", "tiny.yaml", "--seeds", "3", "--resume")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stderr[-2000:]}")
        stood = set(re.findall(r"\] (\S+): the earlier run in \S+ stands", r.stderr))
        ran = set(re.findall(r"\] (\S+): CCT ", r.stderr))
        check(stood == marked and ran == again, f"stood {sorted(stood)}, ran {sorted(ran)}")
        check("ofan-message_size=64KiB-seed=1: runs again: " in r.stderr and "stopped by timeout" in r.stderr,
              r.stderr[-2000:])
        with open(os.path.join(out, "seeds.csv")) as f:
            rows = f.read().splitlines()
        old = [row for row in rows if row.split(",")[4] in ("1", "2")]
        check(sorted(old) == sorted(first[1:]), "the resumed run's seeds 1 and 2 are not the first run's")
        check(len(rows) == 1 + 12, rows)
        r = spraylab(t, "reproduce", "tiny.yaml", "--resume", "--redraw")
        check(r.returncode == 2 and "--resume runs what is missing; --redraw runs nothing" in r.stderr, r.stderr)
        return f"{len(stood)} stood, {len(ran)} ran"


def pack_variants_resumes_elsewhere(_args):
    tiny = TINY.replace("links: {rate: 10Gbps, delay: 1us}\n", "links: {rate: 10Gbps, delay: 1us}\n"
                        "buffer: {flow_control: credit, credit: {bytes: 9KB}}\n")
    pack = [sys.executable, os.path.join(ARGS.source, "scripts", "pack-variants.py")]
    with tempfile.TemporaryDirectory() as t:
        write(os.path.join(t, "tiny.yaml"), tiny)
        r = spraylab(t, "reproduce", "tiny.yaml", "--seeds", "2", "-o", "a")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stderr[-2000:]}")  # its check fails
        with open(os.path.join(t, "a", "seeds.csv")) as f:
            first = f.read()
        sw = os.path.join(t, "a", "sw")
        variants = sorted(v for v in os.listdir(sw) if "-seed=" in v)
        check(len(variants) == 8, variants)
        stalled = [v for v in variants if load(os.path.join(sw, v, "summary.json"))["credit"]["stalled_ports"]]
        check(stalled, "no variant waited for credits: the per-port list is not exercised")
        # A killed run's staging folder holding one variant; one variant not whole; one being written.
        staging = os.path.join(t, "a", ".sw.spraylab-999-AbCdEf")
        os.makedirs(staging)
        shutil.copy(os.path.join(sw, ".spraylab-results"), staging)
        os.rename(os.path.join(sw, variants[0]), os.path.join(staging, variants[0]))
        os.remove(os.path.join(sw, variants[1], "run.json"))
        shutil.copytree(os.path.join(sw, variants[2]), os.path.join(sw, f".{variants[3]}.writing"))
        shutil.rmtree(os.path.join(sw, variants[3]))
        # A variant that timed out in the run's folder, its good copy in the staging folder (a
        # later --resume re-ran it, then was killed): the good copy must not be lost.
        shutil.copytree(os.path.join(sw, variants[4]), os.path.join(staging, variants[4]))
        time_out(os.path.join(sw, variants[4], "summary.json"))
        archive = os.path.join(t, "tiny.tar.xz")
        r = subprocess.run([*pack, archive, os.path.join(t, "a")], capture_output=True, text=True)
        check(r.returncode == 0 and "6 variants of 1 run(s) (sw), 1 more copies" in r.stdout, f"{r.stdout}{r.stderr}")
        b = os.path.join(t, "b")
        os.makedirs(b)
        subprocess.run(["tar", "-xJf", archive, "-C", b], check=True)
        for v in set(variants) - {variants[1], variants[3]}:
            credit = load(os.path.join(b, "sw", v, "summary.json"))["credit"]
            check("stalled_ports" not in credit and "stalled_ns" in credit, f"{v}: {sorted(credit)}")
        r = spraylab(t, "reproduce", "tiny.yaml", "--seeds", "2", "--resume", "-o", "b")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stderr[-2000:]}")
        stood = set(re.findall(r"\] (\S+): the earlier run in \S+(?: \(a killed run's folder\))? stands", r.stderr))
        ran = set(re.findall(r"\] (\S+): CCT ", r.stderr))
        check(ran == {variants[1], variants[3]} and stood == set(variants) - ran,
              f"stood {sorted(stood)}, ran {sorted(ran)}")
        check(f"{variants[4]}: the earlier run in " in r.stderr and "(a killed run's folder) stands" in r.stderr,
              r.stderr[-2000:])
        with open(os.path.join(b, "seeds.csv")) as f:
            check(f.read() == first, "seeds.csv after --resume from the archive is not the first run's")
        r = subprocess.run([*pack, archive, t], capture_output=True, text=True)
        check(r.returncode != 0 and "not a spraylab reproduction folder" in r.stderr, f"{r.stdout}{r.stderr}")
        return f"{len(stood)} stood, {len(ran)} ran, {len(stalled)} with credit stalls"


def list_names_every_reproduction(_args):
    r = spraylab(ARGS.source, "reproduce", "--list")
    check(r.returncode == 0, r.stderr)
    listed = [line.split()[0] for line in r.stdout.splitlines() if line.strip() and line[0] != " "]
    check(listed == NAMES, f"{listed} != {NAMES}")
    # How long a full-size run takes, where the file records it (issue 43, point 7).
    with open(os.path.join(ARGS.source, "conf", "experiments", "ofan-scale.yaml")) as f:
        run_time = re.search(r'run_time: "([^"]+)"', f.read()).group(1)
    scale = [line for line in r.stdout.splitlines() if line.startswith("ofan-scale ")]
    check(scale and f"(full size: {run_time}; --small: seconds)" in scale[0], f"{scale}")
    silent = [line for line in r.stdout.splitlines()
              if line.strip() and line[0] != " " and "(full size: " not in line]
    check(not silent, f"lines that do not say what a full-size run costs: {silent}")
    indented = [line for line in r.stdout.splitlines() if line.startswith(" ")]
    check(all(line.startswith("  differs from the paper: ") for line in indented), indented)
    return f"{len(NAMES)} reproductions, {len(indented)} differences"


def all_redraw_lists_a_reproduction_not_run_yet(_args):
    """--all --redraw regenerates the page when a reproduction has no stored result yet: it is
    listed as not run, with its declared checks, and the others are drawn as before; naming that
    reproduction alone is still an error."""
    a = all_small()
    t = tempfile.mkdtemp(prefix="spraylab-notrun-", dir=a["dir"])
    out = os.path.join(t, "out")
    shutil.copytree(a["out"], out)
    missing = NAMES[-1]
    shutil.rmtree(os.path.join(out, missing))
    page = os.path.join(t, "RESULTS.md")
    r = spraylab(ARGS.source, "reproduce", "--all", "--small", "--redraw", "-o", out,
                 "--report", page)
    check(r.returncode == a["run"].returncode, f"exit {r.returncode}\n{r.stderr[-2000:]}")
    check(f"{missing}: no stored result" in r.stderr, r.stderr[-2000:])
    with open(page) as f:
        md = f.read()
    check(f"| [{missing}](#{missing}) | not run yet | not run yet |" in md, "no index row")
    section = md[md.index(f'<a id="{missing}"></a>'):]
    check("**Not run at full size yet** (no stored result). Command: `spraylab reproduce "
          + missing + "`" in section, section[:600])
    check("Checks declared" in section and "Differences from the paper" in section,
          section[:1200])
    for name in NAMES[:-1]:
        check(f'<a id="{name}"></a>' in md and f"| [{name}](#{name}) | not run yet" not in md, name)
    alone = spraylab(ARGS.source, "reproduce", missing, "--small", "--redraw", "-o",
                     os.path.join(out, missing))
    check(alone.returncode != 0 and "cannot read" in alone.stderr, alone.stderr[-1000:])
    # A wrong folder (no stored result at all) is an error, and the page is left as it was.
    empty = os.path.join(t, "empty")
    os.makedirs(empty)
    nothing = spraylab(ARGS.source, "reproduce", "--all", "--small", "--redraw", "-o", empty,
                       "--report", page)
    check(nothing.returncode == 2 and "no reproduction has stored data" in nothing.stderr,
          nothing.stderr[-1000:])
    with open(page) as f:
        check(f.read() == md, "the page was rewritten by a redraw with no stored data")
    return f"{missing} listed as not run; {len(NAMES) - 1} drawn"


CASES = [
    ("--all --small: seeds, intervals, verdicts, differences", all_small_machinery, ()),
    ("--redraw judges the stored data again", redraw_judges_the_stored_data_again, ()),
    ("--redraw never upgrades a not-reproduced", redraw_never_upgrades_a_not_reproduced, ()),
    ("each run's table says which run, and a note comes once",
     each_runs_table_says_which_run_and_notes_come_once, ()),
    ("a failing check exits 1", failing_check_exits_1, ()),
    ("bad input is exit 2", bad_input_is_exit_2, ()),
    ("--resume runs only what is missing", resume_runs_only_what_is_missing, ()),
    ("scripts/pack-variants.py: an archive resumes elsewhere", pack_variants_resumes_elsewhere, ()),
    ("--list names every reproduction", list_names_every_reproduction, ()),
    ("--all --redraw lists a reproduction not run yet",
     all_redraw_lists_a_reproduction_not_run_yet, ()),
]
status = run_cases(ARGS, CASES)
if ALL:
    shutil.rmtree(ALL["dir"], ignore_errors=True)
sys.exit(status)
