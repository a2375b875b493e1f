import ConfMedia
import ConfWire
import Testing

/// The encoder's temporal layers (libvpx ts_* settings and per-frame reference flags), checked
/// with libvpx's own decoder: a receiver that gets only the lower layers decodes every frame it
/// gets, at a half or a quarter of the frame rate.
@Suite struct VP8TemporalLayerTests {
    static let framesPerSecond = 30

    /// `count` pictures encoded at 30 fps; the bitrate becomes `change.kbps` before picture `change.at`.
    static func encode(count: Int, layers: Int, kbps: Int, change: (at: Int, kbps: Int)? = nil) throws
        -> [(picture: VideoFrame, frame: VP8EncodedFrame?)] {
        var source = MovingPicture()
        let encoder = try VP8Encoder(width: source.width, height: source.height, bitrateKbps: kbps, framesPerSecond: framesPerSecond,
                                     temporalLayers: layers, dropsFrames: false)
        var out: [(VideoFrame, VP8EncodedFrame?)] = []
        for n in 0..<count {
            if let change, change.at == n { try encoder.setBitrate(kbps: change.kbps) }
            let picture = source.next()
            out.append((picture, try encoder.encode(picture)))
        }
        return out
    }

    @Test func threeLayersRepeatZeroTwoOneTwo() throws {
        let frames = try Self.encode(count: 24, layers: 3, kbps: 400).map { try #require($0.frame) }
        #expect(frames.map(\.temporalLayer) == Array(repeating: [0, 2, 1, 2] as [UInt8], count: 6).flatMap { $0 })
        #expect(frames.map(\.isKeyFrame) == [true] + Array(repeating: false, count: 23))
        // Sync frames (the pattern's diagram): in each cycle of 8, the first layer-2 and the first
        // layer-1 frame predict from the base layer only; the key frame syncs everything.
        let syncs = frames.indices.filter { frames[$0].layerSync }
        #expect(syncs == [0, 1, 2, 9, 10, 17, 18])
        // Layer-2 frames refresh no buffer: libvpx marks them droppable (the descriptor's N bit).
        #expect(frames.filter { $0.temporalLayer == 2 }.allSatisfy { $0.layer.discardable })
        #expect(frames.filter { $0.temporalLayer < 2 }.allSatisfy { !$0.layer.discardable })
    }

    @Test func twoLayersAlternate() throws {
        let frames = try Self.encode(count: 12, layers: 2, kbps: 400).map { try #require($0.frame) }
        #expect(frames.map(\.temporalLayer) == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
        #expect(frames.indices.filter { frames[$0].layerSync } == [0, 1, 5, 9])
    }

    @Test func otherLayerCountsAreRefused() {
        #expect(throws: VP8Error.self) { try VP8Encoder(width: 64, height: 48, temporalLayers: 4) }
        #expect(throws: VP8Error.self) { try VP8Encoder(width: 64, height: 48, temporalLayers: 0) }
    }

    /// A link that gets layers 0...`highest` only: packetised with the layer fields, its picture
    /// ids rewritten, reassembled from contiguous sequence numbers and decoded by libvpx.
    /// 96 frames of 3 layers, encoded once for the tests that cut layers out of them.
    static let threeLayers = Result { try encode(count: 96, layers: 3, kbps: 600) }

    @Test(arguments: [(0 as UInt8, 4), (1, 2), (2, 1)])
    func aLinkWithoutTheUpperLayersDecodesEveryFrameItGets(highest: UInt8, divisor: Int) throws {
        let encoded = try Self.threeLayers.get()
        var packetizer = VP8Packetizer(firstPictureID: 32_000)
        var rewriter = VP8PictureIDRewriter(firstPictureID: 7)
        var assembler = VP8FrameAssembler()
        let decoder = try VP8Decoder()
        var sequence: SequenceNumber = 65_000
        var decoded = 0
        var pictureIDs: [UInt16] = []
        var psnrs: [Double] = []
        for (picture, frame) in encoded {
            let frame = try #require(frame)
            let payloads = packetizer.packetize(frame.data, layer: frame.layer)
            guard frame.temporalLayer <= highest else { continue }
            let sent = rewriter.rewrite(payloads)
            for (i, payload) in sent.enumerated() {
                let descriptor = try #require(VP8PayloadDescriptor.parse(payload)?.0)
                #expect(descriptor.temporalLayer == frame.temporalLayer && descriptor.layerSync == frame.layerSync)
                if i == 0, let id = descriptor.pictureID { pictureIDs.append(id) }
                for complete in assembler.insert(sequence: sequence, timestamp: UInt32(decoded * 3000), marker: i == sent.count - 1, payload: payload) {
                    let image = try #require(decoder.decode(complete.data), "frame \(decoded) of layers 0...\(highest) did not decode")
                    psnrs.append(image.lumaPSNR(against: picture))
                    decoded += 1
                }
                sequence &+= 1
            }
        }
        #expect(decoded == 96 / divisor)
        #expect(pictureIDs == (0..<UInt16(decoded)).map { 7 + $0 })  // no gaps on this link
        #expect(assembler.droppedFrames == 0)
        // A decoder that referenced a frame it never got drifts into garbage (the control below
        // falls to 10-14 dB; every layer cut here stays above 23).
        #expect(psnrs.allSatisfy { $0 > 20 }, "\(psnrs.map { Int($0) })")
    }

    /// The control for the test above: the same cut made in a stream without layers (each frame
    /// predicts from the one before) leaves the decoder predicting from pictures it never got.
    @Test func theSameCutInAStreamWithoutLayersDoesNotDecodeCleanly() throws {
        let encoded = try Self.encode(count: 96, layers: 1, kbps: 600)
        let decoder = try VP8Decoder()
        var psnrs: [Double] = []
        for (n, (picture, frame)) in encoded.enumerated() where n % 4 == 0 {
            let frame = try #require(frame)
            if let image = decoder.decode(frame.data) { psnrs.append(image.lumaPSNR(against: picture)) } else { psnrs.append(0) }
        }
        #expect(psnrs.contains { $0 < 20 }, "\(psnrs.map { Int($0) })")
    }

    @Test func theLayersShareTheBitrateFortyTwentyForty() throws {
        let frames = try Self.encode(count: 150, layers: 3, kbps: 500).dropFirst(30).compactMap(\.frame)
        var bytes = [0, 0, 0]
        for frame in frames { bytes[Int(frame.temporalLayer)] += frame.data.count }
        let total = Double(bytes.reduce(0, +))
        let shares = bytes.map { Double($0) / total }
        #expect(abs(shares[0] - 0.4) < 0.12 && abs(shares[1] - 0.2) < 0.1 && abs(shares[2] - 0.4) < 0.12, "\(shares)")
        let kbps = total * 8 / 1000 / (Double(frames.count) / Double(Self.framesPerSecond))
        #expect(kbps > 500 * 0.6 && kbps < 500 * 1.3, "\(kbps) kbps")
    }

    @Test(arguments: [1, 3])
    func aNewTargetBitrateTakesEffect(layers: Int) throws {
        let frames = try Self.encode(count: 180, layers: layers, kbps: 1200, change: (at: 90, kbps: 300))
        func kbps(_ range: Range<Int>) -> Double {
            let bytes = frames[range].compactMap(\.frame).reduce(0) { $0 + $1.data.count }
            return Double(bytes) * 8 / 1000 / (Double(range.count) / Double(Self.framesPerSecond))
        }
        let before = kbps(45..<90), after = kbps(135..<180)  // the second half of each 3 s
        #expect(before > 1200 * 0.6 && before < 1200 * 1.3, "\(before) kbps before")
        #expect(after > 300 * 0.6 && after < 300 * 1.4, "\(after) kbps after")
    }
}
