/// The SRTP protection profiles conf offers in DTLS's use_srtp extension (RFC 5764 section
/// 4.1.2), best first, as libwebrtc and Firefox offer them: the AEAD ones (RFC 7714) where the
/// peer has them, AES128_CM_SHA1_80 (the one every WebRTC endpoint must have, RFC 8827 section
/// 6.5) otherwise.
///
/// The AEAD profiles also cost less here: libsrtp2 on Debian does its crypto through NSS, which
/// sets up a context per packet for each of AES-CM and HMAC-SHA1; GCM needs one call. Measured
/// with libsrtp2 alone (bench/srtp_profiles.c; git show 20307e8:BENCHMARKS.md, "SRTP with AES-GCM"): 1.11 us
/// against 2.95 us to protect a 100-byte packet, 1.35 against 6.45 for 1,100 bytes.
public enum SRTPProfile: String, CaseIterable, Sendable {
    case aeadAES128GCM = "SRTP_AEAD_AES_128_GCM"
    case aeadAES256GCM = "SRTP_AEAD_AES_256_GCM"
    case aes128CMSHA1_80 = "SRTP_AES128_CM_SHA1_80"

    /// Profiles as `SSL_CTX_set_tlsext_use_srtp` takes them: names joined by colons.
    static func offer(_ profiles: [SRTPProfile]) -> String { profiles.map(\.rawValue).joined(separator: ":") }

    /// The master key's length (RFC 7714 section 12, RFC 5764 section 4.1.2).
    public var keyLength: Int { self == .aeadAES256GCM ? 32 : 16 }
    /// The master salt's length: 96 bits for AEAD (RFC 7714 section 12), 112 for AES-CM.
    public var saltLength: Int { self == .aes128CMSHA1_80 ? 14 : 12 }
    /// Bytes added to an RTP packet: GCM's 16-byte tag (RFC 7714 section 5), or HMAC-SHA1's 80 bits.
    public var rtpOverhead: Int { self == .aes128CMSHA1_80 ? 10 : 16 }
    /// Bytes added to an RTCP packet: the tag and the 4-byte SRTCP index (E flag included).
    public var rtcpOverhead: Int { rtpOverhead + 4 }
}
