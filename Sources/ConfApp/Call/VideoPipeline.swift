import ConfCall
import ConfCore
import ConfIO
import Dispatch
import ConfMedia
import ConfSession
import ConfWire

/// A participant's video: one source and one VP8 encoder at the room's resolution whatever the
/// number of peers (the frame is packetised once; sequence numbers, timestamps and SRTP are per
/// peer); per peer, a frame assembler, a decoder and the recording. A peer missing a frame asks
/// for a key frame with RTCP PLI.
///
/// Threading: the event loop thread only, driven by `tick(now:links:)`.
final class VideoPipeline {
    enum Source: Equatable {
        case none, pattern
        /// A V4L2 device, like /dev/video0.
        case camera(String)
    }

    struct Settings {
        var source = Source.none
        var framesPerSecond = 15
        var bitrateKbps = 600
        var enabled = true
    }

    private let settings: Settings
    private let reporter: EventReporter
    private let encoder: BackgroundEncoder?
    private let loop: EventLoop
    /// An encoded frame back from the encoder's queue, sent on the next tick: (data, frame index).
    private var encoded: (data: [UInt8], index: UInt32)?
    private var encoding = false
    private let pattern: TestPatternSource?
    private var camera: V4L2Camera?
    /// The camera's newest picture, encoded at the next frame time.
    private var latest: VideoFrame?
    private var packetizer = VP8Packetizer()
    private var nextFrameAt: Instant?
    private var forceKeyFrame = false
    private var frameIndex: UInt32 = 0
    /// Where received frames are also recorded (`--record`).
    var recordings: Recordings?

    init(settings: Settings, sends: Bool, resolution: Resolution, loop: EventLoop, reporter: EventReporter) throws(CommandFailure) {
        self.settings = settings
        self.reporter = reporter
        self.loop = loop
        let (width, height) = resolution.size
        guard sends && settings.enabled && settings.source != .none else {
            encoder = nil
            pattern = nil
            return
        }
        do {
            encoder = BackgroundEncoder(try VP8Encoder(width: width, height: height, bitrateKbps: settings.bitrateKbps,
                                                       framesPerSecond: settings.framesPerSecond))
        } catch {
            throw CommandFailure(.failure, code: "vp8", "cannot start the video encoder: \(error)")
        }
        if case .camera(let path) = settings.source {
            pattern = nil
            do {
                let camera = try V4L2Camera(loop: loop, path: path, width: width, height: height, framesPerSecond: settings.framesPerSecond)
                camera.onFrame = { [weak self] frame in self?.latest = frame }
                camera.onLost = { [weak self] in
                    self?.reporter.emit(.object(["type": "device-lost", "device": "camera"]),
                                        human: "conf: the camera went away; no more video from you")
                    self?.camera = nil
                    self?.latest = nil
                }
                self.camera = camera
            } catch {
                throw CommandFailure(.failure, code: "no-camera", "--video-source v4l2:\(path): \(error) — check the device with v4l2-ctl --list-devices")
            }
        } else {
            pattern = TestPatternSource(width: width, height: height)
        }
    }

    /// A peer asked for a key frame (PLI).
    func keyFrameRequested() { forceKeyFrame = true }

    /// Sends what the encoder finished, and hands it the next picture when one is due.
    func tick(now: Instant, links: [PeerLink]) {
        guard settings.enabled, let encoder else { return }
        if let (data, index) = encoded {
            encoded = nil
            let payloads = packetizer.packetize(data)
            for link in links where link.phase == .connected { send(payloads, index: index, to: link) }
        }
        let interval = Duration.milliseconds(1000 / Int64(settings.framesPerSecond))
        var due = nextFrameAt ?? now
        guard now >= due else { return }
        if now.since(due) > .milliseconds(500) { due = now }
        while due <= now { due = due + interval }
        nextFrameAt = due
        // One frame at a time: while the encoder is busy, a due frame is skipped, not queued.
        guard !encoding, let picture = pattern?.nextFrame() ?? latest else { return }
        let key = forceKeyFrame
        forceKeyFrame = false
        let index = frameIndex
        frameIndex &+= 1
        encoding = true
        let pipeline = Unchecked(self)
        encoder.encode(picture, keyFrame: key) { [loop] data in
            loop.invoke {
                pipeline.value.encoding = false
                if let data { pipeline.value.encoded = (data, index) }
            }
        }
    }

    private func send(_ payloads: [[UInt8]], index: UInt32, to link: PeerLink) {
        guard let video = link.video, video.sends, let srtp = link.srtp else { return }
        let packets = link.videoOut.packetize(payloads, mediaTime: index &* UInt32(90_000 / settings.framesPerSecond))
        for datagram in srtp.protect(packets) { link.transport.send(datagram) }
    }

    /// A peer's NACK: send those packets again from the history, if they are still in it.
    func resend(_ sequences: [SequenceNumber], on link: PeerLink) {
        guard let srtp = link.srtp else { return }
        for datagram in srtp.protect(rtp: link.videoOut.resend(sequences)) { link.transport.send(datagram) }
    }

    /// A video RTP packet that passed SRTP. Returns RTCP feedback to send: a NACK for packets
    /// that went missing, a PLI when a frame could not be used.
    func received(_ packet: RTPPacket, on link: PeerLink, now: Instant) -> [RTCPPacket] {
        guard settings.enabled, let video = link.video, video.receives, packet.payloadType == video.payloadType else { return [] }
        let receiver = link.videoIn ?? makeReceiver(for: link)
        let received = receiver.stream.received(packet, now: now)
        var feedback = received.feedback
        var broken = false
        for frame in received.frames {
            if let picture = receiver.decoder?.decode(frame.data) {
                receiver.decodedFrames += 1
                receiver.lastPicture = picture
                recordings?.video(frame.data, rtpTimestamp: frame.timestamp, ssrc: packet.ssrc.rawValue, from: link.peer, at: now)
            } else {
                broken = true
            }
        }
        // A frame the decoder refused also needs a key frame (the stream rate-limits the request).
        if broken, let request = receiver.stream.keyFrameRequest(now: now) { feedback.append(request) }
        return feedback
    }

    private func makeReceiver(for link: PeerLink) -> VideoReceiver {
        let receiver = VideoReceiver(localSSRC: link.localSSRC)
        receiver.decoder = try? VP8Decoder()
        link.videoIn = receiver
        return receiver
    }

    func close(links: [PeerLink]) {
        camera?.close()
    }
}

/// Per-peer video receiving state: the stream (assembly, NACK, PLI) and its decoder.
final class VideoReceiver {
    var stream: InboundVideoStream
    var decoder: VP8Decoder?
    var decodedFrames = 0
    /// The newest decoded picture, for the terminal view.
    var lastPicture: VideoFrame?

    init(localSSRC: SSRC) { stream = InboundVideoStream(localSSRC: localSSRC) }
}

/// The VP8 encoder on its own serial queue, so that encoding (milliseconds a frame) never holds up
/// the event loop, where audio is played out and packets are moved (DESIGN.md: capture and
/// encoding of video run on their own threads). The encoder is only touched on `queue`.
final class BackgroundEncoder: @unchecked Sendable {
    private let encoder: VP8Encoder
    private let queue = DispatchQueue(label: "conf.video.encoder")

    init(_ encoder: VP8Encoder) { self.encoder = encoder }

    /// Encodes on the queue; `done` gets the frame's bytes (nil when dropped or failed), on the queue.
    func encode(_ frame: VideoFrame, keyFrame: Bool, done: @escaping @Sendable ([UInt8]?) -> Void) {
        queue.async { [self] in
            done((try? self.encoder.encode(frame, keyFrame: keyFrame))??.data)
        }
    }
}

/// Carries a loop-confined object through a @Sendable closure that runs back on the loop thread.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
