#!/bin/bash
# Where two builds' CPU goes in 4-party audio calls run at once: a whole-system profile (perf
# record -a, 1999 Hz, 18 s of each call) and the samples summed per library for each build's
# participants. More repeatable than audio_cpu_ab.py's totals for a change of a few per cent in
# one library. Needs root (or perf_event_paranoid <= 0) and perf.
#
#     bench/cpu_profile_ab.sh CONF_A CONF_B [OUT]      # OUT: the perf data (default /tmp/ab.perf)
#     bench/cpu_profile_ab.sh CONF_A CONF_B OUT -v     # also the 50 busiest symbols of B's own code
set -euo pipefail
a=$1 b=$2 out=${3:-/tmp/ab.perf}
here=$(cd "$(dirname "$0")" && pwd)
python3 - "$a" "$b" "$out" "$here/audio_cpu_ab.py" <<'PY'
import json, subprocess, sys, time
a, b, out, ab = sys.argv[1:5]
sys.argv = ["audio_cpu_ab.py", a, b, "4", "25", "1"]
exec(open(ab).read().split("ratios, rest_ratios")[0])  # its start_call and per_participant_cpu
server_a, call_a = start_call(a, "cpu-a", [])
server_b, call_b = start_call(b, "cpu-b", [])
time.sleep(3)  # past the set-up, into the call
subprocess.run(["perf", "record", "-a", "-F", "1999", "-o", out, "--", "sleep", "18"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
cpu = per_participant_cpu(call_a + call_b)
for server in (server_a, server_b):
    server.terminate()
    server.wait()
json.dump({"A": [p.pid for p in call_a], "B": [p.pid for p in call_b]}, open(out + ".pids", "w"))
print("CPU seconds per participant: A %.3f, B %.3f" % (sum(c for c, _ in cpu[:4]) / 4, sum(c for c, _ in cpu[4:]) / 4))
PY
perf script -i "$out" -F pid,ip,sym,dso 2>/dev/null | python3 -c '
import collections, json, sys
pids = json.load(open(sys.argv[1] + ".pids"))
group = {pid: g for g in "AB" for pid in pids[g]}
own = ("conf", "libswiftCore.so", "ld-linux-x86-64.so.2")
crypto = ("nss", "freebl", "softokn", "nspr", "plds", "plc4", "libcrypto", "libssl", "srtp")
by_library, totals, symbols = collections.Counter(), collections.Counter(), collections.Counter()
for line in sys.stdin:
    parts = line.split()
    if len(parts) < 2 or not parts[0].isdigit() or int(parts[0]) not in group:
        continue
    g, library = group[int(parts[0])], parts[-1].strip("()").split("/")[-1]
    by_library[g, library] += 1
    totals[g] += 1
    if g == "B" and library in own:
        symbols[" ".join(parts[2:-1])[:120]] += 1
print("samples:", dict(totals))
for g in "AB":
    print(g, "own (conf, Swift runtime, ld.so):", sum(n for (h, l), n in by_library.items() if h == g and l in own),
          " crypto (NSS, OpenSSL, libsrtp2):", sum(n for (h, l), n in by_library.items() if h == g and any(c in l for c in crypto)))
for (g, library), n in sorted(by_library.items(), key=lambda item: (item[0][1], item[0][0])):
    if n >= 40:
        print(f"  {g} {library:40s} {n}")
if "-v" in sys.argv:
    for symbol, n in symbols.most_common(50):
        print(f"  B {n:5d} {symbol}")
' "$out" "${4:-}"
