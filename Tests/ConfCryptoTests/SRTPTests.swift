import ConfCrypto
import ConfWire
import Testing

@Suite struct SRTPTests {
    static let keys = SRTPKeys(local: Array(0..<30), remote: Array(100..<130))
    static let mirrored = SRTPKeys(local: Array(100..<130), remote: Array(0..<30))
    static let rtp: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 160, 0xDE, 0xAD, 0xBE, 0xEF] + Array(repeating: 7, count: 80)
    static let rtcp: [UInt8] = [0x80, 201, 0, 1, 0xDE, 0xAD, 0xBE, 0xEF]  // an empty receiver report

    @Test func protectedPacketsRoundTripBetweenMirroredSessions() throws {
        let a = try SRTPSession(keys: Self.keys), b = try SRTPSession(keys: Self.mirrored)
        let srtp = try #require(a.protectRTP(Self.rtp))
        #expect(srtp.count == Self.rtp.count + a.rtpOverhead && a.rtpOverhead == 10 && srtp != Self.rtp)
        #expect(b.unprotectRTP(srtp) == Self.rtp)
        let srtcp = try #require(a.protectRTCP(Self.rtcp))
        #expect(b.unprotectRTCP(srtcp) == Self.rtcp)
    }

    @Test func tamperedReplayedAndForeignPacketsAreDroppedAndCounted() throws {
        let a = try SRTPSession(keys: Self.keys), b = try SRTPSession(keys: Self.mirrored)
        var srtp = try #require(a.protectRTP(Self.rtp))
        #expect(b.unprotectRTP(srtp) != nil)
        #expect(b.unprotectRTP(srtp) == nil)  // replay
        srtp[20] ^= 1
        #expect(b.unprotectRTP(try #require(a.protectRTP(Self.rtp.replacing([0, 1], with: [0, 2])))) != nil)
        let stranger = try SRTPSession(keys: SRTPKeys(local: Array(repeating: 9, count: 30), remote: Array(repeating: 8, count: 30)))
        #expect(b.unprotectRTP(try #require(stranger.protectRTP(Self.rtp.replacing([0, 1], with: [0, 3])))) == nil)
        #expect(b.unprotectRTP([0x80, 1, 2]) == nil)
        #expect(b.rejected == 3)
        #expect(throws: CryptoError.self) { try SRTPSession(keys: SRTPKeys(local: [1], remote: [2])) }
    }

    /// Each profile DTLS may agree: its key length, its tag, and packets that round-trip.
    @Test(arguments: SRTPProfile.allCases)
    func everyProfileProtectsWithItsOwnKeyLengthAndTag(_ profile: SRTPProfile) throws {
        let length = profile.keyLength + profile.saltLength
        #expect(length == ["SRTP_AEAD_AES_128_GCM": 28, "SRTP_AEAD_AES_256_GCM": 44, "SRTP_AES128_CM_SHA1_80": 30][profile.rawValue])
        let one = Array(UInt8(0)..<UInt8(length)), other = Array(UInt8(100)..<UInt8(100 + length))
        let a = try SRTPSession(keys: SRTPKeys(local: one, remote: other, profile: profile))
        let b = try SRTPSession(keys: SRTPKeys(local: other, remote: one, profile: profile))
        let srtp = try #require(a.protectRTP(Self.rtp))
        #expect(srtp.count == Self.rtp.count + profile.rtpOverhead)
        #expect(srtp[12...] != Self.rtp[12...], "the payload is encrypted")
        #expect(b.unprotectRTP(srtp) == Self.rtp)
        let srtcp = try #require(a.protectRTCP(Self.rtcp))
        #expect(srtcp.count == Self.rtcp.count + profile.rtcpOverhead)
        #expect(b.unprotectRTCP(srtcp) == Self.rtcp)
        var tampered = srtp
        tampered[tampered.count - 1] ^= 1
        #expect(b.unprotectRTP(tampered) == nil)
        #expect(throws: CryptoError.self) { try SRTPSession(keys: SRTPKeys(local: one + [0], remote: other, profile: profile)) }
    }
}
