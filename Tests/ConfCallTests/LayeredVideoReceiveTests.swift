import ConfCall
import ConfCore
import ConfWire
import Testing

/// What a receiver makes of a link that is sent only some temporal layers: each link numbers its
/// own packets, so the frames left out leave no gap, and nothing is asked for again.
@Suite struct LayeredVideoReceiveTests {
    /// 48 frames of the 3-layer stream, 700 bytes each (a key frame first), packetised once; the
    /// link's selector at `maximumLayer`; `sharedNumbering` numbers every frame's packets in the
    /// link's stream and then leaves out those of the frames not forwarded (what not to do).
    static func run(maximumLayer: UInt8, sharedNumbering: Bool) -> (sent: [[UInt8]], delivered: [[UInt8]], feedback: [RTCPPacket], dropped: Int) {
        var random = SeededRandom(seed: 5)
        var packetizer = VP8Packetizer(maximumPayload: 300)
        var link = OutboundRTPStream(ssrc: 9, payloadType: 96, marker: .lastPacketOfFrame, historyCapacity: 256, random: &random)
        var rewriter = VP8PictureIDRewriter(firstPictureID: 100)
        var selector = TemporalLayerSelector(maximumLayer: maximumLayer)
        var receiver = InboundVideoStream(localSSRC: 42)
        var sent: [[UInt8]] = [], delivered: [[UInt8]] = [], feedback: [RTCPPacket] = []
        for n in 0..<48 {
            let layer = TemporalLayerSelectorTests.frame(n)
            let data = [UInt8(layer.keyFrame ? 0x00 : 0x01)] + [UInt8](repeating: UInt8(n), count: 700)
            let payloads = packetizer.packetize(data, layer: layer)
            let forward = selector.forward(layer)
            let packets: [RTPPacket]
            if sharedNumbering {
                packets = link.packetize(payloads, mediaTime: UInt32(n) * 3000)
                guard forward else { continue }
            } else {
                guard forward else { continue }
                packets = link.packetize(rewriter.rewrite(payloads), mediaTime: UInt32(n) * 3000)
            }
            sent.append(data)
            for packet in packets {
                let received = receiver.received(packet, now: .zero + .milliseconds(Int64(n) * 33))
                delivered += received.frames.map(\.data)
                feedback += received.feedback
            }
        }
        return (sent, delivered, feedback, receiver.droppedFrames)
    }

    @Test(arguments: [(0 as UInt8, 12), (1, 24), (2, 48)])
    func aLinkThatGetsSomeLayersSeesNoLossAndAsksForNothing(maximumLayer: UInt8, frames: Int) {
        let run = Self.run(maximumLayer: maximumLayer, sharedNumbering: false)
        #expect(run.sent.count == frames && run.delivered == run.sent)
        #expect(run.feedback.isEmpty && run.dropped == 0)
    }

    @Test func cuttingFramesOutOfASharedNumberingWouldLookLikeLoss() {
        let run = Self.run(maximumLayer: 0, sharedNumbering: true)
        #expect(run.feedback.contains { if case .negativeAcknowledgement = $0 { true } else { false } })
        #expect(run.feedback.contains { if case .pictureLossIndication = $0 { true } else { false } } && run.dropped > 0)
    }
}
