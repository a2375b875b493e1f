#!/usr/bin/env python3
"""Mouth-to-ear delay through PulseAudio on loopback.

A private PulseAudio daemon holds one stereo null sink, "both". Its left channel is A's
microphone (a remapped source "leftmic") and also where a click train is played; its right
channel is B's speaker (a remapped sink "right"). One recording of both.monitor therefore holds
each click (left) and, later, B's playback of it (right), on one clock. The delay is the distance
between matching onsets: capture, Opus, SRTP, network, jitter buffer, decoding and playback.

    bench/mouth_to_ear.py CONF_BINARY [SECONDS] [--timeline] [--stall MS@S] [--json]

--timeline also prints each click's delay in the order they were played, with the receiver's
`audio-stats` (its jitter buffer's level, target, concealed and skipped audio) between them, so
that a run whose delay stepped up shows when and in which part.

--stall MS@S stops the sender (SIGSTOP) for MS milliseconds S seconds into the recording, as a
loaded machine would: its packets then come in a burst, the receiver's playout waits for the
gap, and the median of the clicks after the stall, over the last 5 s, shows whether that delay
was given back.

--json: the text goes to stderr and one JSON object of the figures (ms) to stdout (bench/run-all).
"""
import datetime, json, os, signal, struct, subprocess, sys, tempfile, time, urllib.request, wave

timeline = "--timeline" in sys.argv
as_json = "--json" in sys.argv
arguments = [a for a in sys.argv[1:] if a not in ("--timeline", "--json")]
if as_json:
    sys.stdout = sys.stderr
stall = None
if "--stall" in arguments:
    at = arguments.index("--stall")
    try:
        stall_ms, stall_at = (float(x) for x in arguments[at + 1].split("@"))
    except (IndexError, ValueError):
        sys.exit("--stall takes MS@S, e.g. 100@5: the sender stopped 100 ms, 5 s into the clicks")
    stall = (stall_ms / 1000, stall_at)
    del arguments[at:at + 2]
conf = arguments[0]
seconds = float(arguments[1]) if len(arguments) > 1 else 20
# A wait is held five calm spans (10 s or more) before it is given back, and the last 5 s are
# measured; the sender's capture ring holds 1 s, so a longer stop would drop audio at the sender.
if stall and not (0 < stall[0] <= 1 and stall[1] >= 0 and stall[1] + stall[0] + 15 <= seconds):
    sys.exit(f"--stall: stop the sender 1 s at most, and leave 15 s after it (SECONDS >= {stall[1] + stall[0] + 15:.0f})")
work = tempfile.mkdtemp(prefix="conf-m2e-")
env = dict(os.environ, PULSE_RUNTIME_PATH=work, PULSE_SERVER=f"unix:{work}/native")
env.pop("CONF_AUDIO_SOURCE", None)
env.pop("CONF_AUDIO_SINK", None)

modules = [
    "module-native-protocol-unix",
    "module-null-sink sink_name=both channels=2 channel_map=front-left,front-right rate=48000",
    "module-remap-sink sink_name=left master=both channels=1 master_channel_map=front-left channel_map=mono remix=no",
    "module-remap-sink sink_name=right master=both channels=1 master_channel_map=front-right channel_map=mono remix=no",
    "module-remap-source source_name=leftmic master=both.monitor channels=1 master_channel_map=front-left channel_map=mono remix=no",
]
subprocess.run(["pulseaudio", "-D", "--exit-idle-time=-1", "-n", "--use-pid-file=yes"] + [f"--load={m}" for m in modules],
               env=env, check=True, stderr=subprocess.DEVNULL)
for _ in range(100):
    if subprocess.run(["pactl", "info"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
        break
    time.sleep(0.05)

# A click every 500 ms: 2 ms of a loud 2 kHz burst.
clicks = os.path.join(work, "clicks.wav")
with wave.open(clicks, "wb") as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(48000)
    frames = bytearray()
    for n in range(int(48000 * (seconds + 2))):
        on = (n % 24000) < 96
        value = int(20000 * (1 if (n // 12) % 2 == 0 else -1)) if on else 0
        frames += struct.pack("<h", value)
    w.writeframes(bytes(frames))

processes = []
b = None
try:
    server = subprocess.Popen([conf, "rendezvous", "--listen", "127.0.0.1:0", "--quiet", "--no-tls"], stdout=subprocess.PIPE, text=True, env=env)
    processes.append(server)
    address = "ws://" + server.stdout.readline().split()[-1]
    room = json.load(urllib.request.urlopen(urllib.request.Request(f"http://{address[5:]}/v1/rooms", headers={"Content-Type": "application/json"}, data=b'{"name":"m2e"}', method="POST")))
    common = ["--server", address, "--json", "--duration", str(seconds + 4)]
    a = subprocess.Popen([conf, "join", room["room"], room["pin"], "--as", "a", "--mic", "leftmic", "--audio-sink", "none"] + common,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    b = subprocess.Popen([conf, "join", room["room"], room["pin"], "--as", "b", "--audio-source", "silence", "--speaker", "right"] + common + (["--stats"] if timeline else []),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    processes += [a, b]
    for line in b.stdout:
        if '"peer-connected"' in line:
            break
    time.sleep(1)  # let the jitter buffer settle on its target
    raw = os.path.join(work, "both.raw")
    recording_started = time.time()
    recorder = subprocess.Popen(["parec", "--device=both.monitor", "--rate=48000", "--channels=2", "--format=s16le", "--raw"],
                                stdout=open(raw, "wb"), env=env)
    player = subprocess.Popen(["paplay", "--device=left", clicks], env=env)
    processes += [recorder, player]
    if stall:
        time.sleep(stall[1])
        a.send_signal(signal.SIGSTOP)
        time.sleep(stall[0])
        a.send_signal(signal.SIGCONT)
        time.sleep(seconds - stall[1] - stall[0])
    else:
        time.sleep(seconds)
finally:
    for p in processes:
        p.send_signal(signal.SIGTERM)
    for p in processes:
        p.wait()
    rest_of_b = b.stdout.read() if b else ""  # the audio-stats, for --timeline
    subprocess.run(["pulseaudio", "--kill"], env=env, stderr=subprocess.DEVNULL)

data = open(raw, "rb").read()
count = len(data) // 4
samples = struct.unpack(f"<{count * 2}h", data[:count * 4])
left, right = samples[0::2], samples[1::2]


def onsets(channel, threshold):
    found, last = [], -48000
    for i, v in enumerate(channel):
        if abs(v) > threshold and i - last > 12000:
            found.append(i)
            last = i
    return found


sent = onsets(left, 8000)
heard = onsets(right, 3000)
delays, timed = [], []
for s in sent:
    later = [h for h in heard if 0 < h - s < 12000]
    if later:
        delays.append((later[0] - s) / 48)
        timed.append((s / 48000, f"click {(later[0] - s) / 48:.1f} ms"))
if timeline:
    for line in rest_of_b.splitlines():
        event = json.loads(line) if line.startswith("{") else {}
        if event.get("type") == "audio-stats" and "at" in event:  # builds before the call engine have no `at`
            at = datetime.datetime.fromisoformat(event["at"].replace("Z", "+00:00")).timestamp() - recording_started
            for peer in event.get("peers", []):
                timed.append((at, "audio-stats " + " ".join(f"{k}={v}" for k, v in peer.items() if k.endswith("_ms"))))
    for at, what in sorted(timed):
        print(f"{at:7.2f} s  {what}")
last = sorted(float(what.split()[1]) for at, what in timed if what.startswith("click") and at >= seconds - 5)
delays.sort()
if not delays:
    print("no clicks came through")
    sys.exit(1)
print(f"mouth-to-ear through PulseAudio: {len(delays)} clicks of {len(sent)}; "
      f"median {delays[len(delays) // 2]:.1f} ms, p95 {delays[int(len(delays) * 0.95) - 1]:.1f} ms, "
      f"min {delays[0]:.1f} ms, max {delays[-1]:.1f} ms; median of the last 5 s {last[len(last) // 2] if last else float('nan'):.1f} ms")
if as_json:
    print(json.dumps({"seconds": seconds, "clicks": len(sent), "heard": len(delays), "median_ms": delays[len(delays) // 2],
                      "p95_ms": delays[int(len(delays) * 0.95) - 1], "min_ms": delays[0], "max_ms": delays[-1]}), file=sys.__stdout__)
