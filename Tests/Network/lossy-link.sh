#!/usr/bin/env bash
# Two hosts on one link that loses packets, in network namespaces (for resilience tests):
#   PREFIX-a 10.9.0.1  <->  PREFIX-b 10.9.0.2; UDP arriving at b (with "both", at a too) is
#   dropped with probability P (1 blocks UDP: only TCP, like the rendezvous, gets through).
#   lossy-link.sh up PREFIX P [both] | down PREFIX
set -euo pipefail
action=$1
p=$2
if [[ $action == down ]]; then
  ip netns del "$p-a" 2>/dev/null || true
  ip netns del "$p-b" 2>/dev/null || true
  exit 0
fi
probability=$3
ip netns del "$p-a" 2>/dev/null || true
ip netns del "$p-b" 2>/dev/null || true
ip netns add "$p-a"
ip netns add "$p-b"
ip link add "$p-x" netns "$p-a" type veth peer name "$p-y" netns "$p-b"
ip -n "$p-a" addr add 10.9.0.1/24 dev "$p-x"
ip -n "$p-b" addr add 10.9.0.2/24 dev "$p-y"
for ns in a b; do ip -n "$p-$ns" link set lo up; done
ip -n "$p-a" link set "$p-x" up
ip -n "$p-b" link set "$p-y" up
ip netns exec "$p-b" iptables -A INPUT -p udp -m statistic --mode random --probability "$probability" -j DROP
if [[ ${4:-} == both ]]; then
  ip netns exec "$p-a" iptables -A INPUT -p udp -m statistic --mode random --probability "$probability" -j DROP
fi
