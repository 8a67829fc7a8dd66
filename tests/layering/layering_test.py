#!/usr/bin/env python3
"""Which part of the product may include which (docs/architecture.md draws it).

Every `#include "..."` of product code (every .c/.cpp/.h outside tests/ and bench/) is read and
checked against ALLOWED below: a part may include its own headers, the name lists, and the parts
its entry lists. A part is the deepest folder of ALLOWED that holds the file. The name lists are
header-only enums with their name tables that conf/ parses into (docs/architecture.md, "Name
lists"); anyone may include them and they include nothing of the project but conf/name_list.h."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cases import case_parser, check, run_cases  # noqa: E402

# The bottom target: name lists every part may include.
NAME_LISTS = {
    "conf/name_list.h",  # how a name list's table is read (names::names_of, ...)
    "switch/lb/algorithm.h",
    "topo/kind.h",
    "topo/size_limit.h",
    "topo/palm_tree.h",  # header-only parameter rules the loader reports at the key, as size_limit.h
    "topo/mrls_rules.h",  # the same, for MRLS
    "trafficgen/cc_mode.h",
    "trafficgen/entropy_mode.h",
    "trafficgen/injection_mode.h",
    "trafficgen/workloads/workload_type.h",
    "trafficgen/workloads/fsdp_spec.h",
    "trafficgen/bounds/bound_kind.h",
}

LOWER = ["conf", "topo", "net", "monitoring", "switch/lb", "switch/dataplane", "trafficgen"]
# part -> the parts it may include besides itself. Sub-folders not listed (trafficgen/workloads)
# belong to their parent.
ALLOWED = {
    "conf": [],
    "topo": ["conf"],
    "net": [],
    "monitoring": [],
    "switch/lb": ["conf", "topo", "net"],
    "switch/dataplane": ["conf", "topo", "net", "switch/lb"],
    # spraylab-switch: its control plane, metrics and main. Never the generator.
    "switch": ["conf", "topo", "net", "monitoring", "switch/lb", "switch/dataplane"],
    "trafficgen": ["conf", "topo", "net", "monitoring"],
    # fabric/: run <- {results, emu, namespaced} <- runner <- reproduce <- cli
    "fabric/run": ["conf", "topo", "net"],
    "fabric/results": ["conf", "topo", "fabric/run"],
    "fabric/emu": LOWER + ["fabric/run"],
    # "switch": the switch's options (switch/switch_options.h), which the plan writes each
    # switch's command line from, as it writes each generator's from trafficgen/gen_options.h.
    "fabric/namespaced": LOWER + ["switch", "fabric/run"],
    "fabric/runner": LOWER + ["fabric/run", "fabric/results", "fabric/emu", "fabric/namespaced"],
    "fabric/reproduce": ["conf", "topo", "net", "fabric/run", "fabric/results"],
    "fabric/cli": LOWER + ["switch", "fabric/run", "fabric/results", "fabric/emu",
                           "fabric/namespaced", "fabric/runner", "fabric/reproduce"],
}
# Headers a part may include from a part it otherwise may not: each with the reason.
EXCEPTIONS = {
    # The result types name why a run stopped with the generator's own enum (a header-only list).
    ("fabric/run", "trafficgen/stop_reason.h"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def part_of(path):
    """The deepest ALLOWED folder holding `path`, or None (not product code)."""
    best = None
    for part in ALLOWED:
        if path.startswith(part + "/") and (best is None or len(part) > len(best)):
            best = part
    return best


def violations(sources):
    """sources: {path: text}. Returns 'file: includes X (part P may include only ...)' lines."""
    out = []
    for path, text in sorted(sources.items()):
        me = part_of(path)
        if me is None:
            continue
        for inc in INCLUDE.findall(text):
            if path in NAME_LISTS:
                if inc not in NAME_LISTS:
                    out.append(f"{path}: includes {inc} (a name list includes only name lists)")
                continue
            if inc in NAME_LISTS or (me, inc) in EXCEPTIONS:
                continue
            other = part_of(inc)
            if other is None:
                out.append(f"{path}: includes {inc}, which is no part's header")
            elif other != me and other not in ALLOWED[me]:
                allowed = ", ".join(ALLOWED[me]) or "nothing else"
                out.append(f"{path}: includes {inc} ({me} may include {allowed})")
    return out


def product_sources(source):
    files = subprocess.check_output(["git", "-C", source, "ls-files", "*.c", "*.cpp", "*.h"],
                                    text=True).split()
    out = {}
    for f in files:
        if f.startswith(("tests/", "bench/")):
            continue
        full = os.path.join(source, f)
        if os.path.exists(full):  # a file deleted in the work tree but not yet in git
            with open(full, encoding="utf-8", errors="replace") as fh:
                out[f] = fh.read()
    return out


def case_checker_refuses_forbidden_includes(args):
    """The checker itself, on includes that must fail and on ones that must pass."""
    bad = {
        "fabric/emu/x.cpp": '#include "fabric/namespaced/launcher.h"\n',
        "fabric/namespaced/y.cpp": '#include "fabric/emu/fabric.h"\n',
        "conf/z.cpp": '#include "topo/topology.h"\n',
        "switch/dataplane/w.cpp": '#include "trafficgen/host_engine.h"\n',
        "fabric/run/v.h": '#include "fabric/results/summary.h"\n',
        "topo/kind.h": '#include "conf/units.h"\n',
        "net/u.cpp": '#include "nowhere/thing.h"\n',
    }
    found = violations(bad)
    check(len(found) == len(bad), "every forbidden include is reported:\n" + "\n".join(found))
    good = {
        "fabric/emu/x.cpp": '#include "fabric/run/result.h"\n#include "switch/dataplane/worker.h"\n',
        "conf/z.cpp": '#include "switch/lb/algorithm.h"\n#include "conf/units.h"\n',
        "trafficgen/workloads/a.cpp": '#include "trafficgen/packet.h"\n',
        "fabric/cli/b.cpp": '#include "fabric/reproduce/figures.h"\n#include <vector>\n',
    }
    found = violations(good)
    check(not found, "allowed includes are not reported:\n" + "\n".join(found))
    return f"{len(bad)} forbidden caught, {len(good)} allowed passed"


def case_product_includes_go_one_way(args):
    sources = product_sources(args.source)
    check(len(sources) > 100, f"found the product's sources ({len(sources)})")
    unplaced = [f for f in sources if part_of(f) is None and f.endswith((".cpp", ".h"))]
    check(not unplaced, "every product file is in a part of ALLOWED: " + ", ".join(unplaced))
    found = violations(sources)
    check(not found, f"{len(found)} includes against the layering:\n" + "\n".join(found))
    return f"{len(sources)} files, {sum(len(INCLUDE.findall(t)) for t in sources.values())} includes"


if __name__ == "__main__":
    args = case_parser(__doc__).parse_args()
    sys.exit(run_cases(args, [
        ("the checker refuses forbidden includes", case_checker_refuses_forbidden_includes, ()),
        ("product includes go one way", case_product_includes_go_one_way, ()),
    ]))
