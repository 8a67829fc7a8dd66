#!/usr/bin/env python3
"""Where `spraylab run` writes, and how a run replaces an earlier one's results (issue 12,
"Exposure"; docs/runner.md, "Where results go"). Small virtual-time experiments.

Cases:
  paths are used as given         --out and the default results/<name> are relative to the working
                                  folder, a trace_file relative to the experiment file; nothing is
                                  written anywhere else.
  a smaller run replaces the whole folder
                                  variants ecmp,rps,ofan then ecmp,rps: no ofan/ remains.
  a killed run leaves the earlier results as they were
                                  SIGKILL after the first of two variants: the folder still holds the
                                  earlier run, byte for byte; the next run removes the killed run's
                                  staging folder and its EAL runtime folder.
  an interrupted run leaves the earlier results as they were
                                  SIGINT (Ctrl-C) in the second of two variants, virtual time, and
                                  SIGTERM in an in-process run: ended by the signal, naming the variant, the
                                  folder as it was, no staging folder, no EAL runtime folder left.
  --resume keeps what completed and runs the rest
                                  SIGINT in the second variant of a --resume run: the first is kept
                                  (INTERRUPTED says so); --resume again keeps it byte for byte and
                                  runs only the new one, its table has both; a variant of another
                                  experiment (another seed) or one whose earlier run stopped by a
                                  timeout, or another virtual-time engine's, runs again; the reused summary equals a fresh run's
                                  (determinism: reuse is sound); the wall-clock modes refuse it.
  --resume takes what a killed run completed
                                  SIGKILL after the first of two variants of a --resume run: its
                                  staging folder is all that is left; --resume takes the variant
                                  from it byte for byte (not a variant folder still being
                                  written), runs the rest and removes the folder; without --resume
                                  a killed run's folder is only removed.
  a folder spraylab did not make is refused
                                  exit 2 naming it, its files untouched, --dry-run too.
  make demo's folders leave the README's first run free
                                  the folders `make -n demo` names for its results, filled, and then
                                  README.md's `spraylab run conf/examples/demo.yaml` succeeds
                                  (issue 43, point 1).
  the timeout covers building the fabric
                                  --timeout shorter than a 1024-host build stops it while building.
  names that would leave their folder are refused
                                  name: ../x is the loader's error at its line and column; a file
                                  whose stem starts with '.' needs a name; a variant's folder name
                                  is escaped.
  --seeds runs every variant per seed and tables the intervals
                                  --seeds 3 on a file with seed: 4: folders per seed 4..6, a table
                                  of one row per variant with "mean ± half width" cells, and
                                  summary_seeds.csv whose interval holds its mean and matches the
                                  per-seed rows of summary.csv (mean by hand).
"""
import hashlib
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, run_cases, check, fabric_runtime_dir  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SPRAYLAB = os.path.abspath(os.path.join(ARGS.build, "fabric", "spraylab"))

SMALL = """\
{name}seed: 4
topology: {{generator: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 2}}
links: {{rate: 10Gbps, delay: 1us}}
workload: {workload}
"""
PERMUTATION = "{type: permutation, message_size: 64KB}"
TRACE = "start_ns,src,dst,bytes,depends_on\n0,0,3,65536,\n0,3,0,65536,\n"



def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def experiment(path, name="small", workload=PERMUTATION):
    write(path, SMALL.format(name=f"name: {name}\n" if name else "", workload=workload))
    return path


def spraylab(cwd, *args, timeout=300):
    return subprocess.run([SPRAYLAB, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def tree(root):
    """{relative path: sha256} of every file below root, hidden ones included."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def paths_are_used_as_given(_args):
    with tempfile.TemporaryDirectory() as t:
        conf_dir, work = os.path.join(t, "conf"), os.path.join(t, "work")
        os.makedirs(work)
        write(os.path.join(conf_dir, "traces", "t.csv"), TRACE)
        exp = experiment(os.path.join(conf_dir, "exp.yaml"), "traced",
                         "{type: trace, trace_file: traces/t.csv}")
        before = tree(conf_dir)
        p = spraylab(work, "run", exp, "--out", "rel/out")
        check(p.returncode == 0, p.stderr)
        check("results in rel/out/" in p.stderr, p.stderr[-500:])
        check(os.path.exists(os.path.join(work, "rel/out/ecmp/summary.json")), os.listdir(work))
        p = spraylab(work, "run", exp)
        check(p.returncode == 0, p.stderr)
        check(os.path.exists(os.path.join(work, "results/traced/ecmp/summary.json")), os.listdir(work))
        check(sorted(os.listdir(work)) == ["rel", "results"], os.listdir(work))
        check(sorted(os.listdir(os.path.join(work, "results"))) == ["traced"], os.listdir(work))
        check(tree(conf_dir) == before, "something was written beside the experiment file")
        # The trace was read relative to the experiment file and is recorded as that absolute path.
        with open(os.path.join(work, "results/traced/ecmp/config.yaml")) as f:
            config = f.read()
        check(f"trace_file: {os.path.join(conf_dir, 'traces', 't.csv')}" in config, config)
        with open(os.path.join(work, "results/traced/summary.csv")) as f:
            rows = f.read().splitlines()
        check(len(rows) == 2 and ",true,2,2," in rows[1], rows)


def a_smaller_run_replaces_the_whole_folder(_args):
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"))
        p = spraylab(t, "run", exp, "--algorithms", "ecmp,rps,ofan", "--out", "out")
        check(p.returncode == 0, p.stderr)
        # The progress lines count messages as the summary does (4 hosts, a permutation: 4), not
        # each message at both its ends.
        for v in ("ecmp", "rps", "ofan"):
            check(f"] {v}: messages 4/4, clock" in p.stderr and f"] {v}: CCT" in p.stderr and
                  f"(completed), messages 4/4," in p.stderr, p.stderr)
        check(sorted(os.listdir(os.path.join(t, "out"))) ==
              [".spraylab-results", "ecmp", "ofan", "rps", "summary.csv", "summary.json", "summary.txt"],
              os.listdir(os.path.join(t, "out")))
        p = spraylab(t, "run", exp, "--algorithms", "ecmp,rps", "--out", "out")
        check(p.returncode == 0, p.stderr)
        check(sorted(os.listdir(os.path.join(t, "out"))) ==
              [".spraylab-results", "ecmp", "rps", "summary.csv", "summary.json", "summary.txt"],
              os.listdir(os.path.join(t, "out")))
        check(sorted(os.listdir(t)) == ["exp.yaml", "out"], f"left beside it: {os.listdir(t)}")


def a_killed_run_leaves_the_earlier_results_as_they_were(_args):
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"))
        p = spraylab(t, "run", exp, "--algorithms", "ecmp", "--out", "out")
        check(p.returncode == 0, p.stderr)
        earlier = tree(os.path.join(t, "out"))
        # A second run whose second variant is long (a 128-host fat tree moving 64 MB each).
        big = os.path.join(t, "big.yaml")
        write(big, "name: small\nseed: 4\ntopology: {generator: fat-tree, k: 8}\n"
                   "workload: {type: permutation, message_size: 4KB}\n")
        log_path = os.path.join(t, "run.log")
        with open(log_path, "w") as log:
            proc = subprocess.Popen([SPRAYLAB, "run", big, "--sweep", "workload.message_size=4KB,64MB",
                                     "--out", "out"], cwd=t, stdout=log, stderr=subprocess.STDOUT)
            deadline = time.time() + 120
            while "(completed)" not in open(log_path).read():
                check(proc.poll() is None, f"the run ended before it was killed: {open(log_path).read()}")
                check(time.time() < deadline, "the first variant did not finish in 120 s")
                time.sleep(0.05)
            check(proc.poll() is None, "the run ended before it was killed")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        check(tree(os.path.join(t, "out")) == earlier, "the killed run changed the earlier results")
        staging = [n for n in os.listdir(t) if n.startswith(".out.spraylab-")]
        check(len(staging) == 1, f"expected the killed run's staging folder beside out: {os.listdir(t)}")
        # Its first variant was written there, not into out/.
        check(os.path.exists(os.path.join(t, staging[0], "ecmp-message_size=4KB", "summary.json")),
              os.listdir(os.path.join(t, staging[0])))
        p = spraylab(t, "run", exp, "--algorithms", "rps", "--out", "out")
        check(p.returncode == 0, p.stderr)
        check(sorted(os.listdir(t)) == ["big.yaml", "exp.yaml", "out", "run.log"],
              f"the leftover was not removed: {os.listdir(t)}")
        check(sorted(os.listdir(os.path.join(t, "out")))[:2] == [".spraylab-results", "rps"],
              os.listdir(os.path.join(t, "out")))
        # The killed run could not remove its EAL runtime folder either; the next run did.
        killed_dir = fabric_runtime_dir(proc.pid)
        check(not os.path.exists(killed_dir), f"the killed run's {killed_dir} is still there")


# A run long enough to be interrupted: its 64 MB variant takes minutes of wall time.
BIG = ("name: small\nseed: 4\ntopology: {generator: fat-tree, k: 8}\n"
       "workload: {type: permutation, message_size: 4KB}\n")


def signal_when_ready(argv, cwd, log_path, ready, sig, what, group=False, wait_s=120, **popen):
    """Starts argv with its output in log_path, sends sig once `ready` is in the log (to the
    process group with group=True, as a terminal does to its foreground job) and waits for the
    end (at most wait_s seconds). Returns (exit status, log text, pid)."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=group, **popen)
        deadline = time.time() + 120
        while ready not in open(log_path).read():
            check(proc.poll() is None, f"{what}: ended before the signal: {open(log_path).read()}")
            check(time.time() < deadline, f"{what}: no '{ready}' in 120 s: {open(log_path).read()}")
            time.sleep(0.05)
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        try:
            rc = proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            if group:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
            proc.wait()
            check(False, f"{what}: still running {wait_s} s after {sig.name}: {open(log_path).read()[-800:]}")
    return rc, open(log_path).read(), proc.pid


def an_interrupted_run_leaves_the_earlier_results_as_they_were(_args):
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"))
        p = spraylab(t, "run", exp, "--algorithms", "ecmp", "--out", "out")
        check(p.returncode == 0, p.stderr)
        earlier = tree(os.path.join(t, "out"))
        big = os.path.join(t, "big.yaml")
        write(big, BIG)
        figures = []
        # Virtual time, Ctrl-C once the first variant is done; in-process (EAL's lcores polling),
        # SIGTERM once the fabric reports progress. --timeout far beyond the wait: only the signal
        # can end the run here.
        for what, sig, argv, ready in (
                ("virtual", signal.SIGINT, [big, "--sweep", "workload.message_size=4KB,64MB"], "(completed)"),
                ("inprocess", signal.SIGTERM, [big, "--mode", "inprocess", "--set", "workload.message_size=64MB",
                                               "--timeout", "600"], ": messages ")):
            rc, said, pid = signal_when_ready([SPRAYLAB, "run", *argv, "--out", "out"], t,
                                              os.path.join(t, f"{what}.log"), ready, sig, what)
            # Ended by the signal itself once cleaned up (a shell's loop stops only for that), not
            # exit(130).
            check(rc == -sig, f"{what}: exit {rc} after {sig.name}: {said[-800:]}")
            check("spraylab: interrupted during [" in said and "no results written (out/ is as it was)" in said,
                  f"{what}: {said[-800:]}")
            check(tree(os.path.join(t, "out")) == earlier, f"{what}: the interrupted run changed the earlier results")
            leftovers = [n for n in os.listdir(t) if n.startswith(".out.spraylab-")]
            check(not leftovers, f"{what}: staging folder left: {leftovers}")
            check(not os.path.exists(fabric_runtime_dir(pid)), f"{what}: EAL runtime folder left")
            figures.append(f"{what}: {said.strip().splitlines()[-1]}")
        return "; ".join(figures)


def a_shell_loop_stops_and_an_ignored_sigint_stays_ignored(_args):
    """Two things a shell expects of a Ctrl-C'd child. A loop of runs in a script stops at the
    interrupted run (bash goes on after a child that exits normally, as exit(130) did). A run the
    shell started with SIGINT ignored (`cmd &` in a script, `trap '' INT`) is not interrupted:
    the terminal's Ctrl-C is for the foreground job."""
    with tempfile.TemporaryDirectory() as t:
        big = os.path.join(t, "big.yaml")
        write(big, BIG)
        sweep = ["--sweep", "workload.message_size=4KB,64MB"]
        loop = (f"for i in 1 2; do '{SPRAYLAB}' run '{big}' {' '.join(sweep)} --out out$i; "
                f"echo \"run $i rc=$?\"; done; echo loop-ended")
        # Its own process group, as a terminal's job: the signal goes to the shell and spraylab.
        rc, said, _ = signal_when_ready(["bash", "-c", loop], t, os.path.join(t, "loop.log"),
                                        "(completed)", signal.SIGINT, "the loop", group=True)
        check("run 2" not in said and "loop-ended" not in said and rc == -signal.SIGINT,
              f"the loop went on after the interrupted run (rc {rc}): {said[-800:]}")
        # Ignored at the start: the signal (sent while the 64 MB variant runs) does nothing; that
        # variant runs on to --max-clock (1.5-3.5 s here), stops incomplete, and the run is written
        # as such (exit 1).
        rc, said, _ = signal_when_ready(
            [SPRAYLAB, "run", big, *sweep, "--max-clock", "10ms", "--out", "ign"], t,
            os.path.join(t, "ignored.log"), "(completed)", signal.SIGINT, "the run", wait_s=300,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        check(rc == 1 and "interrupted" not in said and "did not complete" in said and
              os.path.isdir(os.path.join(t, "ign")),
              f"an ignored SIGINT ended the run (rc {rc}): {said[-800:]}")
        return "loop stopped at run 1; ignored SIGINT: the run went on to --max-clock"


def resume_keeps_what_completed_and_runs_the_rest(_args):
    with tempfile.TemporaryDirectory() as t:
        big = os.path.join(t, "big.yaml")
        write(big, BIG)
        first = "ecmp-message_size=4KB"
        rc, said, _ = signal_when_ready(
            [SPRAYLAB, "run", big, "--sweep", "workload.message_size=4KB,64MB", "--resume", "--out", "out"],
            t, os.path.join(t, "interrupted.log"), "(completed)", signal.SIGINT, "the --resume run")
        check(rc == -signal.SIGINT, f"exit {rc}: {said[-800:]}")
        check("the 1 variant(s) completed are kept in out/ (no tables); --resume runs the rest" in said,
              said[-800:])
        out = os.path.join(t, "out")
        check(sorted(os.listdir(out)) == [".spraylab-results", "INTERRUPTED", first], os.listdir(out))
        kept = tree(os.path.join(out, first))
        # Again, with a fast second variant: the first stands, byte for byte, the second runs.
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB,8KB", "--resume", "--out", "out")
        check(p.returncode == 0, p.stderr)
        check(f"[1/2] {first}: the earlier run in out/{first} stands (CCT " in p.stderr, p.stderr)
        check("[2/2] ecmp-message_size=8KB: CCT" in p.stderr and "1 variant(s) from the earlier run" in p.stderr,
              p.stderr)
        check(tree(os.path.join(out, first)) == kept, "the kept variant's files changed")
        check("INTERRUPTED" not in os.listdir(out), os.listdir(out))
        with open(os.path.join(out, "summary.csv")) as f:
            rows = f.read().splitlines()
        check(len(rows) == 3 and rows[1].startswith(first) and rows[2].startswith("ecmp-message_size=8KB"), rows)
        # Reuse is sound only because a fresh run gives the same summary (virtual time).
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB", "--out", "fresh")
        check(p.returncode == 0, p.stderr)
        with open(os.path.join(out, first, "summary.json")) as a, \
                open(os.path.join(t, "fresh", first, "summary.json")) as b:
            check(a.read() == b.read(), "a fresh run's summary differs from the kept one")
        # Another seed is another experiment; an earlier run stopped by a timeout is no result.
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB", "--set", "seed=5", "--resume",
                     "--out", "out")
        check(p.returncode == 0 and f"[1/1] {first}: runs again: out/{first}/config.yaml: another "
              "experiment than this run's" in p.stderr, p.stderr)
        summary = os.path.join(out, first, "summary.json")
        with open(summary) as f:
            text = f.read()
        write(summary, text.replace('"stopped_by": "completed"', '"stopped_by": "timeout"'))
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB", "--set", "seed=5", "--resume",
                     "--out", "out")
        check(p.returncode == 0 and f"runs again: out/{first}: the earlier run stopped by timeout" in p.stderr,
              p.stderr)
        # Another virtual-time engine gives other numbers for the same seed: its run does not stand.
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB", "--set", "seed=5", "--resume",
                     "--out", "out")
        check(p.returncode == 0 and f"[1/1] {first}: the earlier run in out/{first} stands" in p.stderr, p.stderr)
        run_json = os.path.join(out, first, "run.json")
        with open(run_json) as f:
            text = f.read()
        check('"virtual_time_engine": ' in text, text)
        write(run_json, re.sub(r'"virtual_time_engine": \d+', '"virtual_time_engine": 1', text))
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB", "--set", "seed=5", "--resume",
                     "--out", "out")
        check(p.returncode == 0 and f"runs again: out/{first}: made by virtual-time engine 1, this is engine"
              in p.stderr, p.stderr)
        p = spraylab(t, "run", big, "--mode", "inprocess", "--resume", "--out", "ip")
        check(p.returncode == 2 and "--resume reuses earlier runs of the same experiment, which only "
              "virtual time repeats exactly" in p.stderr, p.stderr)
        return "interrupted: 1 kept; resumed: 1 kept, 1 run; seed 5 and a timed-out run ran again"


def resume_takes_what_a_killed_run_completed(_args):
    with tempfile.TemporaryDirectory() as t:
        big = os.path.join(t, "big.yaml")
        write(big, BIG)
        first, second = "ecmp-message_size=4KB", "ecmp-message_size=8KB"
        # SIGKILL (a session's end, power, the OOM killer) once the first variant is done: no
        # handler runs, the staging folder is all that is left.
        rc, said, _ = signal_when_ready(
            [SPRAYLAB, "run", big, "--sweep", "workload.message_size=4KB,64MB", "--resume", "--out", "out"],
            t, os.path.join(t, "killed.log"), "(completed)", signal.SIGKILL, "the --resume run")
        check(rc == -signal.SIGKILL, f"exit {rc}: {said[-800:]}")
        check(not os.path.exists(os.path.join(t, "out")), os.listdir(t))
        left = [n for n in os.listdir(t) if n.startswith(".out.spraylab-")]
        check(len(left) == 1, f"expected the killed run's staging folder: {os.listdir(t)}")
        kept = tree(os.path.join(t, left[0], first))
        # A variant the killed run was still writing is no result: one planted as a writer
        # leaves it (its files whole but the folder under its hidden name) must run again.
        shutil.copytree(os.path.join(t, left[0], first), os.path.join(t, left[0], f".{second}.writing"))
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB,8KB", "--resume", "--out", "out")
        check(p.returncode == 0, p.stderr)
        check(f"[1/2] {first}: the earlier run in {left[0]}/{first} (a killed run's folder) stands (CCT "
              in p.stderr, p.stderr)
        check(f"[2/2] {second}: CCT" in p.stderr and "1 variant(s) from the earlier run" in p.stderr,
              p.stderr)
        check(tree(os.path.join(t, "out", first)) == kept, "the kept variant's files changed")
        check({first, second} <= set(os.listdir(os.path.join(t, "out"))) and
              f".{second}.writing" not in os.listdir(os.path.join(t, "out")),
              os.listdir(os.path.join(t, "out")))
        check(not [n for n in os.listdir(t) if n.startswith(".out.spraylab-")],
              f"the killed run's folder stayed after the run that took its variant: {os.listdir(t)}")
        # Without --resume a killed run's folder is only removed, as before.
        rc, said, _ = signal_when_ready(
            [SPRAYLAB, "run", big, "--sweep", "workload.message_size=4KB,64MB", "--out", "out2"],
            t, os.path.join(t, "killed2.log"), "(completed)", signal.SIGKILL, "the run")
        p = spraylab(t, "run", big, "--sweep", "workload.message_size=4KB", "--out", "out2")
        check(p.returncode == 0 and "stands" not in p.stderr, p.stderr)
        check(not [n for n in os.listdir(t) if n.startswith(".out2.spraylab-")], os.listdir(t))
        return "killed after 1 variant: --resume took it from the staging folder, ran the 2nd"


def a_folder_spraylab_did_not_make_is_refused(_args):
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"))
        write(os.path.join(t, "mine", "thesis.tex"), "years of work")
        for extra in ([], ["--dry-run"]):
            p = spraylab(t, "run", exp, "--out", "mine", *extra)
            check(p.returncode == 2, (p.returncode, p.stderr))
            check(p.stderr.startswith("spraylab: --out mine: the folder holds files and is not a spraylab "
                                      "results folder (it has no .spraylab-results)"), p.stderr)
        check(os.listdir(os.path.join(t, "mine")) == ["thesis.tex"], os.listdir(os.path.join(t, "mine")))
        check(sorted(os.listdir(t)) == ["exp.yaml", "mine"], os.listdir(t))
        # The default folder is checked the same way.
        write(os.path.join(t, "results", "small", "notes.txt"), "mine too")
        p = spraylab(t, "run", exp)
        check(p.returncode == 2 and "results folder results/small (the default; --out names another): "
              "the folder holds files" in p.stderr, p.stderr)
        for out in (".", "..", t):
            p = spraylab(t, "run", exp, "--out", out, "--dry-run")
            check(p.returncode == 2 and f"--out {out}: " in p.stderr, (out, p.stderr))


def make_demos_folders_leave_the_readmes_first_run_free(args):
    make = subprocess.run(["make", "-s", "-n", "demo", f"BUILD={os.path.abspath(args.build)}"],
                          cwd=args.source, capture_output=True, text=True, timeout=60)
    check(make.returncode == 0, make.stderr)
    outs = re.findall(r"--out (\S+)", make.stdout)
    check(len(outs) == 2, f"make -n demo names {outs}, expected two results folders")
    with tempfile.TemporaryDirectory() as work:
        os.symlink(os.path.abspath(os.path.join(args.source, "conf")), os.path.join(work, "conf"))
        for out in outs:  # what make demo leaves behind, one small variant each
            r = spraylab(work, "run", "conf/examples/demo.yaml", "--algorithms", "ecmp",
                         "--max-clock", "20ms", "--out", out)
            check(r.returncode == 0, r.stderr)
        r = spraylab(work, "run", "conf/examples/demo.yaml", "--algorithms", "ecmp")
        check(r.returncode == 0, f"after make demo's {outs}: {r.stderr}")
        check(os.path.exists(os.path.join(work, "results", "demo", "ecmp", "summary.json")),
              "results/demo/ecmp/summary.json missing")
    return " ".join(outs)


def the_timeout_covers_building_the_fabric(_args):
    # Issue 43, point 3: a fabric that takes longer to build than --timeout stops while building
    # (a 65,536-host fat tree took minutes past --timeout 60 in the build alone).
    with tempfile.TemporaryDirectory() as work:
        exp = os.path.join(work, "ft16.yaml")
        write(exp, "name: ft16\ntopology: {generator: fat-tree, k: 16, levels: 3}\n"
                   "links: {rate: 100Gbps, delay: 1us}\nworkload: {type: permutation, message_size: 64KB}\n")
        r = spraylab(work, "run", exp, "--algorithms", "ofan", "--timeout", "0.02", "--out", "o")
        check(r.returncode == 1, f"exit {r.returncode}: {r.stderr}")
        check("the wall-clock limit (--timeout) passed while building the fabric" in r.stderr, r.stderr)
        check(not os.path.exists(os.path.join(work, "o")), "results written")
    return r.stderr.strip().splitlines()[-1]


def names_that_would_leave_their_folder_are_refused(_args):
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"), name="../escaped")
        p = spraylab(t, "run", exp)
        check(p.returncode == 2, (p.returncode, p.stderr))
        check(p.stderr.startswith(f"spraylab: {exp}:1:7: name: '../escaped' cannot name the results folder: "
                                  "it starts with '.'"), p.stderr)
        hidden = experiment(os.path.join(t, ".hidden.yaml"), name=None)
        for extra in ([], ["--out", "named"]):
            p = spraylab(t, "run", hidden, *extra)
            check(p.returncode == 2 and p.stderr == f"spraylab: {hidden}: name: the file has no name: and its "
                  "stem '.hidden' cannot name the results folder: it starts with '.'; give the experiment a "
                  "name:\n", p.stderr)
        check(sorted(os.listdir(t)) == [".hidden.yaml", "exp.yaml"], os.listdir(t))
        # A variant's folder is escaped, never '..' or a path: a sweep value with '/' stays one folder.
        exp = experiment(os.path.join(t, "ok.yaml"), name="ok")
        p = spraylab(t, "run", exp, "--sweep", "measurement.outputs=[summary],[summary, queues]", "--out", "o")
        check(p.returncode == 0, p.stderr)
        check(sorted(os.listdir(os.path.join(t, "o")))[1:3] == ["ecmp-outputs=_summary_", "ecmp-outputs=_summary__queues_"],
              os.listdir(os.path.join(t, "o")))


def a_seed_table_cell_of_fewer_seeds_says_so(_args):
    # demo.yaml stopped at 92.6 us: seed 1's ofan has one message left, seed 2's completes. The
    # CCT cell is one seed's value: said "(n=1)", not shown bare as the two seeds' mean.
    with tempfile.TemporaryDirectory() as t:
        demo = os.path.join(ARGS.source, "conf", "examples", "demo.yaml")
        p = spraylab(t, "run", demo, "--seeds", "2", "--algorithms", "ofan", "--max-clock", "92.6us",
                     "--threads", "1", "--out", "o")
        check(p.returncode == 1 and "1 variant(s) did not complete" in p.stderr, p.stderr)
        row = [line for line in p.stdout.splitlines() if line.startswith("ofan ")][-1]
        check(re.match(r"ofan +2 +[0-9.]+ \(n=1\) ", row), row)


def seeds_run_every_variant_per_seed_and_table_the_intervals(_args):
    import csv
    import io
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"))
        p = spraylab(t, "run", exp, "--algorithms", "rps,ofan", "--seeds", "3", "--out", "o")
        check(p.returncode == 0, p.stderr)
        folders = sorted(d for d in os.listdir(os.path.join(t, "o")) if "seed=" in d)
        check(folders == [f"{a}-seed={s}" for a in ("ofan", "rps") for s in (4, 5, 6)], folders)
        table = p.stdout.split("mean ± 95 % confidence interval over seeds")[-1].splitlines()
        rows = [line for line in table if line.startswith(("rps ", "ofan "))]
        check(len(rows) == 2 and all(" ± " in r for r in rows), table)
        with open(os.path.join(t, "o", "summary.csv")) as f:
            per_seed = list(csv.DictReader(f))
        with open(os.path.join(t, "o", "summary_seeds.csv")) as f:
            seeds = {r["variant"]: r for r in csv.DictReader(io.StringIO(f.read()))}
        check(set(seeds) == {"rps", "ofan"}, seeds.keys())
        for alg in ("rps", "ofan"):
            row = seeds[alg]
            check(row["seeds"] == "3", row)
            values = [float(r["cct_ns"]) for r in per_seed if r["variant"].startswith(alg + "-")]
            mean = float(row["cct_ns_mean"])
            check(len(values) == 3 and abs(mean - sum(values) / 3) < 1e-6 * mean, (values, row))
            low, high = float(row["cct_ns_ci_low"]), float(row["cct_ns_ci_high"])
            check(low <= mean <= high and abs((mean - low) - (high - mean)) < 1e-6 * mean, row)
        return rows[0]


def generator_json_lists_the_messages_unless_outputs_leave_them_out(_args):
    with tempfile.TemporaryDirectory() as t:
        exp = experiment(os.path.join(t, "exp.yaml"))
        p = spraylab(t, "run", exp, "--sweep", "measurement.outputs=[summary],[summary, messages]", "--out", "o")
        check(p.returncode == 0, p.stderr)
        gens = {}
        for variant in ("ecmp-outputs=_summary_", "ecmp-outputs=_summary__messages_"):
            with open(os.path.join(t, "o", variant, "generator.json")) as f:
                gens[variant] = json.load(f)
        without, whole = gens["ecmp-outputs=_summary_"], gens["ecmp-outputs=_summary__messages_"]
        check(len(whole["messages"]) == whole["collectives"][0]["messages"] > 0, whole.get("collectives"))
        check("messages" not in without, sorted(without))
        # Everything else is there, the same: the counters and the hosts' results.
        check({k: v for k, v in whole.items() if k != "messages"} == without, sorted(without))
        # Without the records the run keeps only what its summary reads of each message: the
        # summaries are the same (but for the variant's name), message percentiles included.
        sums = {}
        for variant in ("ecmp-outputs=_summary_", "ecmp-outputs=_summary__messages_"):
            with open(os.path.join(t, "o", variant, "summary.json")) as f:
                sums[variant] = {k: v for k, v in json.load(f).items() if k != "variant"}
        short, full = sums["ecmp-outputs=_summary_"], sums["ecmp-outputs=_summary__messages_"]
        cct = full.get("cct", {})
        check(cct.get("messages_completed", 0) > 0 and "message_inflation_p99" in cct, cct)
        check(short == full, {k: (short.get(k), full.get(k)) for k in full if short.get(k) != full.get(k)})
        # The default writes them (measurement.outputs: [summary, queues, messages]).
        p = spraylab(t, "run", exp, "--out", "d")
        check(p.returncode == 0, p.stderr)
        with open(os.path.join(t, "d", "ecmp", "generator.json")) as f:
            check(json.load(f).get("messages") == whole["messages"], "the default left the messages out")
        return f"{len(whole['messages'])} messages with, none without"


CASES = [
    ("--seeds runs every variant per seed and tables the intervals",
     seeds_run_every_variant_per_seed_and_table_the_intervals, ()),
    ("paths are used as given", paths_are_used_as_given, ()),
    ("a smaller run replaces the whole folder", a_smaller_run_replaces_the_whole_folder, ()),
    ("a killed run leaves the earlier results as they were",
     a_killed_run_leaves_the_earlier_results_as_they_were, ()),
    ("an interrupted run leaves the earlier results as they were",
     an_interrupted_run_leaves_the_earlier_results_as_they_were, ()),
    ("a shell loop stops and an ignored SIGINT stays ignored",
     a_shell_loop_stops_and_an_ignored_sigint_stays_ignored, ()),
    ("--resume keeps what completed and runs the rest", resume_keeps_what_completed_and_runs_the_rest, ()),
    ("a seed table cell of fewer seeds says so", a_seed_table_cell_of_fewer_seeds_says_so, ()),
    ("--resume takes what a killed run completed", resume_takes_what_a_killed_run_completed, ()),
    ("a folder spraylab did not make is refused", a_folder_spraylab_did_not_make_is_refused, ()),
    ("make demo's folders leave the README's first run free",
     make_demos_folders_leave_the_readmes_first_run_free, ()),
    ("the timeout covers building the fabric", the_timeout_covers_building_the_fabric, ()),
    ("names that would leave their folder are refused", names_that_would_leave_their_folder_are_refused, ()),
    ("generator.json lists the messages unless outputs leave them out",
     generator_json_lists_the_messages_unless_outputs_leave_them_out, ()),
]
sys.exit(run_cases(ARGS, CASES))
