#!/usr/bin/env python3
"""A real Prometheus server scrapes a running spraylab-switch and spraylab-gen (issue 6).

Debian's `prometheus` runs on loopback with a temporary config (the shipped
monitoring/prometheus/prometheus.yml with this run's ports in place of the default ones) and data
directory, scraping every second. The switch (leaf0, CPU 1) has three hosts on memif ports; one generator process emulates
all three (CPU 0) and runs an incast (two senders to one receiver at the 100 Mb/s link rate),
so the receiver's egress queue fills, drops and marks, whatever the machine's speed. At most two busy-polling processes run at once.

Cases:
  dashboard_queries_return_data  every query of monitoring/grafana/spraylab.json but the PFC
                                 panels', with the
                                 dashboard's variables substituted, returns at least one series
                                 with a finite value through /api/v1/query; what Prometheus holds
                                 matches the processes' own results (retransmits, goodput, CCT,
                                 rx packets) and shows the incast's queue; then `promtool check
                                 metrics` passes on both processes' /metrics.
  pfc_panels_return_data         the PFC panels' queries, against a switch with buffer.flow_control:
                                 pfc on net_pcap ports under an incast (tests/integration/
                                 pfc_pcap.py, no generator): each returns a finite series, and
                                 Prometheus holds the switch's own pause counts and paused time.

  credit_panels_return_data      the credit panels' queries, against `spraylab run --mode
                                 inprocess --metrics-address` (the in-process fabric's switches
                                 on one endpoint) on a credit incast: each returns a finite
                                 series, and Prometheus holds the switches' credits consumed.

Teardown order: the generator quiesces (stops polling, keeps its ports), the switch stops, the
generator is released (DPDK 22.11's memif can crash a poller whose peer disconnects mid-burst),
then Prometheus stops.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TESTS, "integration"), TESTS]  # dpdk_procs, cases
from dpdk_procs import Proc, eal_args, ensure_hugepages, free_port  # noqa: E402
from cases import case_parser, run_cases, check, fabric_runtime_dir  # noqa: E402
from prom_server import Prometheus, dashboard_queries, finite, http_get, shipped_config  # noqa: E402
import pfc_pcap  # noqa: E402

EXPERIMENT = """\
seed: 3
topology: {generator: leaf-spine, leaves: 1, spines: 1, hosts_per_leaf: 3}
links: {rate: 100Mbps, delay: 1us}
buffer: {bytes: 64KB, ecn_threshold: 30%}
load_balancer: {algorithm: ofan}
workload: {type: incast, fan_in: 2, message_size: 512KB, payload: 1024, retransmit_timeout: 20ms}
"""
# Why the queue must build on any machine: two senders at the link rate into one port that the
# switch drains at the link rate, 1 MB against a 64 KB buffer. At 100 Mb/s (12 kpps of 1 KB
# frames per sender) even a generator sharing its CPU with other work offers twice what the
# port drains, so the queue fills to its buffer, drops and marks, and the senders retransmit.
# The 20 ms timeout is above the full queue's 5 ms of delay: retransmissions follow drops.
SWITCH_PORTS = 4  # leaf0: h0, h1, h2, spine0 (no peer: its link stays down)
HOSTS = 3
def test_dashboard_queries_return_data(args):
    ensure_hugepages()
    d = tempfile.mkdtemp(prefix="spraylab-prom-")
    tag = os.getpid()
    sw_prefix, gen_prefix = f"sl_mon_sw_{tag}", f"sl_mon_gen_{tag}"
    sw_port, gen_port = free_port(), free_port()
    config = os.path.join(d, "exp.yaml")
    with open(config, "w") as f:
        f.write(EXPERIMENT)
    prom = switch = gen = None
    try:
        prom = Prometheus(d, shipped_config(args.source, {"127.0.0.1:9561": f"127.0.0.1:{sw_port}",
                                                          "127.0.0.1:9562": f"127.0.0.1:{gen_port}"}, d))
        vdevs = lambda role, n: sum((["--vdev", f"net_memif{p},role={role},id=0,socket={d}/p{p}.sock,"
                                      "socket-abstract=no"] for p in range(n)), [])
        switch = Proc([f"{args.build}/switch/spraylab-switch", *eal_args("0@1", sw_prefix), *vdevs("server", SWITCH_PORTS),
                       "--", "--config", config, "--switch", "leaf0", "--metrics-address", f"127.0.0.1:{sw_port}",
                       "--stats-json", f"{d}/switch.json"], f"{d}/switch.log")
        deadline = time.time() + 30
        while "workers, " not in switch.log_text():
            check(switch.p.poll() is None and time.time() < deadline, f"switch did not start: {switch.log_text()[-2000:]}")
            time.sleep(0.05)
        check(f"metrics on http://127.0.0.1:{sw_port}/metrics" in switch.log_text(), "switch names no metrics URL")
        gen = Proc([f"{args.build}/trafficgen/spraylab-gen", *eal_args("0@0", gen_prefix), *vdevs("client", HOSTS),
                    "--", "--config", config, "--hosts", f"h0-h{HOSTS - 1}", "--port-map", "0,1,2", "--hold",
                    "--timeout", "60", "--metrics-address", f"127.0.0.1:{gen_port}", "--results", f"{d}/gen.json"],
                   f"{d}/gen.log", stdin=subprocess.PIPE)
        line = gen.read_line(90)
        check(line is not None, f"generator reported nothing: {gen.log_text()[-2000:]}")
        check(json.loads(line)["completed"], f"incast did not complete: {line}")
        with open(f"{d}/gen.json") as f:
            results = json.load(f)

        # Both targets up, and a scrape after the generator finished, with a few more behind it
        # so that rate() windows hold two samples.
        deadline = time.time() + 30
        while True:
            ups = {s["metric"]["job"]: s["value"][1] for s in prom.query("up")}
            done = prom.query("spraylab_gen_collective_completion_seconds_count > 0")
            if ups == {"spraylab-switch": "1", "spraylab-gen": "1"} and done:
                break
            check(time.time() < deadline, f"targets {ups}, completed collectives {done}")
            time.sleep(0.5)
        time.sleep(4)

        failures, shown = [], []
        for title, expr in dashboard_queries(args.source, pfc=False, credit=False):
            res = prom.query(expr)
            if not res or not finite(res):
                failures.append(f"{title}: {expr} -> {res[:3]}")
            else:
                shown.append(len(res))
        check(not failures, "dashboard queries without data:\n  " + "\n  ".join(failures))

        # What Prometheus holds is what the processes measured.
        c = results["collectives"][0]
        cct = prom.value("sum(spraylab_gen_collective_completion_seconds_sum)")
        check(abs(cct - c["cct_ns"] * 1e-9) < 1e-6, f"CCT in Prometheus {cct} s, results {c['cct_ns']} ns")
        infl = prom.value("sum(spraylab_gen_collective_inflation_ratio_sum)")
        check(abs(infl - c["inflation"]) < 1e-6, f"inflation in Prometheus {infl}, results {c['inflation']}")
        retx = prom.value("sum(spraylab_gen_retransmits_total)")
        check(retx == results["loss"]["retransmits"] > 0, f"retransmits: Prometheus {retx}, results {results['loss']}")
        goodput = prom.value("sum(spraylab_gen_goodput_bytes_total)")
        check(goodput == results["goodput"]["acked_bytes"], f"goodput bytes {goodput} vs {results['goodput']}")
        peak = prom.value("max(max_over_time(spraylab_switch_queue_max_depth_bytes[5m]))")
        check(peak > 10_000, f"the incast's egress queue peaked at {peak} B in Prometheus")
        nonzero = prom.value("sum(spraylab_switch_queue_depth_sampled_packets_count)"
                             " - sum(spraylab_switch_queue_depth_sampled_packets_bucket{le=\"0\"})")
        check(nonzero > 0, "no 1 ms depth sample saw a non-empty queue")
        lost = prom.value('sum(spraylab_switch_drops_total{reason="queue_full"}) + sum(spraylab_switch_ecn_marks_total)')
        check(lost > 0, "the incast neither filled nor marked a queue")
        rx_prom = prom.value("sum(spraylab_switch_rx_packets_total)")

        # promtool's own check of both expositions (each GET is a scrape: maxima reset).
        lint = []
        for name, port in (("switch", sw_port), ("gen", gen_port)):
            text = http_get(f"http://127.0.0.1:{port}/metrics")
            check("spraylab_" in text, f"{name}: no spraylab metrics")
            r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
            check(r.returncode == 0, f"promtool check metrics on the {name}: {r.stdout}{r.stderr}")
            lint.append(f"{name} {len(text.splitlines())} lines")
    finally:
        if gen and gen.p.poll() is None:
            gen.p.stdin.write("quiesce\n")
            gen.p.stdin.flush()
            gen.read_line(10)
        switch_rc = switch.stop() if switch else None
        gen_rc = gen.release() if gen else None
        if prom:
            prom.stop()
        logs = {n: p.log_text()[-1500:] for n, p in (("switch", switch), ("gen", gen)) if p}
        stats = None
        if os.path.exists(f"{d}/switch.json"):
            with open(f"{d}/switch.json") as f:
                stats = json.load(f)
        shutil.rmtree(d, ignore_errors=True)
        for prefix in (sw_prefix, gen_prefix):
            shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)
    check(switch_rc == 0 and gen_rc == 0, f"exit codes switch {switch_rc} gen {gen_rc}: {logs}")
    check(stats["totals"]["rx_packets"] == rx_prom,
          f"switch received {stats['totals']['rx_packets']} packets, Prometheus last saw {rx_prom}")
    return (f"{len(shown)} queries with data; CCT {cct * 1e3:.2f} ms (inflation {infl:.2f}), "
            f"{retx:.0f} retransmits, queue peak {peak / 1e3:.1f} kB, promtool ok ({', '.join(lint)})")


def test_pfc_panels_return_data(args):
    ensure_hugepages()
    d = tempfile.mkdtemp(prefix="spraylab-prom-pfc-")
    prefix = f"sl_mon_pfc_{os.getpid()}"
    sw = pfc_pcap.PfcSwitch(args.build, d, prefix)
    prom = None
    try:
        prom = Prometheus(d, shipped_config(args.source, {"127.0.0.1:9561": f"127.0.0.1:{sw.metrics_port}"}, d))
        text = sw.start()
        # Scraped since the incast drained, with a few scrapes behind it for the 10 s rate windows.
        deadline = time.time() + 30
        while not prom.query('spraylab_switch_pfc_frames_sent_total{kind="resume"} > 0'):
            check(time.time() < deadline, "Prometheus holds no resume frame")
            time.sleep(0.5)
        time.sleep(4)
        failures, queries = [], dashboard_queries(args.source, pfc=True)
        check(len(queries) >= 4, f"{len(queries)} PFC queries in the dashboard")
        for title, expr in queries:
            res = prom.query(expr)
            if not res or not finite(res):
                failures.append(f"{title}: {expr} -> {res[:3]}")
        check(not failures, "PFC dashboard queries without data:\n  " + "\n  ".join(failures))
        pauses = prom.value('sum(spraylab_switch_pfc_frames_sent_total{kind="pause"})')
        own = pfc_pcap.metric(text, "spraylab_switch_pfc_frames_sent_total", kind="pause")
        check(pauses == own >= 2, f"pause frames sent: Prometheus {pauses}, the switch {own}")
        paused = prom.value("sum(spraylab_switch_pfc_paused_seconds_total)")
        check(round(paused * 1e9) == pfc_pcap.PAUSE_NS, f"paused {paused} s in Prometheus, {pfc_pcap.PAUSE_NS} ns sent")
        r = subprocess.run(["promtool", "check", "metrics"], input=http_get(sw.url()), capture_output=True, text=True)
        check(r.returncode == 0, f"promtool check metrics on the PFC switch: {r.stdout}{r.stderr}")
        rc = sw.stop()
        check(rc == 0, f"switch exited {rc}: {sw.proc.log_text()[-2000:]}")
        return f"{len(queries)} PFC queries with data; {pauses:.0f} pauses sent, paused {paused * 1e3:.5f} ms"
    finally:
        sw.stop()
        if prom:
            prom.stop()
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(f"/var/run/dpdk/{prefix}", ignore_errors=True)


CREDIT_EXPERIMENT = """\
name: credit-metrics
seed: 3
topology: {generator: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2}
links: {rate: 1Gbps, delay: 1us}
buffer: {bytes: 64KB, flow_control: credit}
load_balancer: {algorithm: ecmp}
workload: {type: incast, fan_in: 3, message_size: 1MB, payload: 1000, cc: none}
"""


def test_credit_panels_return_data(args):
    """`spraylab run --mode inprocess --metrics-address` on a credit incast (3 senders into one
    host, links slowed to 2 Mb/s: some 15 s of run, the same on a quiet machine or a busy one, since
    the links' rate sets it; 256 KB messages ended in 3.8 s on a quiet machine, before Prometheus's
    first scrape held credits): Prometheus scrapes the fabric's switches, the credit panels' queries
    return finite series, and the credits the switches consumed are there."""
    ensure_hugepages()
    d = tempfile.mkdtemp(prefix="spraylab-prom-credit-")
    port = free_port()
    config = os.path.join(d, "credit.yaml")
    with open(config, "w") as f:
        f.write(CREDIT_EXPERIMENT)
    prom = run = None
    try:
        prom = Prometheus(d, shipped_config(args.source, {"127.0.0.1:9561": f"127.0.0.1:{port}"}, d))
        run = subprocess.Popen([f"{args.build}/fabric/spraylab", "run", config, "--mode", "inprocess",
                                "--rate", "2Mbps", "--metrics-address", f"127.0.0.1:{port}",
                                "-o", os.path.join(d, "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # Scraped while credits flow, with scrapes behind it for the rate windows.
        deadline = time.time() + 120
        while not prom.query("sum(spraylab_switch_credits_consumed_total) > 0") or \
                not finite(prom.query("rate(spraylab_switch_credit_stalled_seconds_total[10s])")):
            check(run.poll() is None or prom.query("spraylab_switch_credits_consumed_total"),
                  "the run ended before Prometheus held its credits")
            check(time.time() < deadline, "Prometheus holds no credits consumed")
            time.sleep(0.5)
        out, _ = run.communicate(timeout=300)
        check(run.returncode == 0, f"spraylab run exited {run.returncode}: {out[-2000:]}")
        check("switch metrics on http://127.0.0.1:" in out, f"no metrics URL printed: {out[-2000:]}")
        failures, queries = [], dashboard_queries(args.source, credit=True)
        check(len(queries) >= 3, f"{len(queries)} credit queries in the dashboard")
        for title, expr in queries:
            # The run is over: the last samples, within the lookback, over the whole test.
            res = prom.query(expr.replace("$__rate_interval", "5m"))
            if not res or not finite(res):
                failures.append(f"{title}: {expr} -> {res[:3]}")
        check(not failures, "credit dashboard queries without data:\n  " + "\n  ".join(failures))
        # The run is over, so the scrape after it failed and Prometheus marked its series stale:
        # an instant query finds nothing; the last sample within the window is the count.
        consumed = prom.value("sum(last_over_time(spraylab_switch_credits_consumed_total[5m]))")
        with open(os.path.join(d, "out", "ecmp", "summary.json")) as f:
            credit = json.load(f)["credit"]
        check(0 < consumed <= credit["consumed"],
              f"credits consumed: Prometheus {consumed}, the run's summary {credit['consumed']}")
        return f"{len(queries)} credit queries with data; {consumed:.0f} credits consumed (summary {credit['consumed']})"
    finally:
        if run:
            if run.poll() is None:
                run.kill()
                run.wait()
            shutil.rmtree(fabric_runtime_dir(run.pid), ignore_errors=True)
        if prom:
            prom.stop()
        shutil.rmtree(d, ignore_errors=True)


def main():
    args = case_parser().parse_args()
    for tool in ("prometheus", "promtool"):
        if not shutil.which(tool):
            print(f"FAIL: {tool} not installed (scripts/setup.sh installs Debian's prometheus)")
            return 1
    return run_cases(args, [("dashboard_queries_return_data", test_dashboard_queries_return_data, ()),
                            ("pfc_panels_return_data", test_pfc_panels_return_data, ()),
                            ("credit_panels_return_data", test_credit_panels_return_data, ())])


if __name__ == "__main__":
    sys.exit(main())
