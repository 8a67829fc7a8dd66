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
The first folder given wins when two hold the same variant. Only what `--resume` reads is kept:
not generator.json, tables or plots, and not summary.json's per-port lists (credit.stalled_ports,
pfc.paused_ports), which fabric/results/summary_reader.cpp does not read and which are most of a
large fabric's summary (367 of 540 KB on 1296 hosts). A reproduction that plots messages
(`outputs: [plots]`) needs generator.json: it is refused.
"""
import argparse
import io
import json
import os
import sys
import tarfile

import yaml

REPRO_MARKER = ".spraylab-reproduction"  # reproduce_cli.cpp kMarker
RUN_MARKER = ".spraylab-results"  # results_folder.h ResultsFolder::kMarker
STAGING_INFIX = ".spraylab-"  # results_folder.cpp kTemporaryInfix
FILES = ("config.yaml", "summary.json", "run.json")


def run_folders(repro):
    """(run name, folder) of every run folder and staging folder of a reproduction folder, run
    folders first (complete), then staging folders (newest first: they hold the latest runs)."""
    done, staging = [], []
    for entry in os.scandir(repro):
        if not entry.is_dir() or not os.path.isfile(os.path.join(entry.path, RUN_MARKER)):
            continue
        if entry.name.startswith(".") and STAGING_INFIX in entry.name:
            staging.append((entry.stat().st_mtime, entry.name[1:].split(STAGING_INFIX)[0], entry.path))
        elif not entry.name.startswith("."):
            done.append((entry.name, entry.path))
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
    packed, runs, markers = {}, set(), {}
    for repro in args.folders:
        if not os.path.isfile(os.path.join(repro, REPRO_MARKER)):
            sys.exit(f"{repro}: not a spraylab reproduction folder (no {REPRO_MARKER})")
        for run, folder in run_folders(repro):
            with open(os.path.join(folder, RUN_MARKER), "rb") as f:
                markers.setdefault(RUN_MARKER, f.read())
            for entry in os.scandir(folder):
                key = f"{run}/{entry.name}"
                if entry.name.startswith(".") or not entry.is_dir() or key in packed:
                    continue
                files = variant_files(entry.path)
                if files is not None:
                    packed[key] = files
                    runs.add(run)
    if not packed:
        sys.exit("no completed variant in " + ", ".join(args.folders))
    tmp = args.archive + ".partial"
    with tarfile.open(tmp, "w:xz", preset=9) as tar:
        def add(name, data):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        with open(os.path.join(args.folders[0], REPRO_MARKER), "rb") as f:
            add(REPRO_MARKER, f.read())
        for run in sorted(runs):
            add(f"{run}/{RUN_MARKER}", markers[RUN_MARKER])
        for key in sorted(packed):
            for name in FILES:
                add(f"{key}/{name}", packed[key][name])
    os.replace(tmp, args.archive)
    print(f"{args.archive}: {len(packed)} variants of {len(runs)} run(s) ({', '.join(sorted(runs))}), "
          f"{os.path.getsize(args.archive)} bytes")


if __name__ == "__main__":
    main()
