#!/usr/bin/env python3
"""The closing line of .ci/run: test suites passed, failed and skipped, from meson's testlog.json
(one JSON object per suite and line). A suite that exits 77 is skipped, never a pass. A passing
suite whose cases were partly skipped (tests/cases.py's closing 'N passed, N failed, N skipped')
or a GoogleTest suite with skipped tests ('[  SKIPPED ] N tests'), is named on a second line, so a
skip inside a pass is seen too.

usage: summary.py [TESTLOG]   (default build/meson-logs/testlog.json)"""
import json
import re
import sys

PASSED = ("OK", "EXPECTEDFAIL")
SKIPPED = ("SKIP",)
CASES = re.compile(r"^\d+ passed, \d+ failed, (\d+) skipped$", re.M)  # tests/cases.py
GTEST = re.compile(r"^\[  SKIPPED \] (\d+) tests?,", re.M)  # GTEST_SKIP()


def summary(lines):
    """The closing lines for testlog.json's lines."""
    passed = failed = skipped = 0
    partly = []
    for line in lines:
        if not line.strip():
            continue
        r = json.loads(line)
        if r.get("result") in PASSED:
            passed += 1
            out = r.get("stdout") or ""
            skips = sum(int(n) for n in (CASES.findall(out)[-1:] + GTEST.findall(out)[-1:]))
            if skips:
                partly.append(f"{r.get('name')} ({skips} skipped)")
        elif r.get("result") in SKIPPED:
            skipped += 1
        else:
            failed += 1
    out = [f"{passed} passed, {failed} failed, {skipped} skipped"]
    if partly:
        out.append("passed with cases skipped: " + ", ".join(partly))
    return out


if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else "build/meson-logs/testlog.json") as f:
        print("\n".join(summary(f)))
