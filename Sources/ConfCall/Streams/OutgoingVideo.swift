import ConfCore
import ConfWire

/// Our video as the engine sends it, whatever the links: each encoding's frames packetised once
/// (the full one and the small one, each with its own packetiser and so its own TL0PICIDX), the
/// temporal layers each makes as its frames say, the media clock from the first capture, the key
/// frame that links which came up wait for, and what the encoders were last asked.
struct OutgoingVideo {
    /// One frame ready for the links: its payloads, its place in the layer pattern, its RTP time.
    struct Packetized {
        let payloads: [[UInt8]]
        let place: VP8FrameLayer
        /// 90 kHz from the first frame captured (RFC 7741 section 4.1).
        let mediaTime: UInt32
    }

    private var fullPacketizer = VP8Packetizer()
    private var smallPacketizer = VP8Packetizer()
    /// How many temporal layers each encoding makes (1 for `.videoFrame`), as its frames say.
    private var fullLayers = 1
    private var smallLayers = 1
    private var firstCapture: Instant?
    /// A key frame was asked for links that came up, and none has been sent since.
    private(set) var newLinkKeyFrameAsked = false
    /// While other links are being set up: when that key frame is asked at the latest.
    var newLinkKeyFrameDue: Instant?
    /// The full encoder's target last asked, and the small one's (nil while it is off).
    private var fullAsked: (kbps: Int, at: Instant)?
    private(set) var smallAsked: (kbps: Int, at: Instant)?
    /// What `.videoWanted` last said; the driver starts with the encoder on.
    var wantedSaid = true

    /// Whether any frame was captured yet (the encoder starts with a key frame).
    var hasStarted: Bool { firstCapture != nil }

    /// One encoded frame of `encoding`; `layer` nil for a stream without temporal layers.
    mutating func packetize(_ frame: [UInt8], layer: VP8FrameLayer?, encoding: VideoEncoding, captured: Instant) -> Packetized {
        let first = firstCapture ?? captured
        firstCapture = first
        let ticks = UInt32(truncatingIfNeeded: Int64(captured.since(first).milliseconds * 90))
        let payloads: [[UInt8]]
        let place: VP8FrameLayer
        if let layer {
            let layers = min(3, Int(layer.temporalLayer) + 1)
            if encoding == .small {
                smallLayers = max(smallLayers, layers)
                payloads = smallPacketizer.packetize(frame, layer: layer)
            } else {
                fullLayers = max(fullLayers, layers)
                payloads = fullPacketizer.packetize(frame, layer: layer)
            }
            place = layer
        } else {
            fullLayers = 1
            payloads = fullPacketizer.packetize(frame)
            // RFC 6386 section 9.1: bit 0 of the frame tag is clear on a key frame.
            place = VP8FrameLayer(keyFrame: frame.first.map { $0 & 1 == 0 } ?? false)
        }
        if place.keyFrame, encoding == .full {
            newLinkKeyFrameAsked = false
            newLinkKeyFrameDue = nil  // the links waiting take this one
        }
        return Packetized(payloads: payloads, place: place, mediaTime: ticks)
    }

    func layers(of encoding: VideoEncoding) -> Int {
        encoding == .small ? smallLayers : fullLayers
    }

    /// The key frame for links that came up is asked now.
    mutating func askedNewLinkKeyFrame() {
        newLinkKeyFrameDue = nil
        newLinkKeyFrameAsked = true
    }

    // MARK: The encoders' targets

    /// A new target is given only when it moved by more than this fraction, and at most this
    /// often.
    static let hysteresis = 0.1
    static let updateInterval: Duration = .seconds(1)
    /// A target under this fraction of the one last asked goes to the encoder without waiting.
    static let sharpFall = 0.85

    /// Whether the full encoder is given `kbps` now (then it is recorded as asked).
    mutating func askFull(_ kbps: Int, now: Instant) -> Bool {
        guard Self.asks(kbps, after: fullAsked, now: now) else { return false }
        fullAsked = (kbps, now)
        return true
    }

    /// The small encoding follows its links like the full one; it starts when the first link
    /// needs it (`kbps`) and stops when the last leaves it (nil). What to tell the driver, if
    /// anything: a target, or nil inside for stop.
    mutating func askSmall(_ kbps: Int?, now: Instant) -> Int?? {
        guard let kbps else {
            defer { smallAsked = nil }
            return smallAsked == nil ? nil : .some(nil)
        }
        guard Self.asks(kbps, after: smallAsked, now: now) else { return nil }
        if smallAsked == nil { smallLayers = 1 }
        smallAsked = (kbps, now)
        return .some(kbps)
    }

    /// Whether an encoder last asked for `asked` is given `kbps` now: when it moved by more than
    /// the hysteresis, at most once per `updateInterval`, and a sharp fall at once (every frame
    /// encoded at the old rate would wait in the pacer and then fill the path's queue).
    private static func asks(_ kbps: Int, after asked: (kbps: Int, at: Instant)?, now: Instant) -> Bool {
        guard let asked else { return true }
        let sharpFall = Double(kbps) < sharpFall * Double(asked.kbps)
        return (sharpFall || now.since(asked.at) >= updateInterval)
            && Double(abs(kbps - asked.kbps)) > Double(asked.kbps) * hysteresis
    }
}
