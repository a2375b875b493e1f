#!/usr/bin/env python3
"""CPU of an audio-only call with two conf builds side by side: in each round both builds hold an
N-party call at the same time, on the same cores, so that a machine whose speed drifts from minute
to minute (a shared VM) slows both alike. Prints per-participant CPU seconds (user+system, from
wait4(2)) for each round and the median ratio B/A, and how often each build's participants woke
(voluntary context switches a second over the call's SECONDS, from the same rusage: every thread's
blocking waits, most of them the event loop's poll; start-up and joining count too).

    bench/audio_cpu_ab.py CONF_A CONF_B PARTICIPANTS [SECONDS] [ROUNDS] [--split-opus]

--split-opus preloads bench/opus_time_shim.c (built here with cc) into the participants, which
times libopus's encode and decode calls, and prints each build's Opus seconds per participant
beside the rest, and the ratio B/A of the rest: the call's own work apart from its codec's.

CONF_A_ARGS and CONF_B_ARGS (environment, split on spaces) are added to each build's `conf join`,
e.g. CONF_B_ARGS="--audio-bitrate 32000" to hold a build whose Opus follows the link at the fixed
32 kbit/s of one that did not.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, urllib.request

split_opus = "--split-opus" in sys.argv
arguments = [a for a in sys.argv[1:] if a != "--split-opus"]
conf_a, conf_b, n = arguments[0], arguments[1], int(arguments[2])
seconds = float(arguments[3]) if len(arguments) > 3 else 20
rounds = int(arguments[4]) if len(arguments) > 4 else 3
env = dict(os.environ, CONF_AUDIO_SINK="none")
opus_times = None
if split_opus:
    opus_times = tempfile.mkdtemp(prefix="conf-opus-time-")
    shim = os.path.join(opus_times, "opus_time_shim.so")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "opus_time_shim.c")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, source, "-ldl"], check=True)
    env.update(LD_PRELOAD=shim, OPUS_TIME_DIR=opus_times)
tones = [440, 550, 660, 770]


def start_call(conf, label, extra):
    """A rendezvous and N participants of one build; returns (rendezvous, participants)."""
    server = subprocess.Popen([conf, "rendezvous", "--listen", "127.0.0.1:0", "--quiet", "--no-tls"], stdout=subprocess.PIPE, text=True)
    address = "ws://" + server.stdout.readline().split()[-1]
    request = urllib.request.Request(f"http://{address[5:]}/v1/rooms", headers={"Content-Type": "application/json"}, data=json.dumps({"name": label}).encode(), method="POST")
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


def opus_seconds(popens):
    """libopus's encode + decode CPU seconds of each participant, as the shim wrote them; None
    when one wrote nothing (it died, or its build does not call the shared libopus)."""
    def read(pid):
        try:
            with open(os.path.join(opus_times, str(pid))) as f:
                _, encode, decode, _, _ = f.read().split()
        except FileNotFoundError:
            return None
        return float(encode) + float(decode)
    seconds = [read(p.pid) for p in popens]
    return None if None in seconds else seconds


ratios, rest_ratios = [], []
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
    if split_opus:
        timed_a, timed_b = opus_seconds(call_a), opus_seconds(call_b)
        if timed_a is None or timed_b is None:
            print("           no Opus figures: a participant's shim wrote none", flush=True)
            continue
        opus_a, opus_b = sum(timed_a) / n, sum(timed_b) / n
        rest_ratios.append((b - opus_b) / (a - opus_a))
        print(f"           Opus A {opus_a:.3f} s, B {opus_b:.3f} s; the rest A {a - opus_a:.3f} s, B {b - opus_b:.3f} s, "
              f"B/A {rest_ratios[-1]:.3f}", flush=True)
print(f"  median B/A {statistics.median(ratios):.3f}")
if split_opus and rest_ratios:
    print(f"  median B/A apart from Opus {statistics.median(rest_ratios):.3f}")
if opus_times:
    shutil.rmtree(opus_times, ignore_errors=True)
