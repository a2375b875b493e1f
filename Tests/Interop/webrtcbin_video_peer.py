#!/usr/bin/python3
"""A browser-grade peer for tests and benchmarks: GStreamer's webrtcbin joins a conf room (the rendezvous
protocol, through Tests/Interop/webrtcbin_peer.py's WebSocket client) and offers Opus and VP8 with
transport-wide congestion control (the transport-cc header extension and RTCP feedback, as
browsers offer them). It sends noise (videotestsrc pattern=snow, which takes the whole VP8 target) at a fixed target (Debian's GStreamer has no
rtpgccbwe, so webrtcbin does not adapt what it sends) and counts what it receives from conf.

    webrtcbin_video_peer.py HOST:PORT ROOM PIN SECONDS SEND_KBPS

Prints one JSON line a second: {"t", "frames", "bytes"} received from conf in that second, and the
RTCP it got, as webrtcbin's session counts it; "DONE" at the end.
"""
import json, os, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webrtcbin_peer import WebSocket  # noqa: E402

import gi  # noqa: E402
gi.require_version("Gst", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstRtp", "1.0")
from gi.repository import GLib, Gst, GstRtp, GstSdp, GstWebRTC  # noqa: E402

TWCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"


SAYING = threading.Lock()


def say(obj):
    """One whole line at a time, from whichever thread (GStreamer calls back on its own)."""
    line = (obj if isinstance(obj, str) else json.dumps(obj)) + "\n"
    with SAYING:
        sys.stdout.write(line)
        sys.stdout.flush()


def main():
    address, room, pin, seconds, send_kbps = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
    host, port = address.split("//")[-1].rsplit(":", 1)  # ws://HOST:PORT or HOST:PORT
    Gst.init(None)
    loop = GLib.MainLoop()
    # The room in the URL: a rendezvous with several workers hands the connection to its own.
    ws = WebSocket(host, int(port), f"/v1/ws?room={room}")
    ws.send({"type": "join", "room": room, "pin": pin, "name": "webrtcbin"})
    joined = ws.receive()
    if joined.get("type") != "joined" or not joined["peers"]:
        say("FAILED " + json.dumps(joined))
        return 1
    peer = joined["peers"][0]["id"]
    pipe = Gst.parse_launch(
        "webrtcbin name=webrtc bundle-policy=max-bundle "
        "audiotestsrc is-live=true wave=sine freq=660 volume=0.3 ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=1 ! "
        "opusenc ! rtpopuspay name=apay pt=111 ! "
        f"application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,extmap-3={TWCC},rtcp-fb-transport-cc=true ! webrtc. "
        "videotestsrc is-live=true pattern=snow ! video/x-raw,width=640,height=480,framerate=15/1 ! "
        f"vp8enc deadline=1 target-bitrate={send_kbps * 1000} keyframe-max-dist=300 ! rtpvp8pay name=vpay pt=96 ! "
        f"application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000,extmap-3={TWCC},rtcp-fb-transport-cc=true,"
        "rtcp-fb-nack=true,rtcp-fb-nack-pli=true ! webrtc.")
    webrtc = pipe.get_by_name("webrtc")
    for name in ("apay", "vpay"):
        extension = GstRtp.RTPHeaderExtension.create_from_uri(TWCC)
        extension.set_id(3)
        pipe.get_by_name(name).emit("add-extension", extension)
    agent = webrtc.get_property("ice-agent")
    state = {"agent": agent, "frames": 0, "bytes": 0}

    def signal(payload):
        ws.send({"type": "signal", "to": peer, "payload": payload})

    def on_offer(promise, _):
        promise.wait()
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply else None
        if offer is None:
            say(f"FAILED no offer: {reply.to_string() if reply else 'no reply'}")
            GLib.idle_add(loop.quit)
            return
        webrtc.emit("set-local-description", offer, Gst.Promise.new())
        signal({"type": "offer", "sdp": offer.sdp.as_text()})
        if os.environ.get("PEER_DEBUG"):
            print(offer.sdp.as_text(), file=sys.stderr)
        say("OFFERED")

    def on_negotiation_needed(element):
        if "offered" not in state:
            state["offered"] = True
            element.emit("create-offer", None, Gst.Promise.new_with_change_func(on_offer, None))

    def on_frame(pad, info):
        buffer = info.get_buffer()
        state["frames"] += 1
        return Gst.PadProbeReturn.OK

    def on_encoded_frame(pad, info):
        state["encoded"] = state.get("encoded", 0) + 1
        return Gst.PadProbeReturn.OK

    def on_rtp(pad, info):
        state["bytes"] += info.get_buffer().get_size()
        return Gst.PadProbeReturn.OK

    def on_pad_added(element, pad):
        if pad.direction != Gst.PadDirection.SRC:
            return
        caps = pad.get_current_caps() or pad.query_caps(None)
        structure = caps.get_structure(0)
        if os.environ.get("PEER_DEBUG"):
            print("PAD", caps.to_string(), file=sys.stderr)
        media = "video" if (structure.get_string("encoding-name") or "").upper() == "VP8" or structure.get_string("media") == "video" else "audio"
        description = ("rtpvp8depay name=depay request-keyframe=true wait-for-keyframe=true ! vp8dec name=decoder ! fakesink sync=false" if media == "video"
                       else "rtpopusdepay ! opusdec ! fakesink sync=false")
        branch = Gst.parse_bin_from_description(description, True)
        pipe.add(branch)
        branch.sync_state_with_parent()
        pad.add_probe(Gst.PadProbeType.BUFFER, on_rtp)
        pad.link(branch.get_static_pad("sink"))
        if media == "video":
            branch.get_by_name("decoder").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_frame)
            branch.get_by_name("depay").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_encoded_frame)

    webrtc.connect("on-negotiation-needed", on_negotiation_needed)
    webrtc.connect("on-ice-candidate", lambda _, mline, candidate: signal({"type": "candidate", "mid": str(mline), "candidate": candidate}))
    webrtc.connect("pad-added", on_pad_added)

    def handle(message):
        if message.get("type") == "signal":
            payload = message["payload"]
            if payload["type"] == "answer":
                if os.environ.get("PEER_DEBUG"):
                    print(payload["sdp"], file=sys.stderr)
                ok, sdp = GstSdp.SDPMessage.new_from_text(payload["sdp"])
                webrtc.emit("set-remote-description", GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, sdp),
                            Gst.Promise.new())
                say("ANSWERED " + ("with transport-cc" if "transport-cc" in payload["sdp"] else "without transport-cc"))
            elif payload["type"] == "candidate" and payload.get("candidate"):
                webrtc.emit("add-ice-candidate", 0, payload["candidate"])
        return False

    def reader():
        try:
            while True:
                GLib.idle_add(handle, ws.receive())
        except (ConnectionError, OSError):
            pass

    started = time.monotonic()

    def report():
        say({"t": round(time.monotonic() - started, 1), "frames": state["frames"], "encoded": state.get("encoded", 0), "bytes": state["bytes"]})
        state["frames"] = state["bytes"] = state["encoded"] = 0
        return True

    threading.Thread(target=reader, daemon=True).start()
    pipe.set_state(Gst.State.PLAYING)
    GLib.timeout_add(1000, report)
    GLib.timeout_add(int(seconds * 1000), lambda: (say("DONE"), loop.quit()))
    loop.run()
    pipe.set_state(Gst.State.NULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
