"""The test harness itself: tests/cases.py's verdicts (a skip is a skip, exit 77, never a pass;
a run that matches no case fails), its check() under `python3 -O` (meson runs this script so),
no bare `assert` left in a test script, and .ci/run's closing line (.ci/summary.py)."""
import argparse
import ast
import contextlib
import importlib.util
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import SKIPPED, Skip, case_parser, check, run_cases  # noqa: E402


def verdict(cases, k=""):
    """run_cases's exit status and output for these cases."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = run_cases(argparse.Namespace(k=k), [(name, fn, ()) for name, fn in cases])
    return rc, out.getvalue()


def passes(_args):
    return None


def fails(_args):
    check(1 + 1 == 3, "arithmetic")


def skips(_args):
    raise Skip("no such device here")


def a_skip_is_reported_as_a_skip_never_a_pass(_args):
    rc, out = verdict([("s", skips)])
    check(rc == SKIPPED == 77, (rc, out))
    check("SKIP s: no such device here" in out and "0 passed, 0 failed, 1 skipped" in out, out)
    rc, out = verdict([("p", passes), ("s", skips)])
    check(rc == 0 and "1 passed, 0 failed, 1 skipped" in out, (rc, out))
    rc, out = verdict([("p", passes), ("s", skips), ("f", fails)])
    check(rc == 1 and "FAIL f" in out and "1 passed, 1 failed, 1 skipped" in out, (rc, out))


def a_run_that_matches_no_case_fails(_args):
    rc, out = verdict([("p", passes)], k="nothing")
    check(rc == 1 and "0 passed, 0 failed, 0 skipped" in out, (rc, out))


def check_fails_under_python_O(_args):
    check(not __debug__, "meson runs this script with python3 -O")
    try:
        check(False, "must raise")
    except AssertionError as e:
        check(str(e) == "must raise", str(e))
    else:
        raise RuntimeError("check(False) did not raise under -O")


def no_test_script_uses_a_bare_assert(args):
    found = []
    for folder, _, files in os.walk(os.path.join(args.source, "tests")):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            found += [f"{os.path.relpath(path, args.source)}:{n.lineno}" for n in ast.walk(tree)
                      if isinstance(n, ast.Assert)]
    check(not found, f"bare assert (gone under python3 -O; use cases.check): {found}")


def ci_summary_counts_skipped_suites_apart(args):
    spec = importlib.util.spec_from_file_location("summary", os.path.join(args.source, ".ci",
                                                                          "summary.py"))
    summary = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summary)
    log = [json.dumps(r) for r in [
        {"name": "net", "result": "OK", "stdout": "[  PASSED  ] 9 tests."},
        {"name": "gen-memif", "result": "OK",
         "stdout": "PASS a\nSKIP b: x\n1 passed, 0 failed, 1 skipped\n"},
        {"name": "namespaced-run", "result": "SKIP", "stdout": "SKIP: needs root"},
        {"name": "runner", "result": "OK",
         "stdout": "[  PASSED  ] 82 tests.\n[  SKIPPED ] 1 test, listed below:\n"},
        {"name": "lb", "result": "FAIL"},
        {"name": "fuzz-frame", "result": "TIMEOUT"},
    ]]
    lines = summary.summary(log)
    check(lines == ["3 passed, 2 failed, 1 skipped",
                    "passed with cases skipped: gen-memif (1 skipped), runner (1 skipped)"], lines)


def main():
    args = case_parser(__doc__).parse_args()
    cases = [a_skip_is_reported_as_a_skip_never_a_pass, a_run_that_matches_no_case_fails,
             check_fails_under_python_O, no_test_script_uses_a_bare_assert,
             ci_summary_counts_skipped_suites_apart]
    return run_cases(args, [(fn.__name__, fn, ()) for fn in cases])


if __name__ == "__main__":
    sys.exit(main())
