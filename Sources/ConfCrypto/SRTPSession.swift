internal import CSRTP
import ConfCore
import Dispatch
import Synchronization

/// libsrtp2 sessions for one link: one to protect what we send, one to check and decrypt what we
/// receive (RFC 3711; RFC 7714 for the AEAD profiles), with the profile DTLS agreed
/// (`SRTPProfile`). Not thread-safe: one owner.
public final class SRTPSession {
    public let profile: SRTPProfile
    /// Bytes SRTP adds to an RTP packet (the tag), and to an RTCP packet (index + tag).
    public var rtpOverhead: Int { profile.rtpOverhead }
    public var rtcpOverhead: Int { profile.rtcpOverhead }

    private var outbound: srtp_t?
    private var inbound: srtp_t?
    /// Received packets that failed authentication or replay checks: dropped, counted.
    public private(set) var rejected = 0

    public init(keys: SRTPKeys) throws(CryptoError) {
        profile = keys.profile
        SRTPLibrary.initialize()
        outbound = try Self.session(key: keys.local, profile: keys.profile, direction: ssrc_any_outbound)
        inbound = try Self.session(key: keys.remote, profile: keys.profile, direction: ssrc_any_inbound)
    }

    // Also runs when init throws (every stored property has a value by then).
    deinit {
        if let outbound { srtp_dealloc(outbound) }
        if let inbound { srtp_dealloc(inbound) }
    }

    private static func session(key: [UInt8], profile: SRTPProfile, direction: srtp_ssrc_type_t) throws(CryptoError) -> srtp_t? {
        let length = profile.keyLength + profile.saltLength
        guard key.count == length else {
            throw CryptoError("an SRTP master key and salt for \(profile.rawValue) are \(length) bytes, not \(key.count)")
        }
        var policy = srtp_policy_t()
        switch profile {
        case .aes128CMSHA1_80:
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction
        policy.window_size = 1024
        policy.allow_repeat_tx = 1
        var session: srtp_t?
        var material = key
        let status = material.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            return srtp_create(&session, &policy)
        }
        guard status == srtp_err_status_ok else { throw CryptoError("libsrtp2 refused the keys (error \(status.rawValue))") }
        return session
    }

    /// The SRTP packet for an RTP packet.
    public func protectRTP(_ packet: [UInt8]) -> [UInt8]? {
        protect(packet, overhead: rtpOverhead) { srtp_protect(outbound, $0, $1) }
    }

    public func protectRTCP(_ packet: [UInt8]) -> [UInt8]? {
        protect(packet, overhead: rtcpOverhead) { srtp_protect_rtcp(outbound, $0, $1) }
    }

    /// The RTP packet inside, or nil when it fails authentication or is a replay (counted).
    public func unprotectRTP(_ packet: [UInt8]) -> [UInt8]? {
        unprotect(packet) { srtp_unprotect(inbound, $0, $1) }
    }

    public func unprotectRTCP(_ packet: [UInt8]) -> [UInt8]? {
        unprotect(packet) { srtp_unprotect_rtcp(inbound, $0, $1) }
    }

    private func protect(_ packet: [UInt8], overhead: Int,
                         _ call: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: packet.count + overhead)
        buffer.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: packet) }
        var length = Int32(packet.count)
        let status = buffer.withUnsafeMutableBytes { call($0.baseAddress!, &length) }
        guard status == srtp_err_status_ok, (0...buffer.count).contains(Int(length)) else { return nil }
        buffer.removeLast(buffer.count - Int(length))  // in place: no second array
        return buffer
    }

    private func unprotect(_ packet: [UInt8], _ call: (UnsafeMutableRawPointer, UnsafeMutablePointer<Int32>) -> srtp_err_status_t) -> [UInt8]? {
        guard packet.count >= 12 else {
            rejected += 1
            return nil
        }
        var buffer = packet
        var length = Int32(packet.count)
        let status = buffer.withUnsafeMutableBytes { call($0.baseAddress!, &length) }
        guard status == srtp_err_status_ok, (0...buffer.count).contains(Int(length)) else {
            rejected += 1
            return nil
        }
        buffer.removeLast(buffer.count - Int(length))  // in place: no second array
        return buffer
    }
}

/// srtp_init once per process.
enum SRTPLibrary {
    private static let initialized = Mutex(false)

    static func initialize() {
        initialized.withLock { done in
            if !done { srtp_init() }
            done = true
        }
    }
}

extension SRTPSession {
    /// Starts libsrtp2's one-time set-up on a background thread. srtp_init runs the ciphers'
    /// self-tests, and Debian's build (NSS crypto) loads and unloads NSS for each of them: about
    /// 70-80 ms measured here. Done lazily by the first session, it stalled the event loop at the
    /// moment the first link's DTLS completed: the handshake's last flight to the peer and our
    /// first sender report waited behind it (connect time and `rtt_ms` both read ~80 ms too
    /// much on loopback). A session made before it finishes waits for it, and so does the
    /// process's exit (`ProcessExit`): NSS torn down under it crashed the process.
    public static func prepareLibrary() {
        ProcessExit.start { SRTPLibrary.initialize() }
    }
}
