import ConfCore
import ConfCrypto
import ConfWire
import Testing
@testable import ConfCall

/// Hands out the values it is given, in turn: a stream's first sequence number and timestamp.
struct ScriptedRandom: RandomNumberGenerator {
    var values: [UInt64]
    mutating func next() -> UInt64 { values.isEmpty ? 0 : values.removeFirst() }
}

/// Protection that tests can read: a tag byte in front; refuses packets whose payload starts with 0xFF.
final class TaggingProtector: RTPProtector {
    func protectRTP(_ packet: [UInt8]) -> [UInt8]? { packet.last == 0xFF ? nil : [0xAA] + packet }
    func protectRTCP(_ packet: [UInt8]) -> [UInt8]? { [0xBB] + packet }
    func unprotectRTP(_ packet: [UInt8]) -> [UInt8]? { packet.first == 0xAA ? Array(packet.dropFirst()) : nil }
    func unprotectRTCP(_ packet: [UInt8]) -> [UInt8]? { packet.first == 0xBB ? Array(packet.dropFirst()) : nil }
    var rtpOverhead: Int { 1 }
}

@Suite struct OutboundRTPStreamTests {
    static func stream(_ marker: OutboundRTPStream.Marker, sequence: UInt16, timestamp: UInt32, history: Int = 0) throws -> OutboundRTPStream {
        var random = ScriptedRandom(values: [UInt64(sequence), UInt64(timestamp)])
        let stream = OutboundRTPStream(ssrc: 77, payloadType: 111, marker: marker, historyCapacity: history, random: &random)
        try #require(stream.firstSequence == SequenceNumber(sequence) && stream.firstTimestamp == timestamp)
        return stream
    }

    @Test func audioSequenceWrapsAndTimestampsAdvanceByTheFrame() throws {
        var audio = try Self.stream(.firstPacket, sequence: 65_534, timestamp: 0xFFFF_FC40)
        #expect(audio.senderInfo == nil)
        var sent: [RTPPacket] = []
        for n in 0..<4 { sent += audio.packetize([[UInt8(n), 1, 2]], duration: 960, extensions: [1: [0x85]]) }
        #expect(sent.map(\.sequenceNumber) == [65_534, 65_535, 0, 1])
        #expect(sent.map(\.timestamp) == [0xFFFF_FC40, 0, 960, 1920])  // the 32-bit timestamp wraps too
        #expect(sent.map(\.marker) == [true, false, false, false])  // the first packet only
        #expect(sent.allSatisfy { $0.ssrc == 77 && $0.payloadType == 111 && $0.extensions == [1: [0x85]] })
        let info = try #require(audio.senderInfo)
        #expect(info.packets == 4 && info.octets == 12 && info.rtpTimestamp == 2880)
        #expect(audio.resend([65_535]).isEmpty)  // audio keeps no history
    }

    @Test func videoMarksTheLastPacketOfEachFrameAndStampsItsMediaTime() throws {
        var video = try Self.stream(.lastPacketOfFrame, sequence: 100, timestamp: 5_000, history: 16)
        video.payloadType = 96  // negotiated later than the stream was made
        let first = video.packetize([[1], [2], [3]], mediaTime: 0)
        let third = video.packetize([[4], [5]], mediaTime: 2 * 6_000)  // frame 1 was never encoded
        #expect((first + third).map(\.sequenceNumber) == [100, 101, 102, 103, 104])  // no gap for the skipped frame
        #expect(first.map(\.marker) == [false, false, true] && third.map(\.marker) == [false, true])
        #expect(first.allSatisfy { $0.timestamp == 5_000 } && third.allSatisfy { $0.timestamp == 17_000 })
        #expect((first + third).allSatisfy { $0.payloadType == 96 })
    }

    @Test func resendComesFromTheHistoryUntilEvicted() throws {
        var video = try Self.stream(.lastPacketOfFrame, sequence: 65_533, timestamp: 0, history: 4)
        let sent = (0..<6).flatMap { video.packetize([[UInt8($0)]], mediaTime: UInt32($0) * 3_000) }  // 65533 ... 2
        #expect(video.resend([65_535, 0, 2]) == [sent[2].bytes, sent[3].bytes, sent[5].bytes])
        #expect(video.resend([65_533, 65_534]).isEmpty)  // evicted: nothing to send
        #expect(video.resend([3, 40_000]).isEmpty)  // never sent
        #expect(video.resend([1, 1]) == [sent[4].bytes, sent[4].bytes])
    }

    @Test func protectionLeavesOutWhatItRefuses() throws {
        var video = try Self.stream(.lastPacketOfFrame, sequence: 1, timestamp: 0, history: 8)
        let packets = video.packetize([[1], [0xFF], [3]], mediaTime: 0)
        let protector = TaggingProtector()
        let datagrams = protector.protect(packets)
        #expect(datagrams == [[0xAA] + packets[0].bytes, [0xAA] + packets[2].bytes])
        #expect(protector.protect(rtp: video.resend([1, 2])) == [[0xAA] + packets[0].bytes])
        #expect(video.packetsSent == 3)  // a refused packet still used its sequence number
    }

    @Test func srtpSessionIsAProtector() throws {
        let key = (0..<30).map { UInt8($0) }, other = (0..<30).map { UInt8(100 + $0) }
        let ours: any RTPProtector = try SRTPSession(keys: SRTPKeys(local: key, remote: other))
        let theirs: any RTPProtector = try SRTPSession(keys: SRTPKeys(local: other, remote: key))
        var audio = try Self.stream(.firstPacket, sequence: 9, timestamp: 9)
        let packet = audio.packetize([[1, 2, 3]], duration: 960)
        let datagram = try #require(ours.protect(packet).first)
        #expect(theirs.unprotectRTP(datagram).flatMap { RTPPacket(bytes: $0) } == packet.first)
        #expect(theirs.unprotectRTP(datagram) == nil)  // a replay
    }
}

@Suite struct InboundRTPStreamTests {
    static func at(_ ms: Int64) -> Instant { Instant.zero + .milliseconds(1_000 + ms) }

    static func packet(_ sequence: UInt16, timestamp: UInt32 = 0, marker: Bool = false, ssrc: SSRC = 5, payload: [UInt8]) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 96, sequenceNumber: SequenceNumber(sequence), timestamp: timestamp, ssrc: ssrc, payload: payload)
    }

    /// A 20 ms Opus packet (TOC 0xF8: CELT fullband 20 ms, one frame; RFC 6716 section 3.1) with
    /// one byte of "frame" to tell packets apart.
    static func opus(_ byte: UInt8) -> [UInt8] { [0xF8, byte] }

    @Test func audioIsReorderedAndDuplicatesDropped() {
        var audio = InboundAudioStream()
        var outcomes: [AudioJitterBuffer.Insert?] = []
        for (k, sequence) in [65_535, 1, 0, 1].enumerated() {
            let timestamp = UInt32((Int(sequence) + 1) % 65_536 * 960)
            outcomes.append(audio.received(Self.packet(UInt16(sequence), timestamp: timestamp, payload: Self.opus(UInt8(sequence & 0xFF))),
                                           now: Self.at(Int64(k))))
        }
        #expect(outcomes == [.accepted, .accepted, .accepted, .duplicate] as [AudioJitterBuffer.Insert?])
        var played: [[UInt8]] = []
        for tick in 0..<6 {
            if case .frame(let payload) = audio.pop(now: Self.at(60 + Int64(tick) * 20)) { played.append(payload) }
        }
        #expect(played == [Self.opus(0xFF), Self.opus(0), Self.opus(1)])  // in sequence order across the wrap
        #expect(audio.reception?.ssrc == 5 && audio.reception?.cumulativeLost == -1)  // the duplicate counts as received (RFC 3550 A.3)
        let report = audio.report(now: Self.at(1_000))
        #expect(report.lossPercent == 0 && report.kbps > 0)
        #expect(audio.report(now: Self.at(2_000)).kbps == 0)  // a new window: nothing came since
    }

    /// A stall's burst leaves the buffer frames ahead; what it gives back is reported, apart from
    /// what it concealed.
    @Test func audioGivenBackIsReportedAsSkipped() {
        var audio = InboundAudioStream()
        var reported: [InboundAudioStream.Report] = []
        // 10 s of packets 5 ms on the way, but those sent in the first 300 ms held until then:
        // the playout starts with 15 frames queued.
        let arrivals = (0..<495).map { k in (sequence: k, at: Int64(k * 20 < 300 ? 300 : k * 20 + 5)) }
        func padding(_ k: Int) -> [UInt8] { [UInt8](repeating: 0, count: k % 5 == 0 ? 0 : 30) }  // one in five small, as a pause in speech
        var next = 0
        for tick in 0..<500 {
            let now = Int64(tick) * 20 + 10
            while next < arrivals.count, arrivals[next].at <= now {
                let k = arrivals[next].sequence
                _ = audio.received(Self.packet(UInt16(k), timestamp: UInt32(k * 960), payload: Self.opus(UInt8(k & 0xFF)) + padding(k)),
                                   now: Self.at(arrivals[next].at))
                next += 1
            }
            _ = audio.pop(now: Self.at(now))
            if tick % 100 == 99 { reported.append(audio.report(now: Self.at(now))) }
        }
        let skipped = reported.map(\.skippedMilliseconds).reduce(0, +)
        #expect(skipped >= 200 && skipped == Double(audio.buffer.statistics.skipped) * 20, "\(reported.map(\.skippedMilliseconds))")
    }

    @Test func aNewSSRCStartsTheStatisticsOver() {
        var audio = InboundAudioStream()
        audio.received(Self.packet(10, ssrc: 5, payload: Self.opus(1)), now: Self.at(0))
        audio.received(Self.packet(30_000, ssrc: 6, payload: Self.opus(1)), now: Self.at(20))
        #expect(audio.reception?.ssrc == 6 && audio.reception?.expected == 1)
    }

    /// A one-packet VP8 frame: the payload descriptor (S=1, partition 0), then the frame's two
    /// bytes [0x01 (a delta frame), byte].
    static func vp8(_ byte: UInt8) -> [UInt8] { [0x10, 0x01, byte] }

    @Test func videoAsksForAGapAndNotAgainForAPacketThatWasOnlyReordered() {
        var video = InboundVideoStream(localSSRC: 42)
        #expect(video.received(Self.packet(100, timestamp: 0, marker: true, payload: Self.vp8(0)), now: Self.at(0)).feedback.isEmpty)
        // 101 and 102 are late; 103 shows the gap: both asked for at once.
        let gap = video.received(Self.packet(103, timestamp: 9_000, marker: true, payload: Self.vp8(3)), now: Self.at(10))
        #expect(gap.feedback == [.negativeAcknowledgement(sender: 42, media: 5, lost: [101, 102])])
        // 101 was only reordered and arrives; 102 stays lost: only 102 is asked for again, a round trip later.
        #expect(video.received(Self.packet(101, timestamp: 3_000, marker: true, payload: Self.vp8(1)), now: Self.at(20)).feedback.isEmpty)
        let retry = video.received(Self.packet(104, timestamp: 12_000, marker: true, payload: Self.vp8(4)), now: Self.at(120))
        #expect(retry.feedback.first == .negativeAcknowledgement(sender: 42, media: 5, lost: [102]))
    }

    @Test func framesComeOutInOrderAndAGivenUpFrameAsksForAKeyFrame() {
        var video = InboundVideoStream(localSSRC: 42)
        #expect(video.received(Self.packet(10, timestamp: 0, marker: true, payload: Self.vp8(0)), now: Self.at(0)).frames.count == 1)
        // Frame 11 never comes; frame 12 waits behind the gap for the assembler's patience.
        let waiting = video.received(Self.packet(12, timestamp: 6_000, marker: true, payload: Self.vp8(2)), now: Self.at(10))
        #expect(waiting.frames.isEmpty && waiting.feedback == [.negativeAcknowledgement(sender: 42, media: 5, lost: [11])])
        let given = video.received(Self.packet(13, timestamp: 9_000, marker: true, payload: Self.vp8(3)), now: Self.at(200))
        #expect(given.frames.map(\.data) == [[0x01, 2], [0x01, 3]])
        #expect(given.feedback.contains(.pictureLossIndication(sender: 42, media: 5)) && video.droppedFrames == 1)
    }

    @Test func keyFrameRequestsAreRateLimited() {
        let clock = ManualClock(Self.at(0))
        var video = InboundVideoStream(localSSRC: 42)
        #expect(video.keyFrameRequest(now: clock.now()) == nil)  // no stream yet: nobody to ask
        _ = video.received(Self.packet(1, marker: true, payload: Self.vp8(1)), now: clock.now())
        #expect(video.keyFrameRequest(now: clock.now()) == .pictureLossIndication(sender: 42, media: 5))
        clock.advance(by: .milliseconds(299))
        #expect(video.keyFrameRequest(now: clock.now()) == nil)
        clock.advance(by: .milliseconds(1))
        #expect(video.keyFrameRequest(now: clock.now()) == .pictureLossIndication(sender: 42, media: 5))
        #expect(video.keyFrameRequest(now: clock.now()) == nil)
    }

    @Test func aNackedPacketIsSentAgainAndItsFrameCompletes() throws {
        var random = SeededRandom(seed: 3)
        var sender = OutboundRTPStream(ssrc: 5, payloadType: 96, marker: .lastPacketOfFrame, historyCapacity: 64, random: &random)
        var receiver = InboundVideoStream(localSSRC: 42)
        var packetizer = VP8Packetizer(maximumPayload: 100)
        let frames = (0..<4).map { n in [UInt8(n == 0 ? 0x00 : 0x01)] + [UInt8](repeating: UInt8(n), count: 250) }
        var delivered: [[UInt8]] = []
        var feedback: [RTCPPacket] = []
        for (n, frame) in frames.enumerated() {
            let packets = sender.packetize(packetizer.packetize(frame), mediaTime: UInt32(n) * 6_000)
            for (i, packet) in packets.enumerated() where !(n == 1 && i == 1) {  // the network loses one
                let received = receiver.received(packet, now: Self.at(Int64(n) * 66))
                delivered += received.frames.map(\.data)
                feedback += received.feedback
            }
        }
        #expect(delivered == [frames[0]])  // frame 1 is incomplete; 2 and 3 wait behind it
        // Asked for at once, and again a round trip later (frame 3 came 132 ms after): the same packet.
        let nacks = feedback.compactMap { packet -> [SequenceNumber]? in
            guard case .negativeAcknowledgement(42, 5, let lost) = packet else { return nil }
            return lost
        }
        #expect(nacks.count == 2 && nacks.count == feedback.count && nacks[0] == nacks[1])
        let lost = try #require(nacks.first)
        for bytes in sender.resend(lost) {
            let received = receiver.received(try #require(RTPPacket(bytes: bytes)), now: Self.at(220))
            delivered += received.frames.map(\.data)
            #expect(received.feedback.isEmpty)  // no key frame needed
        }
        #expect(delivered == frames && receiver.droppedFrames == 0)
    }
}
