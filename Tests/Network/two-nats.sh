#!/usr/bin/env bash
# Builds (up) or removes (down) a small internet in network namespaces, for NAT traversal tests:
#
#   PREFIX-pub   198.51.100.1  (bridge): the rendezvous and the STUN/TURN server live here
#   PREFIX-nat1  198.51.100.2  <-NAT->  10.0.1.1   PREFIX-lan1  10.0.1.2   (participant A)
#   PREFIX-nat2  198.51.100.3  <-NAT->  10.0.2.1   PREFIX-lan2  10.0.2.2   (participant B)
#
# Each NAT masquerades its LAN (iptables MASQUERADE: the mapping keeps the port whatever the
# destination; only answers to traffic sent out are let in). Addresses are documentation ranges, inside the
# namespaces only.   two-nats.sh up|down PREFIX
set -euo pipefail
action=$1
p=$2

down() {
  for ns in pub nat1 lan1 nat2 lan2; do ip netns del "$p-$ns" 2>/dev/null || true; done
}

if [[ $action == down ]]; then down; exit 0; fi
down
for ns in pub nat1 lan1 nat2 lan2; do
  ip netns add "$p-$ns"
  ip -n "$p-$ns" link set lo up
done
ip -n "$p-pub" link add br0 type bridge
ip -n "$p-pub" addr add 198.51.100.1/24 dev br0
ip -n "$p-pub" link set br0 up
for i in 1 2; do
  # WAN: NAT i to the public bridge.
  ip link add "$p-w$i" netns "$p-nat$i" type veth peer name "w$i" netns "$p-pub"
  ip -n "$p-pub" link set "w$i" master br0 up
  ip -n "$p-nat$i" link set "$p-w$i" name wan
  ip -n "$p-nat$i" addr add "198.51.100.$((i + 1))/24" dev wan
  ip -n "$p-nat$i" link set wan up
  # LAN: the participant behind NAT i.
  ip link add "$p-l$i" netns "$p-nat$i" type veth peer name "$p-h$i" netns "$p-lan$i"
  ip -n "$p-nat$i" link set "$p-l$i" name lan
  ip -n "$p-nat$i" addr add "10.0.$i.1/24" dev lan
  ip -n "$p-nat$i" link set lan up
  ip -n "$p-lan$i" link set "$p-h$i" name eth0
  ip -n "$p-lan$i" addr add "10.0.$i.2/24" dev eth0
  ip -n "$p-lan$i" link set eth0 up
  ip -n "$p-lan$i" route add default via "10.0.$i.1"
  ip netns exec "$p-nat$i" sysctl -qw net.ipv4.ip_forward=1
  ip netns exec "$p-nat$i" iptables -t nat -A POSTROUTING -o wan -j MASQUERADE
  ip netns exec "$p-nat$i" iptables -A FORWARD -i wan -o lan -m state --state ESTABLISHED,RELATED -j ACCEPT
  ip netns exec "$p-nat$i" iptables -A FORWARD -i wan -o lan -j DROP
  # Unsolicited packets to the router itself are dropped, as home routers do, before conntrack
  # confirms them: otherwise an early check from the peer would occupy the mapping's port and the
  # router would move the participant's next flow to another port.
  ip netns exec "$p-nat$i" iptables -A INPUT -i wan -m state --state NEW -j DROP
done
