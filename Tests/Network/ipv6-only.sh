#!/usr/bin/env bash
# Builds (up) or removes (down) two namespaces joined by one link that carries IPv6 only:
#
#   PREFIX-a  2001:db8:6::1/64  <-veth->  2001:db8:6::2/64  PREFIX-b
#
# No IPv4 address but loopback's on either side, and IPv4 dropped on the link for good measure.
# Documentation addresses, inside the namespaces only.   ipv6-only.sh up|down PREFIX
set -euo pipefail
action=$1
p=$2

down() {
  for ns in a b; do ip netns del "$p-$ns" 2>/dev/null || true; done
}

if [[ $action == down ]]; then down; exit 0; fi
down
for ns in a b; do
  ip netns add "$p-$ns"
  ip -n "$p-$ns" link set lo up
done
ip link add "$p-va" netns "$p-a" type veth peer name "$p-vb" netns "$p-b"
i=1
for ns in a b; do
  ip -n "$p-$ns" link set "$p-v$ns" name eth0
  ip -n "$p-$ns" addr add "2001:db8:6::$i/64" dev eth0 nodad
  ip -n "$p-$ns" link set eth0 up
  ip netns exec "$p-$ns" iptables -A OUTPUT -o eth0 -j DROP
  i=$((i + 1))
done
