import ConfWire
import Testing

/// The temporal-layer fields of the VP8 payload descriptor, with bytes written by hand from the
/// layout of RFC 7741 section 4.2:
///
///     |X|R|N|S|R| PID |   |I|L|T|K| RSV |   |M| PictureID |   PictureID   |   TL0PICIDX   |  |TID|Y| KEYIDX  |
@Suite struct VP8PayloadDescriptorRFCTests {
    // X=1 S=1 PID=0; I L T K; M=1 PictureID 0x1234; TL0PICIDX 0xAB; TID=2 (10) Y=1 KEYIDX=21 (10101).
    static let everyField: [UInt8] = [0b1001_0000, 0b1111_0000, 0b1001_0010, 0x34, 0xAB, 0b10_1_10101]

    @Test func everyFieldIsRead() throws {
        let (d, offset) = try #require(VP8PayloadDescriptor.parse(Self.everyField + [0x10]))
        #expect(offset == 6 && d.startOfPartition && d.partitionIndex == 0 && !d.nonReference)
        #expect(d.pictureID == 0x1234 && d.tl0PictureIndex == 0xAB && d.temporalLayer == 2 && d.layerSync && d.keyIndex == 21)
    }

    @Test func everyFieldIsWrittenInTheRFCsOrder() {
        let d = VP8PayloadDescriptor(startOfPartition: true, pictureID: 0x1234, tl0PictureIndex: 0xAB, temporalLayer: 2, layerSync: true, keyIndex: 21)
        #expect(d.bytes == Self.everyField)
        // N=1, PID=3, a frame's later packet (S=0), TID 3 without Y and K.
        let later = VP8PayloadDescriptor(nonReference: true, startOfPartition: false, partitionIndex: 3, pictureID: 1, temporalLayer: 3)
        #expect(later.bytes == [0b1010_0011, 0b1010_0000, 0x80, 0x01, 0b11_0_00000])
        #expect(VP8PayloadDescriptor.parse(later.bytes + [0])?.0 == later)
    }

    @Test func tidAndYMeanNothingWithoutTAndKeyIndexNothingWithoutK() throws {
        // T only, a 7-bit picture id: TID=1, Y=0; the KEYIDX bits are not read.
        let (t, tOffset) = try #require(VP8PayloadDescriptor.parse([0x90, 0b1010_0000, 0x05, 0b01_0_11111, 0xAA]))
        #expect(tOffset == 4 && t.pictureID == 5 && t.temporalLayer == 1 && !t.layerSync && t.keyIndex == nil && t.tl0PictureIndex == nil)
        // K only: the same byte is there, but TID and Y are not read.
        let (k, kOffset) = try #require(VP8PayloadDescriptor.parse([0x90, 0b0001_0000, 0b11_1_11111, 0xAA]))
        #expect(kOffset == 3 && k.keyIndex == 31 && k.temporalLayer == nil && !k.layerSync && k.pictureID == nil)
        // L without T breaks an RFC MUST, but the index is still read (liberal in what we accept).
        let (l, lOffset) = try #require(VP8PayloadDescriptor.parse([0x80, 0b0100_0000, 0x07, 0xAA]))
        #expect(lOffset == 3 && l.tl0PictureIndex == 7 && l.temporalLayer == nil)
    }

    @Test(arguments: [[0x80, 0x40], [0x80, 0x20], [0x80, 0x10], [0x80, 0xE0, 0x81], [0x80, 0xE0, 0x81, 0x00], [0x80, 0x70, 0x01, 0x02],
                      [0x80, 0xF0, 0x81, 0x02, 0x03, 0x04]] as [[UInt8]])
    func descriptorsThatEndBeforeTheirFieldsOrTheirDataAreRefused(_ bytes: [UInt8]) {
        #expect(VP8PayloadDescriptor.parse(bytes) == nil)
    }

    /// Also what the fuzz target checks: whatever parses writes and reads back the same fields.
    @Test func everyFirstAndControlByteParsesOrIsRefusedWithinBounds() {
        for first in 0...255 {
            for control in 0...255 {
                for tail in 0...4 {
                    let bytes = [UInt8(first), UInt8(control)] + [UInt8](repeating: 0xFF, count: tail)
                    guard let (descriptor, offset) = VP8PayloadDescriptor.parse(bytes) else { continue }
                    #expect(offset >= 1 && offset < bytes.count)
                    #expect(VP8PayloadDescriptor.parse(descriptor.bytes + [0])?.0 == descriptor)
                }
            }
        }
    }

    /// One layered frame of `size` bytes at `layer`: its packets' descriptors.
    static func descriptors(_ packetizer: inout VP8Packetizer, size: Int, layer: VP8FrameLayer) -> [VP8PayloadDescriptor] {
        packetizer.packetize([UInt8](repeating: 0x31, count: size), layer: layer).compactMap { VP8PayloadDescriptor.parse($0)?.0 }
    }

    @Test func tl0PicIdxCountsBaseFramesAndKeyIdxCountsKeyFramesBothWrapping() {
        var packetizer = VP8Packetizer(maximumPayload: 200, firstPictureID: 0x7FFE, firstTL0PictureIndex: 254, firstKeyIndex: 31)
        let layers: [UInt8] = [0, 2, 1, 2, 0, 2, 1, 2, 0]
        var frames: [[VP8PayloadDescriptor]] = []
        for (n, layer) in layers.enumerated() {
            frames.append(Self.descriptors(&packetizer, size: 450, layer: VP8FrameLayer(temporalLayer: layer, layerSync: n == 1, keyFrame: n == 0 || n == 4)))
        }
        // Each frame's packets agree; only the first has S=1.
        for packets in frames {
            #expect(packets.count == 3 && packets.map(\.startOfPartition) == [true, false, false])
            #expect(Set(packets.map { [$0.pictureID, $0.tl0PictureIndex.map(UInt16.init), $0.keyIndex.map(UInt16.init)] }).count == 1)
        }
        let first = frames.map { $0[0] }
        #expect(first.map(\.pictureID) == [0x7FFE, 0x7FFF, 0, 1, 2, 3, 4, 5, 6])
        #expect(first.map(\.temporalLayer) == layers.map { Optional($0) })
        // A higher layer's frame names the base frame before it.
        #expect(first.map(\.tl0PictureIndex) == [254, 254, 254, 254, 255, 255, 255, 255, 0])
        #expect(first.map(\.keyIndex) == [31, 31, 31, 31, 0, 0, 0, 0, 0])
        #expect(first.map(\.layerSync) == [false, true, false, false, false, false, false, false, false])
        // Six bytes of descriptor, so 194 bytes of frame each packet.
        var again = VP8Packetizer(maximumPayload: 200)
        #expect(again.packetize([UInt8](repeating: 0, count: 388), layer: VP8FrameLayer()).map(\.count) == [200, 200])
    }

    @Test func aLinksPictureIDsAreRewrittenWithoutGapsAndNothingElseChanges() throws {
        var packetizer = VP8Packetizer(maximumPayload: 100, firstPictureID: 500)
        var rewriter = VP8PictureIDRewriter(firstPictureID: 0x7FFF)
        var ids: [UInt16] = []
        for n in 0..<8 {
            let layer = VP8FrameLayer(temporalLayer: [0, 2, 1, 2][n % 4])
            let original = packetizer.packetize((0..<250).map { UInt8(truncatingIfNeeded: $0 + n) }, layer: layer)
            guard layer.temporalLayer < 2 else { continue }  // this link does not get layer 2
            let rewritten = rewriter.rewrite(original)
            for (a, b) in zip(original, rewritten) {
                let (parsed, oa) = try #require(VP8PayloadDescriptor.parse(a))
                var da = parsed
                let (db, ob) = try #require(VP8PayloadDescriptor.parse(b))
                #expect(oa == ob && a[oa...] == b[ob...])
                da.pictureID = db.pictureID
                #expect(da == db)
            }
            ids += try rewritten.map { try #require(VP8PayloadDescriptor.parse($0)?.0.pictureID) }
        }
        #expect(ids == [0x7FFF, 0x7FFF, 0x7FFF, 0, 0, 0, 1, 1, 1, 2, 2, 2])
        // Payloads without a 15-bit picture id are left alone.
        var other = VP8PictureIDRewriter()
        #expect(other.rewrite([[0x10, 0x01], [0x90, 0x80, 0x05, 0x01], [0x90]]) == [[0x10, 0x01], [0x90, 0x80, 0x05, 0x01], [0x90]])
    }
}
