#!/usr/bin/env bash
# Starts a release `conf rendezvous` on 127.0.0.1 and loads it with ROOMS rooms x 4 clients.
#   bench/rendezvous-load.sh ROOMS [WORKERS] [GENERATORS] [PROCESSES]
# WORKERS: the rendezvous's --workers (default: its own default, the cores); GENERATORS: load
# generator processes (default: one per 4,000 rooms, as one process may hold 20,000 descriptors);
# PROCESSES: the rendezvous's --processes (default 1). LOAD_PLAIN_WS=1: the clients open /v1/ws
# without ?room= (the rendezvous hands each join to the worker that holds its room).
# CONF: the conf binary (default .build/release/conf, built if missing).
# The load generator is bench/rendezvous_load.c, compiled to .build/bench/rendezvous_load when
# missing or older than its source; LOAD_GENERATOR=python runs bench/rendezvous_load.py instead
# (same phases and output, but it takes as much CPU as the server, so on a small machine its
# burst-relay figures are partly its own).
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${1:-100}
workers=${2:-}
generators=${3:-$(( (rooms + 3999) / 4000 ))}
processes=${4:-1}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
conf=${CONF:-.build/release/conf}
[[ -n ${CONF:-} || -x $conf ]] || swift build -c release >/dev/null
case ${LOAD_GENERATOR:-c} in
c)
    load=(.build/bench/rendezvous_load)
    if [[ ! -x ${load[0]} || bench/rendezvous_load.c -nt ${load[0]} ]]; then
        mkdir -p .build/bench
        cc -O2 -o "${load[0]}" bench/rendezvous_load.c
    fi ;;
python) load=(python3 bench/rendezvous_load.py) ;;
*) echo "LOAD_GENERATOR must be c or python, not $LOAD_GENERATOR" >&2; exit 2 ;;
esac
out=$(mktemp)
"$conf" rendezvous --listen 127.0.0.1:0 --quiet --rooms-per-minute 1000000 --max-rooms 100000000 --max-connections-per-client 1000000 \
    ${workers:+--workers "$workers"} --processes "$processes" >"$out" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.05; done
port=$(awk '/listening/ {n = split($NF, a, ":"); print a[n]}' "$out")
sleep 1  # the other processes start
pids=$(echo "$server" $(pgrep -P "$server") | tr ' ' ',')
"${load[@]}" "$port" "$rooms" "$pids" "$generators"
# The work the server did for all of it (user + system, its worker threads included): steadier
# than the latencies on a machine whose CPU is shared (steal time).
echo "server CPU: $(awk "{print (\$14 + \$15) / 100}" /proc/$server/stat) s (the first process of --processes)"
