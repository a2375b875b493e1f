import ConfCall
import ConfCore
import ConfIO
import ConfMedia
import ConfSession
import ConfWire

/// A participant's audio: one source and one Opus encoder whatever the number of peers (encode
/// once, packetise and protect per peer); per peer, a jitter buffer, a decoder and the sinks.
///
/// Driven by `tick(now:links:)` every few milliseconds from the event loop: frames go out and are
/// played out on a 20 ms cadence kept against the monotonic clock (late ticks catch up).
/// Threading: the event loop thread only.
final class AudioPipeline {
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
    /// While muted nothing is sent (the encoder still runs on silence-free input: no).
    var muted = false
    /// Talking changes: (participant id or nil for ourselves, talking).
    var onTalking: ((ParticipantID?, Bool) -> Void)?
    private var selfTalking = TalkingDetector()
    /// Sounds to mix into what we send, once each (`--play`, the `play` command).
    private let mixer = SoundMixer()

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

    /// Sends what is due and plays out what is due.
    func tick(now: Instant, links: [PeerLink]) {
        guard settings.enabled else { return }
        send(now: now, links: links)
        for link in links { playOut(link, now: now) }
    }

    // MARK: Sending

    private func send(now: Instant, links: [PeerLink]) {
        guard let encoder else { return }
        if let capture {
            if now.since(lastDeviceCheck) >= .seconds(1) {
                lastDeviceCheck = now
                if capture.hasFailed {
                    reporter.emit(.object(["type": "device-lost", "device": "microphone"]),
                                  human: "conf: the microphone went away; sending silence from now on")
                    self.capture = nil
                    return
                }
            }
            // The microphone's clock paces sending: every complete 20 ms frame goes out.
            var frame = [Int16](repeating: 0, count: AudioFormat.frameSamples)
            while capture.ring.available >= AudioFormat.frameSamples {
                frame.withUnsafeMutableBufferPointer { _ = capture.ring.read(into: $0) }
                encodeAndSend(mixer.mix(frame), encoder: encoder, links: links, now: now)
            }
            return
        }
        var due = nextFrameAt ?? now
        if now.since(due) > .milliseconds(200) { due = now }  // we were suspended: do not burst
        while now >= due {
            encodeAndSend(mixer.mix(source.nextFrame()), encoder: encoder, links: links, now: due)
            due = due + AudioFormat.frameDuration
        }
        nextFrameAt = due
    }

    /// Encode once, then packetise and protect for each peer. Nothing goes out while muted.
    private func encodeAndSend(_ frame: [Int16], encoder: OpusEncoder, links: [PeerLink], now: Instant) {
        let level = muted ? 127 : SignalAnalysis.level(frame)
        if let change = selfTalking.update(level: level, now: now) { onTalking?(nil, change) }
        guard !muted, let packet = try? encoder.encode(frame) else { return }
        for link in links where link.phase == .connected {
            send(packet, level: AudioLevel(voiceActivity: level < 50, level: level), to: link)
        }
    }

    private func send(_ opus: [UInt8], level: AudioLevel, to link: PeerLink) {
        guard let audio = link.audio, audio.sends, let srtp = link.srtp else { return }
        var extensions: [UInt8: [UInt8]] = [:]
        if let id = audio.audioLevelExtension { extensions[id] = level.bytes }
        let packets = link.audioOut.packetize([opus], duration: UInt32(AudioFormat.frameSamples), extensions: extensions)
        for datagram in srtp.protect(packets) { link.transport.send(datagram) }
    }

    // MARK: Receiving

    /// An RTP packet that passed SRTP on `link`.
    func received(_ packet: RTPPacket, on link: PeerLink, now: Instant) {
        guard settings.enabled, let audio = link.audio, audio.receives, packet.payloadType == audio.payloadType else { return }
        let receiver = link.audioIn ?? makeReceiver(for: link)
        receiver.stream.received(packet, now: now)
        if receiver.nextPlayoutAt == nil { receiver.nextPlayoutAt = now }
    }

    private func makeReceiver(for link: PeerLink) -> AudioReceiver {
        let receiver = AudioReceiver()
        receiver.decoder = try? OpusDecoder()
        if case .pulse(let device) = settings.sink, let pulse = settings.pulse {
            do {
                receiver.playback = try PulseStream(pulse, direction: .playback, name: link.peer.name, device: device)
            } catch {
                reporter.note("conf: cannot play \(link.peer.name): \(error)")
            }
        }
        link.audioIn = receiver
        return receiver
    }

    private func playOut(_ link: PeerLink, now: Instant) {
        guard let receiver = link.audioIn, var due = receiver.nextPlayoutAt else { return }
        if let playback = receiver.playback, now.since(receiver.lastDeviceCheck) >= .seconds(1) {
            receiver.lastDeviceCheck = now
            if playback.hasFailed {
                reporter.emit(.object(["type": "device-lost", "device": "speaker", "peer": .string(link.peer.id.rawValue)]),
                              human: "conf: the speaker for \(link.peer.name) went away; the call goes on without playing them")
                receiver.playback = nil
            }
        }
        if now.since(due) > .milliseconds(200) { due = now }
        while now >= due {
            let pcm: [Int16]?
            switch receiver.stream.pop(now: due) {
            case .waiting: pcm = nil
            case .frame(let payload): pcm = receiver.decoder?.decode(payload) ?? receiver.decoder?.conceal(usingNext: nil)
            case .lost(let next): pcm = receiver.decoder?.conceal(usingNext: next)
            }
            if var pcm {
                if link.locallyMuted { pcm = [Int16](repeating: 0, count: pcm.count) }
                if let change = link.talking.update(level: SignalAnalysis.level(pcm), now: due) { onTalking?(link.peer.id, change) }
                recordings?.audio(pcm, from: link.peer, at: due)
                receiver.playback?.play(pcm)
            }
            due = due + AudioFormat.frameDuration
        }
        receiver.nextPlayoutAt = due
    }

    /// Per-peer receive figures since the last call: what `audio-stats` reports.
    func statistics(links: [PeerLink], now: Instant) -> [JSONValue] {
        links.compactMap { link -> JSONValue? in
            guard let receiver = link.audioIn else { return nil }
            let report = receiver.stream.report(now: now)
            func round1(_ v: Double) -> JSONValue { .number((v * 10).rounded() / 10) }
            return .object([
                "peer": .string(link.peer.id.rawValue), "kbps": round1(report.kbps),
                "loss_percent": round1(report.lossPercent),
                "jitter_ms": round1(report.jitterMilliseconds),
                "buffer_ms": .number(report.bufferMilliseconds),
                "target_ms": round1(report.targetMilliseconds),
                "concealed_ms": .number(report.concealedMilliseconds),
            ])
        }
    }

    func close(links: [PeerLink]) {
        capture?.close()
        for link in links { link.audioIn?.playback?.close() }
    }
}

/// Per-peer receiving state: the stream (jitter buffer, statistics for RTCP and `audio-stats`)
/// and what plays it.
final class AudioReceiver {
    var stream = InboundAudioStream()
    var decoder: OpusDecoder?
    var playback: PulseStream?
    var lastDeviceCheck: Instant = .zero
    var nextPlayoutAt: Instant?
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

