#!/usr/bin/env python3
"""CPU seconds and peak RSS of each participant of an audio-only conf call, side by side with
GStreamer pipelines doing the same Opus work (one 48 kHz mono encoder at 32 kbit/s and one decoder
per other participant, paced in real time). conf also does ICE, DTLS, SRTP, RTCP and jitter
buffering on top; the GStreamer figure is the codec work alone.

    bench/audio_cpu.py CONF_BINARY PARTICIPANTS [SECONDS] [--json]

--json: the text goes to stderr and one JSON object of the figures to stdout (bench/run-all).
"""
import json, os, subprocess, sys
from cpu_usage import beside_gstreamer, start_room

as_json = "--json" in sys.argv
arguments = [a for a in sys.argv[1:] if a != "--json"]
if as_json:
    sys.stdout = sys.stderr
conf, n = arguments[0], int(arguments[1])
seconds = float(arguments[2]) if len(arguments) > 2 else 20
env = dict(os.environ, CONF_AUDIO_SINK="none")


server, address, room = start_room(conf, {"name": "cpu"})
tones = [440, 550, 660, 770]
participants = [subprocess.Popen([conf, "join", room["room"], room["pin"], "--server", address, "--as", f"p{i}",
                                  "--audio-source", f"tone:{tones[i]}", "--duration", str(seconds)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) for i in range(n)]
conf_figures, gst_figures = beside_gstreamer(
    participants, f"audiotestsrc is-live=true samplesperbuffer=960 num-buffers={int(seconds * 50)} freq=440 ! "
                  "audio/x-raw,rate=48000,channels=1 ! opusenc bitrate=32000 frame-size=20", "opusdec")
server.terminate()
server.wait()

cpu_conf = sum(c for c, _ in conf_figures) / n
cpu_gst = sum(c for c, _ in gst_figures) / n
rss_conf = max(r for _, r in conf_figures)
rss_gst = max(r for _, r in gst_figures)
print(f"{n}-party audio call, {seconds:.0f} s, per participant process (mean CPU, max peak RSS):")
print(f"  conf       CPU {cpu_conf:.2f} s ({cpu_conf / seconds * 100:.1f} % of a core), peak RSS {rss_conf:.1f} MiB")
print(f"  GStreamer  CPU {cpu_gst:.2f} s ({cpu_gst / seconds * 100:.1f} % of a core), peak RSS {rss_gst:.1f} MiB")
print(f"  ratio conf/GStreamer: CPU {cpu_conf / cpu_gst:.2f}, RSS {rss_conf / rss_gst:.2f}")
if as_json:
    print(json.dumps({"participants": n, "seconds": seconds, "conf_cpu_s": cpu_conf, "gst_cpu_s": cpu_gst,
                      "conf_rss_mib": rss_conf, "gst_rss_mib": rss_gst}), file=sys.__stdout__)
