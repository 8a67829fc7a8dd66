#!/usr/bin/env bash
# spraylab setup: installs every Debian 12 package the project needs and reserves hugepages.
# Idempotent: run it as often as you like; it only does what is missing.
# Without root it changes nothing and says exactly what it could not do.
# --packages-only: the packages, no hugepages (a container image build: docs/fabric.md).
set -euo pipefail
PACKAGES_ONLY=0
[[ ${1:-} == --packages-only ]] && PACKAGES_ONLY=1

PACKAGES=(
  # build
  g++ meson ninja-build pkg-config clang-format
  # data path
  dpdk dpdk-dev libdpdk-dev libbpf-dev libxdp-dev libpcap-dev
  # the XDP program of net_af_xdp ports (switch/xdp): clang's BPF target
  clang
  # libraries
  libyaml-cpp-dev prometheus-cpp-dev libcivetweb-dev zlib1g-dev libcli11-dev libfmt-dev libspdlog-dev
  nlohmann-json3-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # fuzz targets (tests/fuzz, docs/fuzzing.md): libFuzzer and the sanitizer runtimes, which clang
  # only recommends (and recommends are not installed)
  libclang-rt-14-dev
  # switch-veth test: network namespaces and veth pairs
  iproute2
  # plots
  gnuplot-nox
  # packet captures in tests
  tshark
  # monitoring: a Prometheus server and promtool (the prometheus-scrape test, docs/monitoring.md)
  prometheus
  # fabric-export test: containerlab's topology file checked against its JSON schema
  python3-yaml python3-jsonschema
)
HUGEPAGES=${SPRAYLAB_HUGEPAGES:-1024}

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [[ $(id -u) -ne 0 ]]; then
  rc=0
  if ((${#missing[@]})); then
    echo "setup: not root: cannot install missing packages: ${missing[*]}" >&2
    echo "setup:   run: sudo apt-get install -y ${missing[*]}" >&2
    rc=1
  fi
  if [[ $(cat /proc/sys/vm/nr_hugepages) -lt $HUGEPAGES ]]; then
    echo "setup: not root: cannot reserve $HUGEPAGES hugepages (now $(cat /proc/sys/vm/nr_hugepages))" >&2
    rc=1
  fi
  if ! mountpoint -q /dev/hugepages 2>/dev/null; then
    echo "setup: not root: cannot mount hugetlbfs on /dev/hugepages" >&2
    rc=1
  fi
  exit $rc
fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ((PACKAGES_ONLY)); then
  echo "setup: ok (packages only)"
  exit 0
fi

# Hugepages: DPDK's memory. 1024 x 2 MiB = 2 GiB, enough for a switch, a generator and a fabric.
if [[ $(cat /proc/sys/vm/nr_hugepages) -lt $HUGEPAGES ]]; then
  echo "$HUGEPAGES" >/proc/sys/vm/nr_hugepages
fi
got=$(cat /proc/sys/vm/nr_hugepages)
if [[ $got -lt $HUGEPAGES ]]; then
  echo "setup: warning: asked for $HUGEPAGES hugepages, the kernel gave $got" >&2
fi
mkdir -p /dev/hugepages
mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
echo "setup: ok ($got hugepages, $(dpkg-query -W -f='${Version}' libdpdk-dev) DPDK)"
