"""The case runner every Python test script shares: named cases, PASS/FAIL/SKIP lines with the time
and figures of each, and the closing 'N passed, N failed, N skipped' line that .ci/run reads.

A script puts this directory on sys.path, parses its arguments with case_parser() (meson passes
--build and --source) and ends with sys.exit(run_cases(args, cases))."""
import argparse
import os
import time
import traceback


def check(cond, msg):
    """A test's assertion that survives `python3 -O` (a bare assert would not)."""
    if not cond:
        raise AssertionError(msg)


class Skip(Exception):
    """Raised by a case that cannot run on this machine (the message says why): printed as SKIP
    and counted apart, never as a pass."""


def fabric_runtime_dir(pid):
    """The EAL runtime folder of a `spraylab run` (or a fabric test) with this pid: fabric/emu/eal.cpp's
    --file-prefix under EAL's base (eal_get_baseline_runtime_dir in DPDK 22.11)."""
    base = "/var/run/dpdk" if os.geteuid() == 0 else os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    return os.path.join(base, f"spraylab-fabric-{pid}")


def case_parser(description=None):
    """The arguments every test script takes; a script adds its own to the returned parser."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--build", required=True, help="the meson build directory")
    ap.add_argument("--source", required=True, help="the source tree")
    ap.add_argument("-k", default="", help="run only cases whose name contains this")
    return ap


def run_cases(args, cases):
    """Runs (name, function, extra args) cases whose name contains args.k; each function takes
    (args, *extra) and may return a line of figures, or raise Skip. Prints PASS/FAIL/SKIP per case
    and the closing 'N passed, N failed, N skipped' line; returns the exit status: 1 if anything
    failed or no case matched, else 77 (meson's "skipped") if every case that ran skipped, else
    0."""
    passed = failed = skipped = 0
    for name, fn, fargs in cases:
        if args.k not in name:
            continue
        start = time.time()
        try:
            info = fn(args, *fargs)
            passed += 1
            print(f"PASS {name} ({time.time() - start:.1f}s){'' if info is None else ' ' + str(info)}",
                  flush=True)
        except Skip as why:
            skipped += 1
            print(f"SKIP {name}: {why}", flush=True)
        except Exception:
            failed += 1
            print(f"FAIL {name} ({time.time() - start:.1f}s)\n{traceback.format_exc()}", flush=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if failed or not passed + skipped:
        return 1
    return 0 if passed else SKIPPED


SKIPPED = 77  # the exit status meson counts as a skipped test
