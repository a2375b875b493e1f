#!/usr/bin/env bash
# Starts a release `conf rendezvous` on 127.0.0.1 and loads it with ROOMS rooms x 4 clients.
#   bench/rendezvous-load.sh 1000
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${1:-100}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[[ -x .build/release/conf ]] || swift build -c release >/dev/null
out=$(mktemp)
.build/release/conf rendezvous --listen 127.0.0.1:0 --quiet --rooms-per-minute 1000000 --max-rooms 1000000 --max-connections-per-client 1000000 >"$out" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.05; done
port=$(awk '/listening/ {n = split($NF, a, ":"); print a[n]}' "$out")
python3 bench/rendezvous_load.py "$port" "$rooms" "$server"
