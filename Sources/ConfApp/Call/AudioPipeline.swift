import ConfCore
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
    private let source: AudioSource
    private let encoder: OpusEncoder?
    private var nextFrameAt: Instant?
    private var usedRecordingNames: Set<String> = []

    init(settings: AudioSettings, sends: Bool, reporter: EventReporter) throws(CommandFailure) {
        self.settings = settings
        self.reporter = reporter
        source = settings.makeSource()
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
        var due = nextFrameAt ?? now
        if now.since(due) > .milliseconds(200) { due = now }  // we were suspended: do not burst
        while now >= due {
            let frame = source.nextFrame()
            let level = AudioLevel(voiceActivity: SignalAnalysis.level(frame) < 50, level: SignalAnalysis.level(frame))
            if let packet = try? encoder.encode(frame) {
                for link in links where link.phase == .connected { send(packet, level: level, to: link) }
            }
            due = due + AudioFormat.frameDuration
        }
        nextFrameAt = due
    }

    private func send(_ opus: [UInt8], level: AudioLevel, to link: PeerLink) {
        guard let audio = link.audio, audio.sends, let srtp = link.srtp else { return }
        var extensions: [UInt8: [UInt8]] = [:]
        if let id = audio.audioLevelExtension { extensions[id] = level.bytes }
        let packet = RTPPacket(marker: link.audioOut.sequence == link.audioOut.firstSequence, payloadType: audio.payloadType,
                               sequenceNumber: link.audioOut.sequence, timestamp: link.audioOut.timestamp, ssrc: link.localSSRC,
                               extensions: extensions, payload: opus)
        link.audioOut.sequence &+= 1
        link.audioOut.timestamp &+= UInt32(AudioFormat.frameSamples)
        if let protected = srtp.protectRTP(packet.bytes) { link.transport.send(protected) }
    }

    // MARK: Receiving

    /// An RTP packet that passed SRTP on `link`.
    func received(_ packet: RTPPacket, on link: PeerLink, now: Instant) {
        guard settings.enabled, let audio = link.audio, audio.receives, packet.payloadType == audio.payloadType else { return }
        let receiver = link.audioIn ?? makeReceiver(for: link)
        receiver.buffer.insert(sequence: packet.sequenceNumber, timestamp: packet.timestamp, payload: packet.payload, arrival: now)
        if receiver.nextPlayoutAt == nil { receiver.nextPlayoutAt = now }
    }

    private func makeReceiver(for link: PeerLink) -> AudioReceiver {
        let receiver = AudioReceiver()
        receiver.decoder = try? OpusDecoder()
        if let directory = settings.recordDirectory {
            var name = recordingName(for: link.peer)
            if usedRecordingNames.contains(name) { name += "-\(link.peer.id)" }
            usedRecordingNames.insert(name)
            let path = directory + "/" + name + ".wav"
            do {
                receiver.recorder = try WAVWriter(path: path)
            } catch {
                reporter.note("conf: cannot record \(link.peer.name): \(error)")
            }
        }
        link.audioIn = receiver
        return receiver
    }

    /// A file name from a participant's name: no slashes, no leading dots, no control characters.
    private func recordingName(for peer: Participant) -> String {
        let cleaned = String(peer.name.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar.properties.generalCategory == .control ? "_" : Character(scalar)
        }).drop { $0 == "." }
        return cleaned.isEmpty ? peer.id.rawValue : String(cleaned)
    }

    private func playOut(_ link: PeerLink, now: Instant) {
        guard let receiver = link.audioIn, var due = receiver.nextPlayoutAt else { return }
        if now.since(due) > .milliseconds(200) { due = now }
        while now >= due {
            let pcm: [Int16]?
            switch receiver.buffer.pop(now: due) {
            case .waiting: pcm = nil
            case .frame(let payload): pcm = receiver.decoder?.decode(payload) ?? receiver.decoder?.conceal(usingNext: nil)
            case .lost(let next): pcm = receiver.decoder?.conceal(usingNext: next)
            }
            if let pcm { receiver.recorder?.append(pcm) }
            due = due + AudioFormat.frameDuration
        }
        receiver.nextPlayoutAt = due
    }

    /// Finishes recordings.
    func close(links: [PeerLink]) {
        for link in links { link.audioIn?.recorder?.close() }
    }
}

/// Per-peer receiving state.
final class AudioReceiver {
    var buffer = AudioJitterBuffer()
    var decoder: OpusDecoder?
    var recorder: WAVWriter?
    var nextPlayoutAt: Instant?
}

/// Per-peer sending state: the RTP sequence and timestamp of this link's audio stream.
struct RTPSenderState {
    let firstSequence: UInt16
    var sequence: UInt16
    var timestamp: UInt32

    init<R: RandomNumberGenerator>(random: inout R) {
        firstSequence = UInt16.random(in: 0...UInt16.max, using: &random)
        sequence = firstSequence
        timestamp = UInt32.random(in: 0...UInt32.max, using: &random)
    }
}
