import ConfMedia
import ConfWire
import Foundation
import Testing

@Suite struct VP8Tests {
    @Test func framesSurviveEncodingPacketizingAndDecoding() throws {
        let source = TestPatternSource(width: 640, height: 480)
        let encoder = try VP8Encoder(width: 640, height: 480, bitrateKbps: 1500)
        let decoder = try VP8Decoder()
        var packetizer = VP8Packetizer()
        var assembler = VP8FrameAssembler()
        var sequence: SequenceNumber = 1
        var psnrs: [Double] = []
        var keyFrames: [Bool] = []
        for n in 0..<30 {
            let picture = source.nextFrame()
            guard let encoded = try encoder.encode(picture, keyFrame: n == 20) else { continue }
            let (data, isKey) = (encoded.data, encoded.isKeyFrame)
            #expect(encoded.temporalLayer == 0)  // one layer: every frame is the base layer
            keyFrames.append(isKey)
            let payloads = packetizer.packetize(data)
            for (i, payload) in payloads.enumerated() {
                for frame in assembler.insert(sequence: sequence, timestamp: UInt32(n * 3000), marker: i == payloads.count - 1, payload: payload) {
                    #expect(frame.isKeyFrame == isKey)
                    let decoded = try #require(decoder.decode(frame.data))
                    #expect(decoded.width == 640 && decoded.height == 480)
                    psnrs.append(decoded.lumaPSNR(against: picture))
                }
                sequence &+= 1
            }
        }
        #expect(keyFrames.first == true && keyFrames.dropFirst().filter { $0 }.count == 1)  // the first, and the forced one
        #expect(psnrs.count >= 25)
        #expect(psnrs.suffix(10).allSatisfy { $0 > 28 }, "\(psnrs.map { Int($0) })")
    }

    @Test func garbageIsRejectedNotCrashed() throws {
        let decoder = try VP8Decoder()
        #expect(decoder.decode([]) == nil)
        #expect(decoder.decode([0x11, 0x22, 0x33]) == nil)
        #expect(decoder.decode([UInt8](repeating: 0xFF, count: 5000)) == nil)
    }

    @Test func ivfFilesCountTheirFrames() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(UUID().uuidString).ivf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try IVFWriter(path: path, width: 320, height: 240)
        try writer.append([1, 2, 3], timestamp: 0)
        try writer.append([4, 5], timestamp: 3000)
        writer.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes.prefix(4)) == Array("DKIF".utf8) && Array(bytes[8..<12]) == Array("VP80".utf8))
        #expect(bytes[24] == 2 && bytes.count == 32 + 12 + 3 + 12 + 2)
    }
}
