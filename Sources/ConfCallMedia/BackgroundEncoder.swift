import ConfCore
import ConfMedia
import Dispatch

/// A VP8 encoder on its own serial queue, so that encoding (milliseconds a frame) never holds up
/// the event loop, where audio is played out and packets are moved (DESIGN.md: capture and
/// encoding of video run on their own threads). The encoder is only touched on `queue`.
final class BackgroundEncoder: @unchecked Sendable {
    private let encoder: VP8Encoder
    private let queue = DispatchQueue(label: "conf.video.encoder")

    init(_ encoder: VP8Encoder) { self.encoder = encoder }

    /// The size it encodes (constants of the encoder: safe to read from any thread).
    var width: Int { encoder.width }
    var height: Int { encoder.height }

    /// Encodes on the queue; `done` gets the frame and its layer (nil when dropped or failed), on the queue.
    /// A picture of another size is scaled to the encoder's first, on the queue (the small encoding).
    /// `capturedAt`: when the picture was taken (the encoder's rate control spaces its bits by it;
    /// nil: one nominal interval after the last).
    func encode(_ frame: VideoFrame, keyFrame: Bool, capturedAt: Instant?, done: @escaping @Sendable (VP8EncodedFrame?) -> Void) {
        queue.async { [self] in
            let picture = frame.width == width && frame.height == height ? frame : PixelConversion.scaled(frame, width: width, height: height)
            done((try? self.encoder.encode(picture, keyFrame: keyFrame, capturedAt: capturedAt)) ?? nil)
        }
    }

    /// A new target bitrate, from the next frame the queue encodes on; a refusal leaves the old one.
    func setBitrate(kbps: Int) {
        queue.async { [self] in try? self.encoder.setBitrate(kbps: kbps) }
    }
}

/// Carries a loop-confined object through a @Sendable closure that runs back on the loop thread.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
