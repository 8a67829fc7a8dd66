#!/usr/bin/env python3
"""One short, deterministic libFuzzer run for `meson test --suite fuzz` (docs/fuzzing.md).

usage: run_fuzz.py FUZZER CORPUS_DIR RUNS

Runs FUZZER for exactly RUNS inputs from a fixed seed, starting from the checked-in CORPUS_DIR.
New corpus entries go to a temporary directory, never into the repository. A crash, leak, timeout
or sanitizer report fails the test; the input that caused it is kept next to the build
(fuzz-<name>-crash-..., printed below) so it can be added to the corpus.
"""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    fuzzer, corpus, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    name = os.path.basename(fuzzer)
    artifacts = os.path.abspath(f"{name}-artifacts") + os.sep
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as scratch:
        # The first directory receives new inputs; the corpus after it is only read.
        cmd = [fuzzer, scratch, corpus, f"-runs={runs}", "-seed=1", "-timeout=30",
               "-rss_limit_mb=2048", "-print_final_stats=1", f"-artifact_prefix={artifacts}"]
        print(" ".join(cmd), flush=True)
        rc = subprocess.call(cmd)
    if rc != 0:
        print(f"{name}: failed (exit {rc}); the failing input is in {artifacts}", flush=True)
        # Not rc itself: libFuzzer's crash exit code is 77, which meson reads as "skipped".
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
