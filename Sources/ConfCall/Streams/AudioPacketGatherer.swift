import ConfWire

/// What a link's outgoing Opus packets hold: each of the encoder's 20 ms frames on its own, or,
/// while the link is too weak for video (paused for bandwidth), three frames joined into one
/// 60 ms packet (`OpusFrameJoin`). Each packet costs about 50 bytes of IP, UDP, RTP, header
/// extensions and SRTP, so at 16 kbit/s one-frame packets spend more on headers than on voice:
/// three frames per packet take ~40 % off the audio's share of such a link (libwebrtc's
/// frame-length controller makes the same trade), for 40 ms more delay and 60 ms lost with a
/// packet. The encoder stays one for everyone; only this link's packets change. Pure.
///
/// Only then, for now: on every weak link, senders behind one shared downlink shared it no
/// better (git show 20307e8:BENCHMARKS.md, "The shared downlink, and 60 ms packets on weak
/// links with video tried").
struct AudioPacketGatherer: Sendable {
    /// One packet to send: its Opus bytes, its length in 48 kHz samples, and the loudest of
    /// its frames' levels (RFC 6464: -dBov, 0 the loudest).
    struct Packet: Equatable, Sendable {
        var opus: [UInt8]
        var samples: UInt32
        var level: UInt8
    }

    /// The most frames a packet gets: 60 ms.
    static let mostFrames = 3
    static let frameSamples: UInt32 = 960

    /// Frames per packet now: 1, or more while the link is too weak for video and the peer plays them.
    private(set) var framesPerPacket = 1
    private var pending: [[UInt8]] = []
    private var pendingLevel: UInt8 = 127

    /// 20 ms of audio gathered and not sent yet, in 48 kHz samples (a sender report's RTP time
    /// for "now" is this far past the last packet's end).
    var pendingSamples: UInt32 { UInt32(pending.count) * Self.frameSamples }

    /// `weak`: the link's video is paused for bandwidth (`LinkLayerPolicy` has the hysteresis).
    /// `peerMaxPacketTime` is the peer's a=maxptime (RFC 8866 section 6.5): without one a peer
    /// gets one-frame packets only (conf before 2026-12 said none and played nothing longer).
    mutating func follow(weak: Bool, peerMaxPacketTime: UInt32?) {
        framesPerPacket = weak ? max(1, min(Self.mostFrames, Int(peerMaxPacketTime ?? 20) / 20)) : 1
    }

    /// The packets ready once `frame` (one encoded packet of the encoder's) is added: none while
    /// a long one is gathering, else one; two when the encoder changed its configuration (a
    /// packet's frames share their TOC byte) and what was gathered leaves on its own first.
    mutating func add(_ frame: [UInt8], level: UInt8) -> [Packet] {
        guard canGather(frame) else {
            let samples = OpusPacketDuration.samples(in: frame).map(UInt32.init) ?? Self.frameSamples
            return flush() + [Packet(opus: frame, samples: samples, level: level)]
        }
        var ready = pending.last.map { OpusFrameJoin.canJoin($0, frame) } == false ? flush() : []
        pending.append(frame)
        pendingLevel = min(pendingLevel, level)
        if pending.count >= framesPerPacket { ready += flush() }
        return ready
    }

    /// What is gathered, as one packet (when the microphone is muted, or the link goes).
    mutating func flush() -> [Packet] {
        defer { pending.removeAll(keepingCapacity: true); pendingLevel = 127 }
        guard !pending.isEmpty else { return [] }
        if let joined = OpusFrameJoin.join(pending) {
            return [Packet(opus: joined, samples: UInt32(pending.count) * Self.frameSamples, level: pendingLevel)]
        }
        return pending.map { Packet(opus: $0, samples: Self.frameSamples, level: pendingLevel) }
    }

    /// Only 20 ms one-frame packets are gathered; anything else (a peer-visible oddity of the
    /// encoder) goes out as it came.
    private func canGather(_ frame: [UInt8]) -> Bool {
        frame.first.map { $0 & 0x03 == 0 } == true && OpusPacketDuration.samples(in: frame) == Int(Self.frameSamples)
    }
}
