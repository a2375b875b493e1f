#!/usr/bin/env python3
"""The quality of the video a receiver gets: the PSNR (luma) of each decoded picture against the
Y4M clip the sender sent, with the bitrate sent and the share of pictures that arrived.

    bench/video_quality.py CONF_BINARY RESOLUTION [SECONDS] [KBPS]     RESOLUTION: 480p or 720p

Two participants on loopback: the sender sends the clip (`--video-source file:`, GStreamer's
moving zone plate, the same as bench/video_cpu.py's) with `--video-bitrate KBPS` (default 600);
the receiver records it (`--record`: the VP8 frames as they arrived, in IVF). GStreamer decodes
the recording (ivfparse ! vp8dec); each picture is matched to the clip's frame it shows (the
nearest by a 1/16-size thumbnail, then the best of that frame and its neighbours at full size)
and compared. Beside it, the same clip through GStreamer's vp8enc set as conf sets libvpx
(bench/gst_vp8_work.py) and vp8dec, with no network. Needs gst-launch-1.0 (gstreamer1.0-tools),
python3-numpy, and python3-gi for gst_vp8_work.py.
"""
import json, os, subprocess, sys, tempfile
import numpy as np
from cpu_usage import start_room, zone_plate_clip
from video_scores import decode, matched_scores, read_y4m

conf, resolution = sys.argv[1], sys.argv[2]
seconds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
kbps = int(sys.argv[4]) if len(sys.argv) > 4 else 600
width, height = {"480p": (640, 480), "720p": (1280, 720)}[resolution]
clip = zone_plate_clip(width, height, seconds)
env = dict(os.environ, CONF_AUDIO_SINK="none", CONF_AUDIO_SOURCE="silence")
env.pop("DISPLAY", None)
env.pop("WAYLAND_DISPLAY", None)


with tempfile.TemporaryDirectory() as directory:
    server, address, room = start_room(conf, {"name": "video quality", "resolution": resolution})
    join = [conf, "join", room["room"], room["pin"], "--server", address, "--json", "--duration", str(seconds)]
    log = tempfile.TemporaryFile(mode="w+")
    sender = subprocess.Popen(join + ["--as", "sender", "--stats", "--video-source", f"file:{clip}", "--video-bitrate", str(kbps),
                                      "--video-view", "none"], stdout=log, stderr=subprocess.DEVNULL, env=env)
    receiver = subprocess.Popen(join + ["--as", "receiver", "--video-source", "none", "--video-view", "none", "--record", directory],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    sender.wait()
    receiver.wait()
    server.terminate()
    server.wait()
    decoded = os.path.join(directory, "decoded.y4m")
    decode(f"{directory}/sender.ivf", "ivfparse", decoded)
    received = read_y4m(decoded)
    log.seek(0)
    rates = [link["sent_kbps"] for line in log for event in [json.loads(line)]
             if event.get("type") == "link-stats" and event.get("t", 0) > 3 for link in event.get("links", [])]

    # The same clip through GStreamer's VP8 set as conf sets libvpx (bench/video_cpu.py's side), for reference.
    encoded = os.path.join(directory, "gstreamer.webm")
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gst_vp8_work.py"), clip, str(kbps), "0",
                    encoded], check=True, stdout=subprocess.DEVNULL)
    reference = os.path.join(directory, "gstreamer.y4m")
    decode(encoded, "matroskademux", reference)
    gstreamer = read_y4m(reference)

source = read_y4m(clip)
gstreamer_scores = matched_scores(gstreamer, source)
scores = matched_scores(received, source)
print(f"{resolution} ({width}x{height}) at 30 fps from {clip}, {seconds} s, --video-bitrate {kbps}")
print(f"  {len(received)} pictures decoded of the {30 * seconds} the clip ran ({len(received) / seconds:.1f} a second)")
print(f"  luma PSNR: mean {np.mean(scores):.2f} dB, median {scores[len(scores) // 2]:.2f} dB, 5th percentile {scores[len(scores) // 20]:.2f} dB")
print(f"  GStreamer's vp8enc set as conf's, same clip, same target (no network): mean {np.mean(gstreamer_scores):.2f} dB, "
      f"median {gstreamer_scores[len(gstreamer_scores) // 2]:.2f} dB, 5th percentile {gstreamer_scores[len(gstreamer_scores) // 20]:.2f} dB")
print(f"  sent {sum(rates) / max(1, len(rates)):.0f} kbit/s (link-stats after 3 s, video and audio)")
