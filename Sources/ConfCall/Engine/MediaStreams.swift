import ConfCore
import ConfSession
import ConfWire

// TEMPORARY: the `streams` branch brings OutboundRTPStream / InboundRTPStream; these go then.

/// One outgoing RTP stream of a link.
struct OutboundStream {
    let ssrc: UInt32
    let firstSequence: UInt16
    var sequence: UInt16
    let firstTimestamp: UInt32
    var timestamp: UInt32
    var packets: UInt32 = 0
    var octets: UInt32 = 0
    private var history: [UInt16: [UInt8]] = [:]
    private var order: [UInt16] = []
    let keepsHistory: Bool
    static let historyCapacity = 512

    init<R: RandomNumberGenerator>(ssrc: UInt32, random: inout R, keepsHistory: Bool) {
        self.ssrc = ssrc
        firstSequence = UInt16.random(in: 0...UInt16.max, using: &random)
        sequence = firstSequence
        firstTimestamp = UInt32.random(in: 0...UInt32.max, using: &random)
        timestamp = firstTimestamp
        self.keepsHistory = keepsHistory
    }

    mutating func packet(payloadType: UInt8, timestamp: UInt32, marker: Bool, extensions: [UInt8: [UInt8]] = [:],
                         payload: [UInt8]) -> [UInt8] {
        let packet = RTPPacket(marker: marker, payloadType: payloadType, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc,
                               extensions: extensions, payload: payload)
        let bytes = packet.bytes
        if keepsHistory {
            if history.updateValue(bytes, forKey: sequence) == nil { order.append(sequence) }
            if order.count > Self.historyCapacity { history[order.removeFirst()] = nil }
        }
        sequence &+= 1
        packets &+= 1
        octets &+= UInt32(payload.count)
        self.timestamp = timestamp
        return bytes
    }

    func resend(_ sequence: UInt16) -> [UInt8]? { history[sequence] }
}

/// Per-peer audio reception: jitter buffer, reception statistics for RTCP and `audio-stats`.
struct AudioInbound {
    var buffer = AudioJitterBuffer()
    var reception: ReceptionStatistics?
    var bytesSinceReport = 0
    var lastReport: (at: Instant, statistics: AudioJitterBuffer.Statistics)?
    var nextPlayoutAt: Instant?
}

/// Per-peer video reception: frames assembled, losses asked for again.
struct VideoInbound {
    var assembler = VP8FrameAssembler()
    var nack = NackTracker()
    var lastKeyFrameRequest: Instant = .zero
    var ssrc: UInt32 = 0
}
