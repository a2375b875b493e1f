import ConfCall
import ConfCore
import ConfIO
import ConfMedia
import ConfSession
import ConfWire

/// A participant's audio devices and codec: one source and one Opus encoder whatever the number
/// of peers (the engine packetises and protects per peer); per peer, a decoder and a playback
/// stream. What goes on the wire is the engine's business (ConfCall).
///
/// Frames are taken on a 20 ms cadence kept against the monotonic clock (late ticks catch up);
/// the microphone paces itself. Threading: the event loop thread only.
final class AudioPipeline {
    /// One 20 ms frame for the engine: encoded (nil while muted or not sending) and its level.
    struct Frame {
        var opus: [UInt8]?
        var level: UInt8
        var at: Instant
    }

    private let settings: AudioSettings
    private let reporter: EventReporter
    /// A generated or file source, paced by our clock; or the microphone, paced by its own.
    private var source: AudioSource
    private var capture: PulseStream?
    private var lastDeviceCheck: Instant = .zero
    private let encoder: OpusEncoder?
    private var nextFrameAt: Instant?
    /// Where what is played out is also recorded (`--record`).
    var recordings: Recordings?
    /// While muted nothing is encoded.
    var muted = false
    /// Sounds to mix into what we send, once each (`--play`, the `play` command).
    private let mixer = SoundMixer()
    private var receivers: [ParticipantID: AudioReceiver] = [:]

    /// Mixes a WAV file into what is sent, once.
    func play(_ samples: [Int16]) { mixer.add(samples) }

    init(settings: AudioSettings, sends: Bool, reporter: EventReporter) throws(CommandFailure) {
        self.settings = settings
        self.reporter = reporter
        source = settings.makeSource() ?? SilenceSource()
        if sends && settings.enabled, case .pulse(let device) = settings.source, let pulse = settings.pulse {
            do {
                capture = try PulseStream(pulse, direction: .capture, name: "conf microphone", device: device)
            } catch {
                throw CommandFailure(.noAudioDevice, code: "no-audio-device", "\(error)")
            }
        }
        if sends && settings.enabled {
            do {
                encoder = try OpusEncoder(bitrate: settings.bitrate)
            } catch {
                throw CommandFailure(.failure, code: "opus", "cannot start the audio encoder: \(error)")
            }
        } else {
            encoder = nil  // a listener opens no source at all
        }
    }

    // MARK: Sending

    /// The frames due by `now`, encoded once for every peer.
    func frames(now: Instant) -> [Frame] {
        guard settings.enabled, let encoder else { return [] }
        if let capture {
            if now.since(lastDeviceCheck) >= .seconds(1) {
                lastDeviceCheck = now
                if capture.hasFailed {
                    reporter.emit(.deviceLost(.microphone))
                    self.capture = nil
                    return []
                }
            }
            // The microphone's clock paces sending: every complete 20 ms frame goes out.
            var frames: [Frame] = []
            var pcm = [Int16](repeating: 0, count: AudioFormat.frameSamples)
            while capture.ring.available >= AudioFormat.frameSamples {
                pcm.withUnsafeMutableBufferPointer { _ = capture.ring.read(into: $0) }
                frames.append(encode(mixer.mix(pcm), encoder: encoder, at: now))
            }
            return frames
        }
        var due = nextFrameAt ?? now
        if now.since(due) > .milliseconds(200) { due = now }  // we were suspended: do not burst
        var frames: [Frame] = []
        while now >= due {
            frames.append(encode(mixer.mix(source.nextFrame()), encoder: encoder, at: due))
            due = due + AudioFormat.frameDuration
        }
        nextFrameAt = due
        return frames
    }

    private func encode(_ pcm: [Int16], encoder: OpusEncoder, at: Instant) -> Frame {
        let level = muted ? 127 : SignalAnalysis.level(pcm)
        return Frame(opus: muted ? nil : try? encoder.encode(pcm), level: level, at: at)
    }

    // MARK: Receiving

    /// A peer's frame at its playout time: decoded (or concealed), played and recorded; returns
    /// the level played (-dBov), for the peer's talking state.
    func play(_ audio: CallEngine.ReceivedAudio, from peer: Participant, muted: Bool, at: Instant) -> UInt8? {
        guard settings.enabled else { return nil }
        let receiver = receivers[peer.id] ?? makeReceiver(for: peer)
        if let playback = receiver.playback, at.since(receiver.lastDeviceCheck) >= .seconds(1) {
            receiver.lastDeviceCheck = at
            if playback.hasFailed {
                reporter.emit(.deviceLost(.speaker(peer)))
                receiver.playback = nil
            }
        }
        let decoded: [Int16]?
        switch audio {
        case .frame(let payload): decoded = receiver.decoder?.decode(payload) ?? receiver.decoder?.conceal(usingNext: nil)
        case .lost(let next): decoded = receiver.decoder?.conceal(usingNext: next)
        }
        guard var pcm = decoded else { return nil }
        if muted { pcm = [Int16](repeating: 0, count: pcm.count) }
        recordings?.audio(pcm, from: peer, at: at)
        receiver.playback?.play(pcm)
        return SignalAnalysis.level(pcm)
    }

    private func makeReceiver(for peer: Participant) -> AudioReceiver {
        let receiver = AudioReceiver()
        receiver.decoder = try? OpusDecoder()
        if case .pulse(let device) = settings.sink, let pulse = settings.pulse {
            do {
                receiver.playback = try PulseStream(pulse, direction: .playback, name: peer.name, device: device)
            } catch {
                reporter.note("conf: cannot play \(peer.name): \(error)")
            }
        }
        receivers[peer.id] = receiver
        return receiver
    }

    /// The peer left: its playback stream closes (a restart keeps it).
    func peerLeft(_ id: ParticipantID) {
        receivers.removeValue(forKey: id)?.playback?.close()
    }

    func close() {
        capture?.close()
        for receiver in receivers.values { receiver.playback?.close() }
        receivers.removeAll()
    }
}

/// Per-peer playing state.
final class AudioReceiver {
    var decoder: OpusDecoder?
    var playback: PulseStream?
    var lastDeviceCheck: Instant = .zero
}

/// One-shot sounds mixed into outgoing frames.
final class SoundMixer {
    private var sounds: [BufferSource] = []

    func add(_ samples: [Int16]) { sounds.append(BufferSource(samples: samples)) }

    func mix(_ frame: [Int16]) -> [Int16] {
        guard !sounds.isEmpty else { return frame }
        var out = frame
        for sound in sounds {
            let extra = sound.nextFrame()
            for i in out.indices { out[i] = Int16(clamping: Int32(out[i]) + Int32(extra[i])) }
        }
        sounds.removeAll { $0.isFinished }
        return out
    }
}

