#!/bin/sh
# The spraylab node image's entry point (fabric/namespaced/containerlab.cpp writes the Dockerfile
# that installs it): containerlab adds a node's links (eth1, eth2, ...) after its container has
# started, and says how many in CLAB_INTFS. A spraylab-switch or spraylab-gen started before them
# finds no interface for its net_af_xdp ports and exits, so wait for eth1 .. eth<CLAB_INTFS>
# (5 minutes at most), then run the node's command in this process.
# SPRAYLAB_IF_WAIT_NET replaces /sys/class/net (tests/cli/fabric_export_test.py).
net=${SPRAYLAB_IF_WAIT_NET:-/sys/class/net}
want=${CLAB_INTFS:-0}
case $want in
  '' | *[!0-9]*)
    echo "spraylab-if-wait: CLAB_INTFS='$want' is not a count of interfaces" >&2
    exit 2
    ;;
esac
tenths=0
i=1
while [ "$i" -le "$want" ]; do
  if [ -e "$net/eth$i" ]; then
    i=$((i + 1))
    continue
  fi
  if [ "$tenths" -ge 3000 ]; then
    echo "spraylab-if-wait: eth$i of $want did not appear in 300 s" >&2
    exit 1
  fi
  sleep 0.1
  tenths=$((tenths + 1))
done
exec "$@"
