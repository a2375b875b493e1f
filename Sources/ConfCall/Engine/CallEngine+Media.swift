import ConfCore
import ConfSession
import ConfWire

/// Audio and video through each link's RTP streams (`Link+Media`): encode once (the driver),
/// packetise and protect per peer; per peer, a jitter buffer or frame assembler, NACK and PLI.
/// Here what spans the links: our own level and talking, and the `audio-stats` report.
extension CallEngine {
    // MARK: Sending

    func sendAudio(_ opus: [UInt8]?, level: UInt8, now: Instant) {
        let heard = audioMuted ? 127 : level
        ownLevel = level
        if let change = selfTalking.update(level: heard, now: now) {
            if let me { outputs.append(.event(.talking(.you(me), talking: change))) }
        }
        if audioMuted, mutedTalking.update(level: level, now: now) == true,
           lastMutedTalkingHint.map({ now.since($0) >= Self.mutedTalkingHintInterval }) ?? true {
            lastMutedTalkingHint = now
            outputs.append(.event(.talkingWhileMuted))
        }
        guard configuration.sendsAudio else { return }
        for link in linksInOrder where link.phase == .connected {
            guard let audio = link.negotiated?.audio, audio.sends, link.srtp != nil else { continue }
            link.sendAudio(audioMuted ? nil : opus, level: level, audio: audio, now: now)
            flush(link)
        }
    }

    // MARK: Receiving

    /// PLI (the driver's decoder could not use a frame), at most one each 300 ms per link.
    func requestKeyFrame(on link: Link, now: Instant) {
        link.requestKeyFrame(now: now)
        flush(link)
    }

    /// Per-peer receive figures since the last report: `audio-stats`, for connected links only
    /// (a peer whose link ended, gone with no rendezvous left to say so, is not reported at 0).
    func reportStatistics(now: Instant) {
        var peers: [CallEvent.AudioStatistics] = []
        for link in linksInOrder where link.phase == .connected {
            guard link.audioIn != nil else { continue }
            let report = link.audioIn!.report(now: now)
            func duration(_ milliseconds: Double) -> Duration { .nanoseconds(Int64(milliseconds * 1e6)) }
            peers.append(.init(peer: link.id, kbps: report.kbps, lossPercent: report.lossPercent, jitter: duration(report.jitterMilliseconds),
                               buffered: duration(report.bufferMilliseconds), target: duration(report.targetMilliseconds),
                               concealed: duration(report.concealedMilliseconds), skipped: duration(report.skippedMilliseconds)))
        }
        if !peers.isEmpty { outputs.append(.event(.audioStats(peers))) }
    }
}
