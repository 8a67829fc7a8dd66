"""A real Prometheus server for the tests (Debian's `prometheus` on loopback, a temporary data
directory) and the queries of a shipped Grafana dashboard with its variables substituted. Used by
tests/monitoring/prometheus_scrape_test.py and tests/integration/namespaced_fabric_test.py."""
import json
import math
import os
import re
import signal
import subprocess
import time
import urllib.parse
import urllib.request

from dpdk_procs import free_port  # noqa: E402
from cases import check  # noqa: E402

# Dashboard variables: every switch; Grafana's built-ins as a 1 s scrape interval gives them.
BUILTINS = {"__rate_interval": "10s", "__interval": "2s", "__range": "5m"}



def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def shipped_config(source, targets, d):
    """The shipped config, its hand-started processes' discovery files in folder d: one per
    {default address: this run's address} of `targets` (127.0.0.1:9561 a switch, :9562 a
    generator), as docs/monitoring.md says to write them. No static target (issue 43: the shipped
    ones were down whenever a fabric ran). Every discovery path moves into d, the namespaced
    fabrics' too: a fabric test running beside this one writes /run/spraylab/targets/<name>.json,
    and its targets were scraped here as down (CI once saw `spraylab-fabric: 0`)."""
    with open(os.path.join(source, "monitoring/prometheus/prometheus.yml")) as f:
        cfg = f.read()
    check(re.search(r"scrape_interval: 1s", cfg), "the shipped config does not scrape every second")
    check("static_configs" not in cfg, "the shipped config has static targets")
    local = os.path.join(d, "targets", "local")
    os.makedirs(local, exist_ok=True)
    for default, target in targets.items():
        role = {"9561": "switch", "9562": "gen"}[default.rsplit(":", 1)[1]]
        check(f"{default}" in cfg, f"the shipped config does not show {default}")
        with open(os.path.join(local, f"{role}-test.json"), "w") as f:
            json.dump([{"targets": [target]}], f)
    check("/run/spraylab/targets/*.json" in cfg, "the shipped config reads no namespaced fabric's targets")
    return cfg.replace("/run/spraylab/targets/", os.path.join(d, "targets") + "/")


class Prometheus:
    """Prometheus with config text `cfg`, data and log in folder d; ready when constructed."""

    def __init__(self, d, cfg):
        self.port = free_port()
        self.config = os.path.join(d, "prometheus.yml")
        with open(self.config, "w") as f:
            f.write(cfg)
        ok = subprocess.run(["promtool", "check", "config", self.config], capture_output=True, text=True)
        check(ok.returncode == 0, f"promtool check config: {ok.stdout}{ok.stderr}")
        self.log = open(os.path.join(d, "prometheus.log"), "w")
        self.p = subprocess.Popen(["prometheus", f"--config.file={self.config}",
                                   f"--storage.tsdb.path={d}/data", f"--web.listen-address=127.0.0.1:{self.port}",
                                   "--log.level=warn"], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            try:
                http_get(f"http://127.0.0.1:{self.port}/-/ready", timeout=1)
                return
            except OSError:
                check(self.p.poll() is None, "prometheus exited")
                check(time.time() < deadline, "prometheus not ready in 30 s")
                time.sleep(0.2)

    def query(self, expr):
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        r = json.loads(http_get(url))
        check(r["status"] == "success", f"{expr}: {r}")
        return r["data"]["result"]

    def value(self, expr):
        """The value of a query with exactly one series."""
        res = self.query(expr)
        check(len(res) == 1, f"{expr}: {len(res)} series")
        return float(res[0]["value"][1])

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()


PFC_SERIES = "spraylab_switch_pfc_"
CREDIT_SERIES = "spraylab_switch_credit"  # credits_consumed, credits_freed, credit_stalled


def dashboard_queries(source, dashboard="spraylab.json", values=None, pfc=None, credit=None):
    """(title, expr) of every target of every panel of monitoring/grafana/<dashboard>, variables
    substituted: `values` where given, else the variable's 'All' value. `pfc`: None, every query;
    False, those of no PFC series (a switch without buffer.flow_control: pfc has none); True,
    only those. `credit` the same for the credit series (buffer.flow_control: credit)."""
    with open(os.path.join(source, "monitoring/grafana", dashboard)) as f:
        dash = json.load(f)
    values = dict(BUILTINS, **(values or {}))
    for v in dash["templating"]["list"]:
        if v["type"] == "query":
            values.setdefault(v["name"], v.get("allValue") or ".*")
    out = []

    def walk(panels):
        for p in panels:
            for t in p.get("targets", []):
                expr = t["expr"]
                for name in sorted(values, key=len, reverse=True):
                    expr = expr.replace("${" + name + "}", values[name]).replace("$" + name, values[name])
                check("$" not in expr, f"unsubstituted variable in {expr}")
                if (pfc is None or (PFC_SERIES in expr) == pfc) and \
                        (credit is None or (CREDIT_SERIES in expr) == credit):
                    out.append((p["title"], expr))
            walk(p.get("panels", []))

    walk(dash["panels"])
    return out


def finite(series):
    return [s for s in series if math.isfinite(float(s["value"][1]))]
