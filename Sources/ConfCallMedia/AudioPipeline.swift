import ConfCall
import ConfCore
import ConfMedia
import ConfWire

/// A participant's audio between its backends and the engine: one source and one Opus encoder
/// whatever the number of peers (the engine packetises and protects per peer); per peer, a decoder,
/// and every sink (a speaker, the recordings) gets what it decoded. What goes on the wire is the
/// engine's business (ConfCall).
///
/// The source keeps time (a device by its own clock, a generated one by ours: `AudioSource`), so
/// the caller only asks for `frames(now:)` on a short tick. A microphone that goes away is reported
/// once; silence is sent instead, so the peers keep hearing from us.
/// Threading: the event loop thread only.
public final class AudioPipeline {
    /// One 20 ms frame for the engine: encoded (nil while muted) and its level (-dBov, muted or not).
    public struct Frame: Equatable {
        public var opus: [UInt8]?
        public var level: UInt8
    }

    /// Nil for a listener: it opens no source at all.
    private var source: (any AudioSource)?
    private let encoder: OpusEncoder?
    private let sinks: [any AudioSink]
    private var decoders: [ParticipantID: OpusDecoder?] = [:]
    /// What a peer's last packet decoded to beyond its first 20 ms (packets of 40 to 120 ms),
    /// played at the jitter buffer's `.continuation`s.
    private var laterFrames: [ParticipantID: ArraySlice<Int16>] = [:]
    /// Sounds to mix into what we send, once each (`--play`, the `play` command).
    private let mixer = SoundMixer()
    /// While muted nothing is encoded.
    public var muted = false
    /// A backend stopped working; the call goes on without it.
    public var onIssue: (MediaIssue) -> Void = { _ in }

    /// `source` and `encoder` are nil when we send no audio; `sinks` get every peer's decoded audio.
    public init(source: (any AudioSource)?, encoder: OpusEncoder?, sinks: [any AudioSink]) {
        self.source = encoder == nil ? nil : source
        self.encoder = encoder
        self.sinks = sinks
    }

    /// Whether we send audio at all.
    public var sends: Bool { encoder != nil }

    /// Opus as the links allow (the engine's `.audioEncoding`), from the next frame on. DTX is
    /// left off: a silent microphone still sends a frame each 20 ms, which keeps the peers'
    /// playout, talking state and silence detection as they are.
    public func setEncoding(bitrateKbps: Int, fec: Bool, expectedLossPercent: Int) {
        guard let encoder else { return }
        try? encoder.setBitrate(bitrateKbps * 1000)
        try? encoder.setInbandFEC(fec)
        try? encoder.setExpectedLoss(percent: expectedLossPercent)
    }

    /// Mixes a sound into what is sent, once.
    public func play(_ samples: [Int16]) { mixer.add(samples) }

    // MARK: Sending

    /// The frames ready by `now`, encoded once for every peer.
    public func frames(now: Instant) -> [Frame] {
        guard let source, let encoder else { return [] }
        let frames = source.frames(now: now).map { encode(mixer.mix($0), encoder: encoder) }
        if source.isLost {
            onIssue(.microphoneLost)
            source.close()
            self.source = PacedAudioSource(SilenceGenerator())
        }
        return frames
    }

    /// When `frames(now:)` should be asked next: when the source's next frame is due, or `now`
    /// for a device that keeps its own time (ask on the caller's next short tick); nil when
    /// nothing is sent.
    public func nextFrameDue(now: Instant) -> Instant? {
        guard let source, encoder != nil else { return nil }
        return source.nextFrameDue ?? now
    }

    private func encode(_ pcm: [Int16], encoder: OpusEncoder) -> Frame {
        // The level even while muted: the engine tells you when you talk into a muted microphone.
        Frame(opus: muted ? nil : try? encoder.encode(pcm), level: SignalAnalysis.level(pcm))
    }

    // MARK: Receiving

    /// A peer's frame at its playout time: decoded (or concealed), then played and recorded by
    /// every sink; returns the level (-dBov), for the peer's talking state. `muted`: muted here
    /// (`mute-peer`), so the sinks get silence.
    public func play(_ audio: CallEngine.ReceivedAudio, from peer: Participant, muted: Bool, at: Instant) -> UInt8? {
        let decoder = decoders[peer.id] ?? (try? OpusDecoder())
        decoders[peer.id] = decoder
        let decoded: [Int16]?
        switch audio {
        case .frame(let payload):
            // A packet of several frames: its first 20 ms now, the rest at the continuations.
            let whole = decoder?.decode(payload) ?? decoder?.conceal(usingNext: nil)
            let several = (whole?.count ?? 0) > AudioFormat.frameSamples
            decoded = several ? whole.map { Array($0.prefix(AudioFormat.frameSamples)) } : whole  // no copy for one frame
            laterFrames[peer.id] = several ? whole?.dropFirst(AudioFormat.frameSamples) : nil
        case .continuation:
            let left = laterFrames[peer.id] ?? []
            decoded = left.count >= AudioFormat.frameSamples ? Array(left.prefix(AudioFormat.frameSamples)) : decoder?.conceal(usingNext: nil)
            laterFrames[peer.id] = left.dropFirst(AudioFormat.frameSamples)
        case .lost(let next):
            decoded = decoder?.conceal(usingNext: next)
            laterFrames[peer.id] = nil
        }
        guard var pcm = decoded else { return nil }
        if muted { pcm = [Int16](repeating: 0, count: pcm.count) }
        for sink in sinks {
            if let issue = sink.play(pcm, from: peer, at: at) { onIssue(issue) }
        }
        return SignalAnalysis.level(pcm)
    }

    /// The peer left: its decoder goes and the sinks close what they kept for it (a restart keeps them).
    public func peerLeft(_ id: ParticipantID) {
        decoders[id] = nil
        laterFrames[id] = nil
        for sink in sinks { sink.peerLeft(id) }
    }

    public func close() {
        source?.close()
        source = nil
        for sink in sinks { sink.close() }
        decoders.removeAll()
    }
}
