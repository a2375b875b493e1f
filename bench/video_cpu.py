#!/usr/bin/env python3
"""CPU seconds, peak RSS, bitrate and picture quality of a conf video call that sends a Y4M clip
(`--video-source file:`, looped, at the clip's rate), side by side with GStreamer doing the same
VP8 work on the same clip at the same time (bench/gst_vp8_work.py: one real-time encoder set as
conf sets libvpx, temporal layers included, and one decoder per other participant, paced at the
clip's rate). conf also does ICE, DTLS, SRTP, RTCP, congestion control, Opus of silence and
jitter buffering; the GStreamer figure is the codec work alone.

So that a cheaper encode is never a worse picture in disguise, each side's bitrate and PSNR are
printed beside its CPU: p1 records what p0 sends it (`--record`), GStreamer's first pipeline
writes what it encoded; both are decoded afterwards and each picture compared with the clip
frame it shows (bench/video_scores.py). conf's figures count from the start of its process
(signalling, ICE and the estimate's climb included); GStreamer starts at its target.

    bench/video_cpu.py CONF_BINARY PARTICIPANTS RESOLUTION [SECONDS] [apart] [--json]     RESOLUTION: 480p or 720p

`apart` runs conf's call first and GStreamer's pipelines after it, for calls too big for the
machine's cores to hold both at once (4 parties or 720p on 2 cores: then conf's encoder drops the
frames it cannot finish and GStreamer falls behind the clock, and the two are no longer doing the
same work). Side by side is the default: a shared machine's speed drifts from minute to minute.

CONF_ARGS (environment, split on spaces) goes to each `conf join`: CONF_ARGS=--no-audio leaves out
the Opus work GStreamer's side does not have; `--video-bitrate N` there sets GStreamer's target too.

Makes the clip with gst-launch-1.0 (Debian's gstreamer1.0-tools): SECONDS of GStreamer's moving
zone plate at 30 fps, at the room's size, in /tmp (480p: 14 MB a second). Needs python3-numpy,
python3-gi and gir1.2-gstreamer-1.0. --json: the text goes to stderr and one JSON object of the
figures to stdout (bench/run-all).
"""
import json, os, subprocess, sys, tempfile
from cpu_usage import measure, start_room, zone_plate_clip
from media_recordings import ivf_frames
from video_scores import decode, matched_scores, read_y4m, summary

as_json = "--json" in sys.argv
arguments = [a for a in sys.argv[1:] if a != "--json"]
if as_json:
    sys.stdout = sys.stderr
conf, n, resolution = arguments[0], int(arguments[1]), arguments[2]
seconds = int(arguments[3]) if len(arguments) > 3 else 10
apart = arguments[4:5] == ["apart"]
width, height = {"480p": (640, 480), "720p": (1280, 720)}[resolution]
conf_args = os.environ.get("CONF_ARGS", "").split()
kbps = int(conf_args[conf_args.index("--video-bitrate") + 1]) if "--video-bitrate" in conf_args else 600
clip = zone_plate_clip(width, height, seconds)
env = dict(os.environ, CONF_AUDIO_SINK="none", CONF_AUDIO_SOURCE="silence")
env.pop("DISPLAY", None)
env.pop("WAYLAND_DISPLAY", None)
work = tempfile.mkdtemp(prefix="conf-video-cpu-")
gst_work = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gst_vp8_work.py")

server, address, room = start_room(conf, {"name": "video-cpu", "resolution": resolution})
# Output to files: a pipe would have to be read while wait4 reaps the processes.
logs = [tempfile.TemporaryFile(mode="w+") for _ in range(2 * n)]
participants = [subprocess.Popen([conf, "join", room["room"], room["pin"], "--server", address, "--as", f"p{i}", "--json", "--stats",
                                  "--video-source", f"file:{clip}", "--video-view", "none", "--duration", str(seconds)]
                                 + (["--record", work] if i == 1 else []) + conf_args,
                                 stdout=logs[i], stderr=subprocess.DEVNULL, env=env) for i in range(n)]
conf_figures = measure(participants) if apart else []
# Only the first pipeline writes what it encodes, as only p1 records (p0's video).
gstreamers = [subprocess.Popen(["/usr/bin/python3", gst_work, clip, str(kbps), str(n - 1), os.path.join(work, "gst0.webm") if i == 0 else "-"],
                               stdout=logs[n + i], stderr=subprocess.DEVNULL) for i in range(n)]
figures = conf_figures + measure(gstreamers) if apart else measure(participants + gstreamers)
outputs = []
for log in logs:
    log.seek(0)
    outputs.append(log.read())
server.terminate()
server.wait()


def sent_kbps(output):
    """The mean of the per-link `sent_kbps` of the link-stats after the first 5 s (video and audio)."""
    rates = [link["sent_kbps"] for line in output.splitlines() for event in [json.loads(line)]
             if event.get("type") == "link-stats" and event.get("t", 0) > 5 for link in event.get("links", [])]
    return sum(rates) / len(rates) if rates else 0


source = read_y4m(clip)


def quality(recording, demuxer):
    decoded = recording + ".y4m"
    decode(recording, demuxer, decoded)
    return matched_scores(read_y4m(decoded), source)


conf_frames = ivf_frames(os.path.join(work, "p0.ivf"))
conf_scores = quality(os.path.join(work, "p0.ivf"), "ivfparse")
gst_encoded = json.loads(outputs[n] or "{}")
gst_scores = quality(os.path.join(work, "gst0.webm"), "matroskademux")
subprocess.run(["rm", "-rf", work])

print(f"{n}-party video call, {resolution} ({width}x{height}) at 30 fps from {clip}, {seconds} s, {kbps} kbit/s asked, "
      + ("conf then GStreamer" if apart else "conf and GStreamer at the same time"))
for i, (cpu, rss) in enumerate(figures[:n]):
    print(f"  conf p{i}: {cpu:.2f} s CPU ({100 * cpu / seconds:.1f} % of a core), peak RSS {rss:.1f} MiB, "
          f"sent {sent_kbps(outputs[i]):.0f} kbit/s a link (link-stats after 5 s, with RTP and audio)")
for i, (cpu, rss) in enumerate(figures[n:]):
    print(f"  gstreamer {i}: {cpu:.2f} s CPU ({100 * cpu / seconds:.1f} % of a core), peak RSS {rss:.1f} MiB")
conf_kbps = sum(size for _, size in conf_frames) * 8 / seconds / 1000
gst_kbps = gst_encoded.get("bytes", 0) * 8 / seconds / 1000
print(f"  p0's video as p1 received it: {len(conf_frames)} frames, {conf_kbps:.0f} kbit/s of VP8, "
      f"PSNR (mean / median / 5th percentile) {summary(conf_scores)}")
print(f"  gstreamer 0's encoding: {gst_encoded.get('frames', 0)} frames, {gst_kbps:.0f} kbit/s of VP8, PSNR {summary(gst_scores)}")
conf_cpu = sum(c for c, _ in figures[:n]) / n
gst_cpu = sum(c for c, _ in figures[n:]) / n
print(f"  conf / gstreamer CPU: {conf_cpu / gst_cpu:.2f}")
if as_json:
    def psnr(scores):
        return {"mean": sum(scores) / len(scores), "median": scores[len(scores) // 2], "p5": scores[len(scores) // 20]} if scores else None
    print(json.dumps({"participants": n, "resolution": resolution, "seconds": seconds, "apart": apart, "kbps_asked": kbps,
                      "conf": [{"cpu_s": cpu, "rss_mib": rss, "sent_kbps_a_link": sent_kbps(outputs[i])} for i, (cpu, rss) in enumerate(figures[:n])],
                      "gst": [{"cpu_s": cpu, "rss_mib": rss} for cpu, rss in figures[n:]],
                      "conf_video": {"frames": len(conf_frames), "kbps": conf_kbps, "psnr": psnr(conf_scores)},
                      "gst_video": {"frames": gst_encoded.get("frames", 0), "kbps": gst_kbps, "psnr": psnr(gst_scores)},
                      "cpu_ratio": conf_cpu / gst_cpu}), file=sys.__stdout__)
