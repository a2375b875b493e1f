#!/usr/bin/env python3
"""Where one video participant's memory goes: RSS, PSS and the file-backed (shared libraries)
and anonymous (heap, buffers) parts of its /proc/PID/smaps, 9 s into a 2-party 480p30 call that
sends the benchmark's Y4M clip, then the same for the call with --no-video and for a
gst-launch-1.0 pipeline doing the same VP8 encode and decode.

    bench/video_memory.py CONF_BINARY
"""
import os, re, subprocess, sys, time
from cpu_usage import start_room, zone_plate_clip

conf = sys.argv[1]
clip = zone_plate_clip(640, 480, 10)
env = dict(os.environ, CONF_AUDIO_SINK="none", CONF_AUDIO_SOURCE="silence")


def memory(pid):
    """(RSS, file-backed, anonymous, PSS) in MiB."""
    file_backed = anonymous = 0
    name = None
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                fields = line.split()
                name = fields[5] if len(fields) > 5 else "[anon]"
            elif line.startswith("Rss:"):
                kib = int(line.split()[1])
                if name in ("[anon]", "[heap]", "[stack]"):
                    anonymous += kib
                else:
                    file_backed += kib
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        pss = next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
    return (file_backed + anonymous) / 1024, file_backed / 1024, anonymous / 1024, pss / 1024


def conf_call(extra):
    server, address, room = start_room(conf, {"name": "video-memory", "resolution": "480p"})
    participants = [subprocess.Popen([conf, "join", room["room"], room["pin"], "--server", address, "--as", f"p{i}",
                                      "--video-source", f"file:{clip}", "--duration", "12"] + extra,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) for i in range(2)]
    time.sleep(9)
    figures = memory(participants[0].pid)
    for participant in participants:
        participant.wait()
    server.terminate()
    server.wait()
    return figures


def gstreamer():
    pipeline = subprocess.Popen(["gst-launch-1.0", "-q", "filesrc", f"location={clip}", "!", "y4mdec", "!", "identity", "sync=true", "!",
                                 "vp8enc", "deadline=1", "cpu-used=8", "end-usage=cbr", "target-bitrate=600000", "threads=1",
                                 "error-resilient=1", "!", "vp8dec", "!", "fakesink"])
    time.sleep(6)
    figures = memory(pipeline.pid)
    pipeline.terminate()
    pipeline.wait()
    return figures


print("MiB: RSS, file-backed, anonymous, PSS")
for label, figures in (("conf, 480p30 video", conf_call([])), ("conf, --no-video", conf_call(["--no-video"])),
                       ("GStreamer VP8 encode + decode", gstreamer())):
    print(f"  {label}: " + ", ".join(f"{value:.1f}" for value in figures))
