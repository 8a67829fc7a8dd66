#!/usr/bin/env python3
"""Packs the completed variants of `spraylab reproduce` results folders into one archive that a
later `spraylab reproduce NAME --resume` goes on from, on this machine or another
(docs/reproduce.md, "Across machines and sessions").

  scripts/pack-variants.py ARCHIVE.tar.xz results/NAME [more folders of the same reproduction]
  mkdir -p results/NAME && tar -xJf ARCHIVE.tar.xz -C results/NAME
  build/fabric/spraylab reproduce NAME --resume

A variant is taken from a run's folder (results/NAME/RUN/VARIANT) or from a killed or running
run's staging folder (results/NAME/.RUN.spraylab-*/VARIANT), once whole: config.yaml, summary.json
and run.json (a variant folder appears only when written in full, runner.cpp's write_variant).
Every distinct copy of a variant is kept, in the order --resume tries them (a run's folder, then
its staging folders newest first; the folders as given): the first in RUN/, the n-th after it in
.RUN.spraylab-packed-N/, which --resume takes for a killed run's staging folder. So a copy that
--resume refuses (stopped by --timeout, made by another virtual-time engine) hides no later one
that stands. Only what `--resume` reads is kept: not generator.json, tables or plots, and not
summary.json's per-port lists (credit.stalled_ports, pfc.paused_ports), which
fabric/results/summary_reader.cpp does not read and which are most of a large fabric's summary
(367 of 540 KB on 1296 hosts); a variant kept by --resume is linked into the new results as
packed, without them. Refused: a reproduction that plots messages (`outputs: [plots]`: it needs
generator.json) or draws a figure from each variant's CSV (`source:`). Extract into an empty
folder: files of another run there would stay beside the packed ones.
"""
import argparse
import io
import json
import os
import sys
import tarfile
import time

import yaml

REPRO_MARKER = ".spraylab-reproduction"  # reproduce_cli.cpp kMarker
RUN_MARKER = ".spraylab-results"  # results_folder.h ResultsFolder::kMarker
STAGING_INFIX = ".spraylab-"  # results_folder.cpp kTemporaryInfix
FILES = ("config.yaml", "summary.json", "run.json")


def run_folders(repro):
    """(run name, folder) of every run folder and staging folder of a reproduction folder in the
    order --resume looks (runner.cpp): run folders first, then staging folders, newest first."""
    done, staging = [], []
    for entry in os.scandir(repro):
        try:
            if not entry.is_dir() or not os.path.isfile(os.path.join(entry.path, RUN_MARKER)):
                continue
            if entry.name.startswith(".") and STAGING_INFIX in entry.name:
                # .RUN.spraylab-<pid>-XXXXXX: the run's name is all before the last infix.
                staging.append((entry.stat().st_mtime, entry.name[1:].rsplit(STAGING_INFIX, 1)[0], entry.path))
            elif not entry.name.startswith("."):
                done.append((entry.name, entry.path))
        except OSError:
            continue  # a staging folder committed or removed while we look: its run is elsewhere
    staging.sort(reverse=True)
    return sorted(done) + [(name, path) for _, name, path in staging]


def variant_files(folder):
    """The files of a whole variant folder to pack, {name: bytes}, or None if it is not whole."""
    texts = {}
    for name in FILES:
        try:
            with open(os.path.join(folder, name), "rb") as f:
                texts[name] = f.read()
        except OSError:
            return None
    try:
        summary = json.loads(texts["summary.json"])
        json.loads(texts["run.json"])
    except ValueError:
        return None
    try:
        experiment = yaml.load(texts["config.yaml"], Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    if "plots" in ((experiment or {}).get("measurement") or {}).get("outputs", []):
        raise SystemExit(f"{folder}: the experiment plots messages; --resume needs its generator.json")
    figures = ((experiment or {}).get("reproduce") or {}).get("figures") or []
    if any(isinstance(f, dict) and "source" in f for f in figures):
        raise SystemExit(f"{folder}: a figure reads each variant's own CSV (source:), which is not packed")
    for section, key in (("credit", "stalled_ports"), ("pfc", "paused_ports")):
        if isinstance(summary.get(section), dict):
            summary[section].pop(key, None)
    texts["summary.json"] = (json.dumps(summary, indent=2) + "\n").encode()
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archive", help="the archive to write (.tar.xz)")
    ap.add_argument("folders", nargs="+", help="results folders of one reproduction (spraylab reproduce -o)")
    args = ap.parse_args()
    # Every distinct whole copy of a variant, in the order --resume tries them: --resume keeps the
    # first that stands (same experiment, the current engine, stopped as designed), so a copy it
    # would refuse (a timeout, an older engine) must not hide a later one that stands.
    copies, marker = {}, None
    for repro in args.folders:
        if not os.path.isfile(os.path.join(repro, REPRO_MARKER)):
            sys.exit(f"{repro}: not a spraylab reproduction folder (no {REPRO_MARKER})")
        for run, folder in run_folders(repro):
            try:
                with open(os.path.join(folder, RUN_MARKER), "rb") as f:
                    marker = marker or f.read()
                entries = [e for e in os.scandir(folder) if not e.name.startswith(".") and e.is_dir()]
            except OSError:
                continue  # committed or removed while we look
            for entry in entries:
                files = variant_files(entry.path)
                if files is None:
                    continue
                found = copies.setdefault((run, entry.name), [])
                if files not in found:
                    found.append(files)
    if not copies:
        sys.exit("no completed variant in " + ", ".join(args.folders))
    runs = sorted({run for run, _ in copies})
    now = time.time()
    tmp = args.archive + ".partial"
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        def add(name, data):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = now
            tar.addfile(info, io.BytesIO(data))
        with open(os.path.join(args.folders[0], REPRO_MARKER), "rb") as f:
            add(REPRO_MARKER, f.read())
        # The first copy in the run's folder, the n-th after it in a folder --resume takes for a
        # killed run's staging folder (results_folder.cpp, take_leftovers).
        place = lambda run, n: run if n == 0 else f".{run}{STAGING_INFIX}packed-{n}"
        for run, n in sorted({(run, n) for (run, _), found in copies.items() for n in range(len(found))}):
            add(f"{place(run, n)}/{RUN_MARKER}", marker)
        for (run, variant), found in sorted(copies.items()):
            for n, files in enumerate(found):
                for name in FILES:
                    add(f"{place(run, n)}/{variant}/{name}", files[name])
    os.replace(tmp, args.archive)
    more = sum(len(c) - 1 for c in copies.values())
    print(f"{args.archive}: {len(copies)} variants of {len(runs)} run(s) ({', '.join(runs)})"
          + (f", {more} more copies" if more else "") + f", {os.path.getsize(args.archive)} bytes")


if __name__ == "__main__":
    main()
