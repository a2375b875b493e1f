#!/usr/bin/env bash
# Builds (up) or removes (down) two homes behind NAT routers on a small "internet", in network
# namespaces, for the reachability tests (after ../shared/recipes/upnp-router):
#
#   PREFIX-inet  11.0.0.1 (bridge br0): a standing rendezvous, coturn, a far peer
#   PREFIX-r1    WAN $WAN1 (11.0.0.2)  NAT  LAN 192.168.1.1   PREFIX-h1  192.168.1.10  (conf host)
#   PREFIX-r2    WAN 11.0.0.3          NAT  LAN 192.168.2.1   PREFIX-h2  192.168.2.10  (the joiner)
#
# `upnpd PREFIX` then runs miniupnpd (UPnP-IGD, NAT-PMP, PCP) on router 1, in the foreground (the
# caller stops it; a daemon left behind by a script would outlive its caller's wait for the
# script). It is ready when its log, /run/PREFIX-routers/miniupnpd.log, says "Listening for
# NAT-PMP". WAN1=100.64.0.2 puts router 1 behind carrier-grade NAT (a shared address:
# miniupnpd then refuses to map, as such routers do). NATPMP=no leaves UPnP-IGD alone (no NAT-PMP or
# PCP; it is ready when its log says "HTTP listening"). SYMMETRIC=1 makes both routers map each destination to a new port (masquerade
# fully-random). Both drop what comes in unasked, as home routers do. The addresses exist
# inside the namespaces only (11.0.0.0/24 is safe there: nothing leaves them).
#   home-routers.sh up|upnpd|down PREFIX
set -euo pipefail
action=$1
p=$2
run=/run/$p-routers
WAN1=${WAN1:-11.0.0.2}

down() {
  for ns in inet r1 h1 r2 h2; do ip netns del "$p-$ns" 2>/dev/null || true; done
  rm -rf "$run"
}

if [[ $action == down ]]; then down; exit 0; fi
if [[ $action == upnpd ]]; then
  # miniupnpd does not fork with -d; its own -P file must not be one a caller uses (see the recipe).
  exec ip netns exec "$p-r1" /usr/sbin/miniupnpd -f "$run/miniupnpd.conf" -P "$run/miniupnpd.own.pid" -d >"$run/miniupnpd.log" 2>&1 </dev/null
fi
down
mkdir -p "$run"
for ns in inet r1 h1 r2 h2; do
  ip netns add "$p-$ns"
  ip -n "$p-$ns" link set lo up
done
ip -n "$p-inet" link add br0 type bridge
ip -n "$p-inet" addr add 11.0.0.1/24 dev br0
ip -n "$p-inet" link set br0 up
masquerade=masquerade
[[ ${SYMMETRIC:-0} == 1 ]] && masquerade="masquerade fully-random"
for i in 1 2; do
  wan=11.0.0.$((i + 1))
  [[ $i == 1 ]] && wan=$WAN1
  ip link add "$p-w$i" netns "$p-r$i" type veth peer name "w$i" netns "$p-inet"
  ip -n "$p-inet" link set "w$i" master br0 up
  ip -n "$p-r$i" link set "$p-w$i" name wan
  ip -n "$p-r$i" addr add "$wan/24" dev wan
  ip -n "$p-r$i" link set wan up
  # A shared WAN address is routed to like any other on the bridge.
  [[ $wan == 11.0.0.* ]] || { ip -n "$p-inet" addr add "${wan%.*}.1/24" dev br0; ip -n "$p-r$i" route add default via "${wan%.*}.1"; }
  [[ $wan == 11.0.0.* ]] && ip -n "$p-r$i" route add default via 11.0.0.1
  ip link add "$p-l$i" netns "$p-r$i" type veth peer name "$p-e$i" netns "$p-h$i"
  ip -n "$p-r$i" link set "$p-l$i" name lan
  ip -n "$p-r$i" addr add "192.168.$i.1/24" dev lan
  ip -n "$p-r$i" link set lan up
  ip -n "$p-h$i" link set "$p-e$i" name eth0
  ip -n "$p-h$i" addr add "192.168.$i.10/24" dev eth0
  ip -n "$p-h$i" link set eth0 up
  ip -n "$p-h$i" route add default via "192.168.$i.1"
  ip netns exec "$p-r$i" sysctl -qw net.ipv4.ip_forward=1
  # The chains miniupnpd fills (Debian's nft_init.sh is missing its helper: see the recipe).
  ip netns exec "$p-r$i" nft -f - <<NFT
table inet filter {
  chain forward {
    type filter hook forward priority 0; policy drop;
    iifname "lan" accept
    ct state established,related accept
    jump miniupnpd
  }
  chain miniupnpd { }
  chain input {
    type filter hook input priority 0; policy accept;
    iifname "wan" ct state new drop
  }
  chain prerouting { type nat hook prerouting priority -100; jump prerouting_miniupnpd; }
  chain prerouting_miniupnpd { }
  chain postrouting { type nat hook postrouting priority 100; oifname "wan" $masquerade; jump postrouting_miniupnpd; }
  chain postrouting_miniupnpd { }
}
NFT
done

cat > "$run/miniupnpd.conf" <<CONF
ext_ifname=wan
listening_ip=lan
enable_natpmp=${NATPMP:-yes}
enable_upnp=yes
secure_mode=yes
system_uptime=yes
uuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07b
allow ${EXT_PORTS:-1024-65535} 192.168.1.0/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
CONF
