#!/usr/bin/python3
"""An independent WebRTC peer for interoperability tests: GStreamer's webrtcbin, joined to a conf
room through the rendezvous protocol (docs/PROTOCOL.md) with a minimal WebSocket client.

It joins after the conf participant, so it is the newcomer and offers (as conf's rule says). It
offers a data channel named "chat", sends one message when it opens, and prints what it receives:

    webrtcbin_peer.py HOST:PORT ROOM PIN TEXT [SECONDS [SEND_HZ EXPECT_HZ]]

With SEND_HZ and EXPECT_HZ it also offers Opus audio: it sends a SEND_HZ tone (audiotestsrc,
opusenc) and checks that what it receives (opusdec) carries EXPECT_HZ.

With --ignore-answer it plays a peer that ignores its role: whatever directions the answer
says, it applies it as a=sendrecv (so it sends its tone to a publisher that refused it).

With --opus-frame-ms=N (40, 60, 80, 100 or 120) its Opus packets hold N ms (opusenc
frame-size), as RFC 7587 allows a sender; 20 ms otherwise.

With --fingerprints=sha-384,sha-512 (any of sha-1, sha-224, sha-256, sha-384, sha-512) its offer
carries those a=fingerprint lines, computed from its real DTLS certificate, in place of
webrtcbin's single sha-256 one (RFC 8122 section 5 allows several per section).

Output lines: "JOINED <id>", "OFFERED", "ANSWERED", "ANSWER-DIRECTION <a=...>" per media section, "CHANNEL-OPEN", "RECEIVED <text>", "SENT <text>",
"HEARD <hz> <power>", "DONE" or "FAILED <why>". Exit status 0 once a message went each way (and,
with audio, the expected tone was heard).
"""
import base64, hashlib, json, math, os, socket, ssl, struct, sys, threading

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("GstSdp", "1.0")
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402


SAYING = threading.Lock()


def say(*words):
    """One whole line at a time: GStreamer calls back on its own threads, and print() writes the
    words, separators and newline apart, so two threads' lines could interleave."""
    line = " ".join(str(word) for word in words) + "\n"
    with SAYING:
        sys.stdout.write(line)
        sys.stdout.flush()


class WebSocket:
    """A blocking RFC 6455 client: enough for the rendezvous."""

    def __init__(self, host, port, path="/v1/ws"):
        self.sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("no handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(head.decode(errors="replace"))
        self.lock = threading.Lock()

    def send(self, obj):
        payload = json.dumps(obj).encode()
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536
                                  else bytes([0x80 | 127]) + struct.pack(">Q", n))
        with self.lock:
            self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def receive(self):
        while True:
            b0, b1 = self._exactly(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exactly(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exactly(8))[0]
            data = self._exactly(n)
            if b0 & 0x0F == 1:
                return json.loads(data)
            if b0 & 0x0F == 8:
                raise ConnectionError("closed by the rendezvous")


def fingerprint_lines(pem, names):
    """a=fingerprint lines for the first certificate in `pem`, one per hash function name."""
    der = ssl.PEM_cert_to_DER_cert(pem[: pem.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")])
    return ["a=fingerprint:%s %s" % (name, ":".join("%02X" % b for b in hashlib.new(name.replace("-", ""), der).digest()))
            for name in names]


def with_fingerprints(sdp, lines):
    """`sdp` with each section's a=fingerprint line replaced by `lines`."""
    out = []
    for line in sdp.split("\r\n"):
        out += lines if line.startswith("a=fingerprint:") else [line]
    return "\r\n".join(out)


def main():
    ignore_answer = "--ignore-answer" in sys.argv
    opus_frame_ms = next((int(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--opus-frame-ms=")), 20)
    fingerprints = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--fingerprints=")), None)
    argv = [a for a in sys.argv if not a.startswith("--")]
    address, room, pin, text = argv[1:5]
    seconds = float(argv[5]) if len(argv) > 5 else 20
    send_hz = float(argv[6]) if len(argv) > 7 else None
    expect_hz = float(argv[7]) if len(argv) > 7 else None
    host, port = address.split("//")[-1].rsplit(":", 1)  # ws://HOST:PORT or HOST:PORT
    Gst.init(None)
    loop = GLib.MainLoop()
    state = {"peer": None, "sent": False, "received": False, "result": 1}
    # The room in the URL: a rendezvous with several workers hands the connection to its own.
    ws = WebSocket(host, int(port), f"/v1/ws?room={room}")
    ws.send({"type": "join", "room": room, "pin": pin, "name": "webrtcbin"})
    joined = ws.receive()
    if joined.get("type") != "joined" or not joined["peers"]:
        say("FAILED", json.dumps(joined))
        return 1
    say("JOINED", joined["you"])
    state["peer"] = joined["peers"][0]["id"]

    if send_hz:
        pipe = Gst.parse_launch(
            f"audiotestsrc is-live=true wave=sine freq={send_hz} volume=0.3 ! audioconvert ! audioresample ! "
            f"audio/x-raw,rate=48000,channels=1 ! opusenc frame-size={opus_frame_ms} ! rtpopuspay pt=111 ! "
            "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000 ! webrtcbin name=webrtc")
        webrtc = pipe.get_by_name("webrtc")
    else:
        pipe = Gst.Pipeline.new("interop")
        webrtc = Gst.ElementFactory.make("webrtcbin", "webrtc")
        if webrtc is not None:
            pipe.add(webrtc)
    if webrtc is None:
        say("FAILED no webrtcbin element (install gstreamer1.0-plugins-bad and gstreamer1.0-nice)")
        return 1
    webrtc.set_property("bundle-policy", GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
    state["heard"] = expect_hz is None
    agent = webrtc.get_property("ice-agent")
    agent.emit("add-local-ip-address", "127.0.0.1")
    state["agent"] = agent  # keep it referenced (C-INTEROP.md)

    def finish(code, why=None):
        if why:
            say(why)
        state["result"] = code
        loop.quit()

    def check_done():
        if state["sent"] and state["received"] and state["heard"]:
            GLib.timeout_add(300, lambda: finish(0, "DONE"))

    def signal(payload):
        ws.send({"type": "signal", "to": state["peer"], "payload": payload})

    def on_open(channel):
        say("CHANNEL-OPEN")
        channel.emit("send-string", text)
        say("SENT", text)
        state["sent"] = True
        check_done()

    def on_message(channel, message):
        say("RECEIVED", message)
        state["received"] = True
        check_done()


    def on_offer(promise, _):
        promise.wait()
        reply = promise.get_reply()
        offer = reply.get_value("offer")
        state["offer"] = offer
        if not fingerprints:
            webrtc.emit("set-local-description", offer, Gst.Promise.new())
            signal({"type": "offer", "sdp": offer.sdp.as_text()})
            say("OFFERED")
            return
        # The certificate exists once the local description is set: send the offer from then.
        text = offer.sdp.as_text()
        webrtc.emit("set-local-description", offer, Gst.Promise.new_with_change_func(offer_with_fingerprints, text))

    def offer_with_fingerprints(_, text):
        # Kept referenced for the whole run, like the ICE agent: dropping them upset webrtcbin.
        state["sctp-transport"] = webrtc.get_property("sctp-transport")
        state["dtls-transport"] = state["sctp-transport"].get_property("transport")
        pem = state["dtls-transport"].get_property("certificate")
        if fingerprint_lines(pem, ["sha-256"])[0] not in text:
            GLib.idle_add(lambda: finish(1, "FAILED the certificate's sha-256 is not the offer's fingerprint"))
            return
        signal({"type": "offer", "sdp": with_fingerprints(text, fingerprint_lines(pem, fingerprints))})
        say("OFFERED")

    def on_negotiation_needed(element):
        # Fires when the pipeline starts (nothing to offer yet) and again once the channel exists.
        if "channel" in state and "offered" not in state:
            state["offered"] = True
            element.emit("create-offer", None, Gst.Promise.new_with_change_func(on_offer, None))

    def on_candidate(element, mline, candidate):
        signal({"type": "candidate", "mid": str(mline), "candidate": candidate})

    def on_ice_state(element, _):
        say("ICE", element.get_property("ice-connection-state").value_nick)

    webrtc.connect("on-negotiation-needed", on_negotiation_needed)
    webrtc.connect("on-ice-candidate", on_candidate)
    webrtc.connect("notify::ice-connection-state", on_ice_state)
    pipe.set_state(Gst.State.PLAYING)  # data channels can only be made once it runs
    channel = webrtc.emit("create-data-channel", "chat", None)
    channel.connect("on-open", on_open)
    channel.connect("on-message-string", on_message)
    state["channel"] = channel
    on_negotiation_needed(webrtc)

    samples = []

    def on_sample(sink):
        buffer = sink.emit("pull-sample").get_buffer()
        ok, info = buffer.map(Gst.MapFlags.READ)
        if ok:
            samples.extend(struct.unpack(f"<{info.size // 2}h", info.data))
            buffer.unmap(info)
        if not state["heard"] and len(samples) >= 24000:
            window = samples[-24000:]
            k = 2 * math.cos(2 * math.pi * expect_hz / 48000)
            s1 = s2 = 0.0
            for v in window:
                s0 = v / 32768 + k * s1 - s2
                s2, s1 = s1, s0
            power = 4 * (s1 * s1 + s2 * s2 - k * s1 * s2) / (len(window) ** 2)
            if power > 0.01:
                state["heard"] = True
                GLib.idle_add(lambda: (say("HEARD", expect_hz, round(power, 4)), check_done(), False)[-1])
        return Gst.FlowReturn.OK

    def on_pad_added(element, pad):
        if pad.direction != Gst.PadDirection.SRC or not expect_hz:
            return
        branch = Gst.parse_bin_from_description(
            "rtpopusdepay ! opusdec ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! "
            "appsink name=sink emit-signals=true sync=false", True)
        pipe.add(branch)
        branch.get_by_name("sink").connect("new-sample", on_sample)
        branch.sync_state_with_parent()
        pad.link(branch.get_static_pad("sink"))

    webrtc.connect("pad-added", on_pad_added)

    def handle(message):
        if message.get("type") != "signal":
            return False
        payload = message["payload"]
        if payload["type"] == "answer":
            text = payload["sdp"]
            directions = ("a=sendrecv", "a=sendonly", "a=recvonly", "a=inactive")
            for line in text.split("\r\n"):
                if line in directions:
                    say("ANSWER-DIRECTION", line)
            if ignore_answer:
                text = "\r\n".join("a=sendrecv" if line in directions else line for line in text.split("\r\n"))
            ok, sdp = GstSdp.SDPMessage.new_from_text(text)
            answer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, sdp)
            webrtc.emit("set-remote-description", answer, Gst.Promise.new())
            say("ANSWERED")
        elif payload["type"] == "candidate" and payload.get("candidate"):
            webrtc.emit("add-ice-candidate", 0, payload["candidate"])
        return False

    def reader():
        try:
            while True:
                message = ws.receive()
                GLib.idle_add(handle, message)
        except (ConnectionError, OSError) as error:
            GLib.idle_add(lambda: finish(1, f"FAILED rendezvous: {error}"))

    threading.Thread(target=reader, daemon=True).start()
    GLib.timeout_add(int(seconds * 1000), lambda: finish(1, "FAILED timeout"))
    loop.run()
    pipe.set_state(Gst.State.NULL)
    return state["result"]


if __name__ == "__main__":
    sys.exit(main())
