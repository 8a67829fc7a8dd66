#!/usr/bin/env python3
"""The documented commands work as written (issue 43): every command of README.md's ```sh blocks,
and of each docs/*.md's first ```sh block (its quick start), runs in order, on the built tree,
in a scratch folder that holds links to build/, conf/, scripts/, monitoring/ and the Makefile
(so results land there, and /tmp/X in a command becomes the scratch folder's tmp/X). A block
right after `<!-- not run by tests: REASON -->` is skipped, and the reason printed. `make X`
runs as `make -o setup -o build X`: the tree is set up and built already (meson test built it).
A command that exits non-zero fails the test, naming the doc, its line and the command's output;
except that `spraylab reproduce` may exit 1: a check not reproduced is a result, not a failure of
the tool (docs/reproduce.md, "Verdicts"), and the verdicts follow the papers, not make test.
Also: no doc names a .md file the repository lacks."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cases import case_parser, run_cases, check  # noqa: E402

ARGS = case_parser(__doc__).parse_args()
SKIP = re.compile(r"<!--\s*not run by tests:\s*(.+?)\s*-->\s*$")
LINKED = ["conf", "scripts", "monitoring", "Makefile"]


def blocks(path, first_only):
    """(line number, [logical commands], skip reason or None) per ```sh block of `path`."""
    lines = open(path).read().splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() in ("```sh", "```bash"):
            reason = None
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0 and SKIP.match(lines[j].strip()):
                reason = SKIP.match(lines[j].strip()).group(1)
            start, body, i = i + 1, [], i + 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            commands, current = [], ""
            for k, line in enumerate(body):
                text = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
                if not current and not text.strip():
                    continue
                if not current:
                    first_line = start + k + 1
                current += text.rstrip()
                if current.endswith("\\"):
                    current = current[:-1] + " "
                    continue
                commands.append((first_line, current.strip()))
                current = ""
            out.append((start, commands, reason))
            if first_only:
                break
        i += 1
    return out


def docs_in_order(source):
    yield os.path.join(source, "README.md"), False
    for path in sorted(glob.glob(os.path.join(source, "docs", "*.md"))):
        yield path, True


def scratch_tree(args, work):
    os.symlink(os.path.abspath(args.build), os.path.join(work, "build"))
    for name in LINKED:
        os.symlink(os.path.abspath(os.path.join(args.source, name)), os.path.join(work, name))
    os.makedirs(os.path.join(work, "tmp"))


def as_run(command, work):
    command = command.replace("/tmp/", os.path.join(work, "tmp") + "/")
    if command.startswith("make "):
        command = "make -o setup -o build " + command[len("make "):]
    return command


def every_documented_command_works(args):
    ran, skipped = 0, []
    with tempfile.TemporaryDirectory() as work:
        scratch_tree(args, work)
        for path, first_only in docs_in_order(args.source):
            doc = os.path.relpath(path, args.source)
            for start, commands, reason in blocks(path, first_only):
                if reason:
                    skipped.append(f"{doc}:{start} ({reason})")
                    continue
                for line, command in commands:
                    r = subprocess.run(["bash", "-c", as_run(command, work)], cwd=work,
                                       capture_output=True, text=True, timeout=300)
                    verdict = r.returncode == 1 and re.match(r"build/fabric/spraylab reproduce\b",
                                                             command)
                    check(r.returncode == 0 or verdict,
                          f"{doc}:{line}: `{command}` exited {r.returncode}\n"
                          f"{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
                    ran += 1
    for s in skipped:
        print(f"  not run: {s}")
    return f"{ran} commands run, {len(skipped)} blocks not run"


def no_doc_names_a_missing_md_file(args):
    missing = []
    for path, _ in docs_in_order(args.source):
        text = open(path).read()
        for name in set(re.findall(r"\b([A-Za-z][\w./-]*\.md)\b", text)):
            candidates = [os.path.join(args.source, name), os.path.join(args.source, "docs", name),
                          os.path.join(os.path.dirname(path), name)]
            generated = "results/" in name or os.path.basename(name) == "report.md"
            if not generated and not any(os.path.exists(c) for c in candidates):
                missing.append(f"{os.path.relpath(path, args.source)}: {name}")
    check(not missing, f"docs name files the repository lacks: {missing}")


sys.exit(run_cases(ARGS, [
    ("no doc names a missing .md file", no_doc_names_a_missing_md_file, ()),
    ("every documented command works", every_documented_command_works, ()),
]))
