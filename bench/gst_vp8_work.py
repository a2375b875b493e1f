#!/usr/bin/python3
"""The VP8 work of one conf video participant, done by GStreamer: a Y4M clip read at its rate,
one real-time encoder set as conf's VP8Encoder sets libvpx, and one decoder for each other
participant. bench/video_cpu.py runs one beside each conf participant.

    bench/gst_vp8_work.py CLIP KBPS DECODERS OUT.webm|-

The encoder's settings follow Sources/ConfMedia/VP8Encoder.swift and VP8TemporalPattern.swift:
cpu-used 8, CBR, one thread, error resilient, a 500/600/1000 ms rate-control buffer, frames
dropped at 30 % of it, quantizers 2-56, undershoot 100 %, overshoot 15 %, a key frame every
300 frames, no static threshold (libvpx's default, which conf keeps; GStreamer's is 1), and three
temporal layers in conf's pattern (40/20/40 % of the bitrate). The encoded stream is also
written to OUT.webm (for its PSNR; "-": not written); at the end one JSON line goes to stdout:
the frames encoded, their bytes and the seconds the pipeline ran.

Needs Debian's python3-gi and gir1.2-gstreamer-1.0 (some temporal-layer properties are arrays
that gst-launch-1.0 cannot set), hence /usr/bin/python3.
"""
import json, sys, time
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst

clip, kbps, decoders, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

# conf's 3-layer cycle of 8 frames (VP8TemporalPattern): what each frame may not reference or refresh.
BASE = "no-ref-golden+no-ref-alt+no-upd-golden+no-upd-alt"                          # layer 0: L -> L
TOP_FROM_LAST = "no-ref-golden+no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy"  # layer 2: L
MIDDLE_FROM_LAST = "no-ref-golden+no-ref-alt+no-upd-last+no-upd-alt+no-upd-entropy"  # layer 1: L -> G
TOP = "no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt+no-upd-entropy"              # layer 2: L, G
MIDDLE = "no-ref-alt+no-upd-last+no-upd-alt+no-upd-entropy"                         # layer 1: L, G -> G
cycle = [BASE, TOP_FROM_LAST, MIDDLE_FROM_LAST, TOP, BASE, TOP, MIDDLE, TOP]

encoder = (f"vp8enc name=enc deadline=1 cpu-used=8 end-usage=cbr target-bitrate={kbps * 1000} threads=1 error-resilient=1 "
           "buffer-initial-size=500 buffer-optimal-size=600 buffer-size=1000 dropframe-threshold=30 min-quantizer=2 "
           f"max-quantizer=56 undershoot=100 overshoot=15 keyframe-max-dist=300 static-threshold=0 "
           f"temporal-scalability-layer-flags=<{','.join(cycle)}> "
           # Frames above the base layer that predict from `last` alone (RFC 7741's Y); GStreamer
           # divides by the length of this array too.
           "temporal-scalability-layer-sync-flags=<false,true,true,false,false,false,false,false>")
branches = " ".join("t. ! queue ! vp8dec ! fakesink sync=false" for _ in range(decoders))
Gst.init(None)
pipeline = Gst.parse_launch(f"filesrc location={clip} ! y4mdec ! identity sync=true ! {encoder} ! tee name=t "
                            + ("t. ! queue ! fakesink sync=false " if out == "-" else f"t. ! queue ! webmmux ! filesink location={out} ")
                            + branches)
vp8 = pipeline.get_by_name("enc")
vp8.set_property("temporal-scalability-number-layers", 3)
vp8.set_property("temporal-scalability-periodicity", 4)
vp8.set_property("temporal-scalability-layer-id", [0, 2, 1, 2])
vp8.set_property("temporal-scalability-rate-decimator", [4, 2, 1])
vp8.set_property("temporal-scalability-target-bitrate", [kbps * 400, kbps * 600, kbps * 1000])


encoded = {"frames": 0, "bytes": 0}


def count(_pad, info):
    encoded["frames"] += 1
    encoded["bytes"] += info.get_buffer().get_size()
    return Gst.PadProbeReturn.OK


vp8.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, count)
started = time.monotonic()
pipeline.set_state(Gst.State.PLAYING)
message = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
pipeline.set_state(Gst.State.NULL)
if message.type == Gst.MessageType.ERROR:
    sys.exit(f"gst_vp8_work: {message.parse_error()[0].message}")
print(json.dumps(dict(encoded, seconds=time.monotonic() - started)))
