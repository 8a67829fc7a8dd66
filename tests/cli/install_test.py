#!/usr/bin/env python3
"""`meson install` (`make install`, issue 43): spraylab, spraylab-switch and spraylab-gen land in
bindir with what they read: the XDP objects in libdir/spraylab (launcher.cpp's xdp_program_path
looks beside bin/) and the experiment files in datadir/spraylab/conf, where an installed
spraylab finds its reproductions from any folder. Staged with --destdir in a scratch folder."""
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, run_cases, check  # noqa: E402

ARGS = case_parser(__doc__).parse_args()


def install(args, dest):
    r = subprocess.run(["meson", "install", "-C", args.build, "--no-rebuild", "--destdir", dest],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, r.stdout + r.stderr)
    bins = glob.glob(os.path.join(dest, "**", "bin"), recursive=True)
    check(len(bins) == 1, f"one bin folder: {bins}")
    return bins[0]


def programs_and_their_data_are_installed(args):
    with tempfile.TemporaryDirectory() as dest, tempfile.TemporaryDirectory() as work:
        bin_dir = install(args, dest)
        for program in ("spraylab", "spraylab-switch", "spraylab-gen"):
            check(os.access(os.path.join(bin_dir, program), os.X_OK), f"{program} not installed")
        root = os.path.dirname(bin_dir)
        xdp = glob.glob(os.path.join(root, "lib", "**", "spraylab", "spraylab_xdp_gen.o"),
                        recursive=True)
        check(xdp, "spraylab_xdp_gen.o not installed under lib/")
        spraylab = os.path.join(bin_dir, "spraylab")
        # From a folder with no source tree around: the installed experiment files.
        r = subprocess.run([spraylab, "reproduce", "--list"], cwd=work, capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 0 and r.stdout.strip(), f"reproduce --list: {r.stderr}")
        demo = os.path.join(root, "share", "spraylab", "conf", "examples", "demo.yaml")
        r = subprocess.run([spraylab, "run", demo, "--algorithms", "ofan", "-n"], cwd=work,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and r.stdout.startswith("ofan"), f"run -n: {r.stderr}")
        return f"{len(r.stdout.splitlines())} lines; xdp {os.path.relpath(xdp[0], root)}"


sys.exit(run_cases(ARGS, [("programs and their data are installed",
                           programs_and_their_data_are_installed, ())]))
