#!/usr/bin/env python3
"""CPU seconds, peak RSS and the video bitrate sent of each participant of a conf call that sends
the same Y4M clip (`--video-source file:`, looped, at the clip's rate), side by side with
GStreamer pipelines doing the same VP8 work on the same clip (one realtime encoder at the same
target, one decoder per other participant, paced at the clip's rate). conf also does ICE, DTLS,
SRTP, RTCP, congestion control, Opus of silence and jitter buffering; the GStreamer figure is the
codec work alone. The PSNR of what arrives: bench/video_quality.py.

    bench/video_cpu.py CONF_BINARY PARTICIPANTS RESOLUTION [SECONDS]      RESOLUTION: 480p or 720p

CONF_ARGS (environment, split on spaces) goes to each `conf join`: CONF_ARGS=--no-audio leaves out
the Opus work GStreamer's side does not have.

Makes the clip with gst-launch-1.0 (Debian's gstreamer1.0-tools): SECONDS of GStreamer's moving
zone plate at 30 fps, at the room's size, in /tmp (480p: 14 MB a second).
"""
import json, os, subprocess, sys, tempfile
from cpu_usage import beside_gstreamer, start_room, zone_plate_clip

conf, n, resolution = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seconds = int(sys.argv[4]) if len(sys.argv) > 4 else 10
width, height = {"480p": (640, 480), "720p": (1280, 720)}[resolution]
clip = zone_plate_clip(width, height, seconds)
env = dict(os.environ, CONF_AUDIO_SINK="none", CONF_AUDIO_SOURCE="silence")


server, address, room = start_room(conf, {"name": "video-cpu", "resolution": resolution})
# Events to files: a pipe would have to be read while wait4 reaps the processes.
logs = [tempfile.TemporaryFile(mode="w+") for _ in range(n)]
participants = [subprocess.Popen([conf, "join", room["room"], room["pin"], "--server", address, "--as", f"p{i}", "--json", "--stats",
                                  "--video-source", f"file:{clip}", "--duration", str(seconds)]
                                 + os.environ.get("CONF_ARGS", "").split(),
                                 stdout=logs[i], stderr=subprocess.DEVNULL, env=env) for i in range(n)]
conf_figures, gst_figures = beside_gstreamer(
    participants, f"filesrc location={clip} ! y4mdec ! identity sync=true ! "
                  "vp8enc deadline=1 cpu-used=8 end-usage=cbr target-bitrate=600000 threads=1 error-resilient=1", "vp8dec")
outputs = []
for log in logs:
    log.seek(0)
    outputs.append(log.read())
server.terminate()
server.wait()


def sent_video_kbps(output):
    """The mean of the per-link `sent_kbps` of the link-stats after the first 5 s (video and audio)."""
    rates = []
    for line in output.splitlines():
        event = json.loads(line)
        if event.get("type") == "link-stats" and event.get("t", 0) > 5:
            rates += [link["sent_kbps"] for link in event.get("links", [])]
    return sum(rates) / len(rates) if rates else 0


print(f"{n}-party video call, {resolution} ({width}x{height}) at 30 fps from {clip}, {seconds} s")
for i, ((cpu, rss), output) in enumerate(zip(conf_figures, outputs)):
    print(f"  conf p{i}: {cpu:.2f} s CPU ({100 * cpu / seconds:.1f} % of a core), peak RSS {rss:.1f} MiB, "
          f"sent {sent_video_kbps(output):.0f} kbit/s a link")
for i, (cpu, rss) in enumerate(gst_figures):
    print(f"  gstreamer {i}: {cpu:.2f} s CPU ({100 * cpu / seconds:.1f} % of a core), peak RSS {rss:.1f} MiB")
conf_cpu = sum(c for c, _ in conf_figures) / n
gst_cpu = sum(c for c, _ in gst_figures) / n
print(f"  conf / gstreamer CPU: {conf_cpu / gst_cpu:.2f}")
