import ConfCore
import ConfMedia

/// `--audio-source pulse[:NAME]`: the microphone, paced by its own clock. PulseAudio's thread fills
/// the capture stream's ring; `frames(now:)` takes every complete 20 ms frame out of it. Whether
/// the device is still there is asked once a second (it takes the main loop's lock).
/// Threading: the event loop thread only.
public final class PulseAudioSource: AudioSource {
    private var stream: PulseStream?
    private var lastDeviceCheck: Instant?
    public private(set) var isLost = false

    /// `device`: a PulseAudio source name, or nil for the default one.
    public init(_ connection: PulseConnection, device: String?) throws(PulseError) {
        stream = try PulseStream(connection, direction: .capture, name: "conf microphone", device: device)
    }

    public func frames(now: Instant) -> [[Int16]] {
        guard let stream else { return [] }
        if lastDeviceCheck.map({ now.since($0) >= .seconds(1) }) ?? true {
            lastDeviceCheck = now
            if stream.hasFailed {
                isLost = true
                close()
                return []
            }
        }
        var frames: [[Int16]] = []
        var pcm = [Int16](repeating: 0, count: AudioFormat.frameSamples)
        while stream.ring.available >= AudioFormat.frameSamples {
            pcm.withUnsafeMutableBufferPointer { _ = stream.ring.read(into: $0) }
            frames.append(pcm)
        }
        return frames
    }

    public func close() {
        stream?.close()
        stream = nil
    }
}
