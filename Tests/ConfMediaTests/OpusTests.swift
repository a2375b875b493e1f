import ConfMedia
import ConfWire
import Foundation
import Testing

@Suite struct OpusTests {
    @Test func aToneSurvivesEncodingAndDecoding() throws {
        let encoder = try OpusEncoder(), decoder = try OpusDecoder()
        let source = ToneGenerator(frequency: 440)
        var decoded: [Int16] = []
        var sizes: [Int] = []
        for _ in 0..<50 {
            let packet = try encoder.encode(source.nextFrame())
            sizes.append(packet.count)
            decoded += try #require(decoder.decode(packet))
        }
        let steady = Array(decoded.suffix(24_000))
        #expect(SignalAnalysis.tonePower(steady, frequency: 440) > 0.02)
        #expect(SignalAnalysis.tonePower(steady, frequency: 1000) < 0.001)
        let average = Double(sizes.reduce(0, +)) / Double(sizes.count)
        #expect(average > 40 && average < 120, "bytes per frame: \(average)")  // ~32 kbit/s
    }

    @Test func aLostFrameIsRecoveredFromTheNextOnesFEC() throws {
        let encoder = try OpusEncoder(), decoder = try OpusDecoder()
        let source = ToneGenerator(frequency: 600)
        var packets: [[UInt8]] = []
        for _ in 0..<30 { packets.append(try encoder.encode(source.nextFrame())) }
        for packet in packets[0..<20] { _ = decoder.decode(packet) }
        let recovered = decoder.conceal(usingNext: packets[21])  // packet 20 "lost"
        #expect(recovered.count == 960)
        #expect(SignalAnalysis.tonePower(recovered, frequency: 600) > 0.01)
        _ = decoder.decode([0xFF, 0xFF, 0xFF])  // garbage: whatever libopus makes of it, no crash
        #expect(decoder.conceal(usingNext: nil).count == 960)  // and the decoder still works
        #expect(decoder.conceal(usingNext: nil).count == 960)
    }

    /// The encoder's 20 ms packets joined three at a time by `OpusFrameJoin` (code 3): libopus
    /// decodes each joined packet to exactly the samples its three frames give one by one.
    @Test func framesJoinedIntoOnePacketDecodeAsTheyWouldOneByOne() throws {
        let encoder = try OpusEncoder()
        let joinedDecoder = try OpusDecoder(), singleDecoder = try OpusDecoder()
        let source = ToneGenerator(frequency: 440)
        var joinedPackets = 0
        for _ in 0..<30 {
            let frames = try (0..<3).map { _ in try encoder.encode(source.nextFrame()) }
            let singles = try frames.flatMap { try #require(singleDecoder.decode($0)) }
            guard let joined = OpusFrameJoin.join(frames) else {
                // The encoder changed its configuration within the three (as it settles).
                #expect(!zip(frames, frames.dropFirst()).allSatisfy { OpusFrameJoin.canJoin($0, $1) })
                for frame in frames { _ = joinedDecoder.decode(frame) }
                continue
            }
            #expect(OpusPacketDuration.samples(in: joined) == 2_880)
            #expect(try #require(joinedDecoder.decode(joined)) == singles)
            joinedPackets += 1
        }
        #expect(joinedPackets >= 25)
    }

    /// Two of the encoder's 20 ms packets joined into one code 2 packet (RFC 6716 section 3.2.3:
    /// the TOC with code 2, the first frame's length, both frames): 40 ms decoded at once.
    @Test func aPacketOfTwoFramesDecodesToFortyMilliseconds() throws {
        let encoder = try OpusEncoder(), decoder = try OpusDecoder()
        let source = ToneGenerator(frequency: 440)
        var decoded: [Int16] = [], joinedPackets = 0
        for _ in 0..<25 {
            let first = try encoder.encode(source.nextFrame()), second = try encoder.encode(source.nextFrame())
            guard first[0] == second[0], first[0] & 0x03 == 0, first.count - 1 < 252 else {
                // The encoder changed its configuration between the two (it settles in the first
                // frames): decoded one by one.
                decoded += try #require(decoder.decode(first)) + #require(decoder.decode(second))
                continue
            }
            let joined = [first[0] | 0x02, UInt8(first.count - 1)] + first.dropFirst() + second.dropFirst()
            let pcm = try #require(decoder.decode(joined))
            #expect(pcm.count == 1_920)
            decoded += pcm
            joinedPackets += 1
        }
        #expect(joinedPackets >= 20)
        #expect(SignalAnalysis.tonePower(Array(decoded.suffix(24_000)), frequency: 440) > 0.02)
        #expect(decoder.decode([0xF8 | 0x01, 1]) == nil, "code 1 with an odd length: refused, not a crash")
    }

    @Test func levelsFollowLoudness() {
        #expect(SignalAnalysis.level([Int16](repeating: 0, count: 960)) == 127)
        #expect(SignalAnalysis.level(ToneGenerator(frequency: 440).nextFrame()) < 20)
        #expect(SignalAnalysis.level([Int16](repeating: 32, count: 960)) > 55)
    }

    /// RFC 6464 section 3: -dBov of the RMS, full scale 0, rounded, at most 127.
    @Test func levelsAreTheRMSInDecibelsUnderFullScale() {
        #expect(SignalAnalysis.level([Int16](repeating: .min, count: 960)) == 0)
        #expect(SignalAnalysis.level((0..<960).map { $0 % 2 == 0 ? Int16.min : .max }) == 0)
        #expect(SignalAnalysis.level([Int16](repeating: 3277, count: 960)) == 20)  // 32768 / 10
        #expect(SignalAnalysis.level([Int16](repeating: -328, count: 48_000)) == 40)
        #expect(SignalAnalysis.level([1] + [Int16](repeating: 0, count: 959)) == 120)  // one quantum in a frame
    }
}

@Suite struct WAVTests {
    func temporary(_ name: String) -> String { FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(UUID().uuidString)-\(name)").path }

    @Test func writtenFilesReadBack() throws {
        let path = temporary("tone.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try WAVWriter(path: path)
        let tone = ToneGenerator(frequency: 300)
        var written: [Int16] = []
        for _ in 0..<100 { let f = tone.nextFrame(); written += f; try writer.append(f) }
        writer.close()
        #expect(try WAVFile.read(path: path) == written)
    }

    @Test func otherRatesAndChannelsAreConverted() throws {
        // 44.1 kHz stereo 16-bit, 1 s of 1 kHz in both channels.
        var data: [UInt8] = []
        for n in 0..<44_100 {
            let v = Int16(10_000 * sin(2 * Double.pi * 1000 * Double(n) / 44_100))
            let b = [UInt8(UInt16(bitPattern: v) & 0xFF), UInt8(UInt16(bitPattern: v) >> 8)]
            data += b + b
        }
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        var file = Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVEfmt ".utf8) + le32(16)
        file += [1, 0, 2, 0] + le32(44_100) + le32(44_100 * 4) + [4, 0, 16, 0] + Array("data".utf8) + le32(data.count) + data
        let path = temporary("stereo.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(file).write(to: URL(fileURLWithPath: path))
        let samples = try WAVFile.read(path: path)
        #expect(abs(samples.count - 48_000) <= 1)
        #expect(SignalAnalysis.tonePower(Array(samples.prefix(9600)), frequency: 1000) > 0.05)
    }

    @Test func badFilesAreClearErrors() throws {
        #expect(throws: WAVFile.Problem.self) { try WAVFile.read(path: "/nonexistent/x.wav") }
        let path = temporary("junk.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("not a wav file at all".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try WAVFile.read(path: path)
            Issue.record("accepted junk")
        } catch {
            #expect(error.description.contains("not a WAV file"))
        }
    }
}
