#!/usr/bin/env python3
"""CPU of an audio-only call with two conf builds side by side: in each round both builds hold an
N-party call at the same time, on the same cores, so that a machine whose speed drifts from minute
to minute (a shared VM) slows both alike. Prints per-participant CPU seconds (user+system, from
wait4(2)) for each round and the median ratio B/A, and how often each build's participants woke
(voluntary context switches a second, from the same rusage: each is a sleep in poll that ended).

    bench/audio_cpu_ab.py CONF_A CONF_B PARTICIPANTS [SECONDS] [ROUNDS]

CONF_A_ARGS and CONF_B_ARGS (environment, split on spaces) are added to each build's `conf join`,
e.g. CONF_B_ARGS="--audio-bitrate 32000" to hold a build whose Opus follows the link at the fixed
32 kbit/s of one that did not.
"""
import json, os, statistics, subprocess, sys, urllib.request

conf_a, conf_b, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 20
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
env = dict(os.environ, CONF_AUDIO_SINK="none")
tones = [440, 550, 660, 770]


def start_call(conf, label, extra):
    """A rendezvous and N participants of one build; returns (rendezvous, participants)."""
    server = subprocess.Popen([conf, "rendezvous", "--listen", "127.0.0.1:0", "--quiet"], stdout=subprocess.PIPE, text=True)
    address = server.stdout.readline().split()[-1]
    request = urllib.request.Request(f"http://{address}/v1/rooms", data=json.dumps({"name": label}).encode(), method="POST")
    room = json.load(urllib.request.urlopen(request))
    participants = [subprocess.Popen([conf, "join", room["room"], room["pin"], "--server", address, "--as", f"p{i}",
                                      "--audio-source", f"tone:{tones[i]}", "--duration", str(seconds)] + extra,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) for i in range(n)]
    return server, participants


def per_participant_cpu(popens):
    """(CPU seconds, voluntary context switches) of each participant, in order."""
    usage = {}
    while len(usage) < len(popens):
        pid, _, rusage = os.wait4(-1, 0)
        usage[pid] = (rusage.ru_utime + rusage.ru_stime, rusage.ru_nvcsw)
    return [usage[p.pid] for p in popens]


ratios = []
print(f"{n}-party audio calls, {seconds:.0f} s, A = {conf_a}, B = {conf_b}; CPU seconds per participant", flush=True)
for round_number in range(rounds):
    server_a, call_a = start_call(conf_a, "cpu-a", os.environ.get("CONF_A_ARGS", "").split())
    server_b, call_b = start_call(conf_b, "cpu-b", os.environ.get("CONF_B_ARGS", "").split())
    cpu = per_participant_cpu(call_a + call_b)
    for server in (server_a, server_b):
        server.terminate()
        server.wait()
    a, b = sum(c for c, _ in cpu[:n]) / n, sum(c for c, _ in cpu[n:]) / n
    wakes_a, wakes_b = (sum(w for _, w in part) / n / seconds for part in (cpu[:n], cpu[n:]))
    ratios.append(b / a)
    print(f"  round {round_number + 1}: A {a:.3f} s, B {b:.3f} s, B/A {b / a:.3f}; "
          f"wake-ups a second A {wakes_a:.0f}, B {wakes_b:.0f}", flush=True)
print(f"  median B/A {statistics.median(ratios):.3f}")
