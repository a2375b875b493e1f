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

    /// RFC 5764 section 4.2's layout of the exported material, byte for byte: client write key,
    /// server write key, client salt, server salt; each end's local key is its own role's.
    @Test func exportedMaterialIsSplitAsRFC5764LaysItOut() {
        let material = Array(UInt8(0)..<UInt8(56))  // AEAD_AES_128_GCM: 2 x (16 + 12)
        let client = SRTPKeys(exported: material, profile: .aeadAES128GCM, role: .client)
        let server = SRTPKeys(exported: material, profile: .aeadAES128GCM, role: .server)
        #expect(client.local == Array(0..<16) + Array(32..<44))
        #expect(client.remote == Array(16..<32) + Array(44..<56))
        #expect(server.local == client.remote && server.remote == client.local && server.profile == .aeadAES128GCM)
        let cm = SRTPKeys(exported: Array(UInt8(0)..<UInt8(60)), profile: .aes128CMSHA1_80, role: .client)
        #expect(cm.local == Array(0..<16) + Array(32..<46) && cm.remote == Array(16..<32) + Array(46..<60))
        let wide = SRTPKeys(exported: Array(UInt8(0)..<UInt8(88)), profile: .aeadAES256GCM, role: .server)
        #expect(wide.local == Array(32..<64) + Array(76..<88) && wide.remote == Array(0..<32) + Array(64..<76))
    }
}
