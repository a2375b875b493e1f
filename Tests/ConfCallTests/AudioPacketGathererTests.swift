@testable import ConfCall
import ConfWire
import Testing

@Suite struct AudioPacketGathererTests {
    /// One-frame packets (code 0) of CELT fullband 20 ms (TOC 0xF8, RFC 6716 section 3.1).
    static func frame(_ byte: UInt8, toc: UInt8 = 0xF8) -> [UInt8] { [toc, byte] }

    static func weak(peerMaxPacketTime: UInt32? = 120) -> AudioPacketGatherer {
        var gatherer = AudioPacketGatherer()
        gatherer.follow(weak: true, peerMaxPacketTime: peerMaxPacketTime)
        return gatherer
    }

    @Test func aStrongLinkSendsEachFrameAsItComes() {
        var gatherer = AudioPacketGatherer()
        gatherer.follow(weak: false, peerMaxPacketTime: 120)
        #expect(gatherer.add(Self.frame(1), level: 30) == [.init(opus: Self.frame(1), samples: 960, level: 30)])
        #expect(gatherer.pendingSamples == 0)
    }

    @Test func aWeakLinkSendsThreeFramesInOnePacket() {
        var gatherer = Self.weak()
        #expect(gatherer.framesPerPacket == 3)
        #expect(gatherer.add(Self.frame(1), level: 60).isEmpty)
        #expect(gatherer.add(Self.frame(2), level: 20).isEmpty)
        #expect(gatherer.pendingSamples == 1_920)
        let packets = gatherer.add(Self.frame(3), level: 90)
        // The loudest frame's level (RFC 6464: -dBov, smaller is louder).
        #expect(packets == [.init(opus: [0xF8 | 3, 3, 1, 2, 3], samples: 2_880, level: 20)])
        #expect(gatherer.pendingSamples == 0)
    }

    @Test(arguments: [(nil, 1), (20, 1), (39, 1), (40, 2), (59, 2), (60, 3), (120, 3), (UInt32.max, 3)] as [(UInt32?, Int)])
    func thePeersMaxptimeBoundsThePacket(_ maxptime: UInt32?, _ frames: Int) {
        #expect(Self.weak(peerMaxPacketTime: maxptime).framesPerPacket == frames)
    }

    @Test func aLinkThatIsNoLongerWeakGoesBackToOneFrame() {
        var gatherer = Self.weak()
        gatherer.follow(weak: false, peerMaxPacketTime: 120)
        #expect(gatherer.framesPerPacket == 1)
    }

    @Test func aNewEncoderConfigurationSendsWhatWasGatheredFirst() {
        var gatherer = Self.weak()
        _ = gatherer.add(Self.frame(1), level: 40)
        _ = gatherer.add(Self.frame(2), level: 40)
        // Hybrid fullband 20 ms (configuration 15): cannot share a TOC byte with CELT.
        let packets = gatherer.add(Self.frame(3, toc: 15 << 3), level: 40)
        #expect(packets == [.init(opus: [0xF8 | 3, 2, 1, 2], samples: 1_920, level: 40)])
        #expect(gatherer.pendingSamples == 960)
    }

    @Test func aFrameThatIsNotOneTwentyMillisecondFrameGoesAsItCame() {
        var gatherer = Self.weak()
        _ = gatherer.add(Self.frame(1), level: 40)
        let sixty: [UInt8] = [0x58, 7]  // SILK wideband 60 ms, one frame
        let packets = gatherer.add(sixty, level: 50)
        #expect(packets == [.init(opus: Self.frame(1), samples: 960, level: 40), .init(opus: sixty, samples: 2_880, level: 50)])
    }

    @Test func flushSendsWhatIsGathered() {
        var gatherer = Self.weak()
        #expect(gatherer.flush().isEmpty)
        _ = gatherer.add(Self.frame(1), level: 40)
        #expect(gatherer.flush() == [.init(opus: Self.frame(1), samples: 960, level: 40)])
        #expect(gatherer.flush().isEmpty)
    }

    /// Back to one frame per packet with two gathered: the next frame sends all three.
    @Test func leavingLongPacketsSendsTheGatheredWithTheNextFrame() {
        var gatherer = Self.weak()
        _ = gatherer.add(Self.frame(1), level: 40)
        _ = gatherer.add(Self.frame(2), level: 40)
        gatherer.follow(weak: false, peerMaxPacketTime: 120)
        #expect(gatherer.add(Self.frame(3), level: 40).map(\.samples) == [2_880])
        #expect(gatherer.add(Self.frame(4), level: 40).map(\.samples) == [960])
    }
}
