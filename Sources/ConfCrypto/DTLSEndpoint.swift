internal import COpenSSL
internal import CCryptoShims
import ConfCore
import ConfWire

/// SRTP master keys and salts for one link (RFC 5764 section 4.2), each the profile's key then
/// its salt (30 bytes for SRTP_AES128_CM_SHA1_80, 28 for SRTP_AEAD_AES_128_GCM).
public struct SRTPKeys: Sendable, Equatable {
    public var profile: SRTPProfile
    public var local: [UInt8]
    public var remote: [UInt8]

    public init(local: [UInt8], remote: [UInt8], profile: SRTPProfile = .aes128CMSHA1_80) {
        self.profile = profile
        self.local = local
        self.remote = remote
    }

    /// From the keying material DTLS exported for `profile` (2 x (key + salt) bytes), laid out as
    /// RFC 5764 section 4.2 says: client key | server key | client salt | server salt.
    public init(exported material: [UInt8], profile: SRTPProfile, role: DTLSRole) {
        let (key, salt) = (profile.keyLength, profile.saltLength)
        precondition(material.count == 2 * (key + salt), "keying material of \(material.count) bytes for \(profile.rawValue)")
        let client = Array(material[0..<key]) + Array(material[2 * key..<2 * key + salt])
        let server = Array(material[key..<2 * key]) + Array(material[(2 * key + salt)...])
        self.init(local: role == .client ? client : server, remote: role == .client ? server : client, profile: profile)
    }
}

/// One end of a DTLS 1.2 association (RFC 6347) with OpenSSL over memory BIOs: datagrams in,
/// datagrams out, no socket and no clock of its own (sans-IO).
///
///     start ──▶ handshaking ──peer certificate matches its SDP fingerprint──▶ connected ──▶ closed
///                    │                                                            │
///                    └──── handshake error, fingerprint mismatch, alert ─────────┴──▶ failed
///
/// OpenSSL keeps its retransmission timer in real time; `timeout` converts it to our clock after
/// each step, and `handleTimeout(now:)` is called by the owner when our clock reaches it.
/// Not thread-safe: one owner thread.
public final class DTLSEndpoint {
    public enum Output: Equatable, Sendable {
        case send([UInt8])
        /// The handshake finished and the peer proved it holds the certificate its SDP named.
        case connected(SRTPKeys)
        case applicationData([UInt8])
        case failed(String)
        /// The peer closed the association (close_notify).
        case closed
    }

    /// Largest datagram we emit; leaves room for IP, UDP and TURN headers under 1280 (IPv6 minimum MTU).
    public static let mtu = 1200
    /// The four words to read aloud (ShortAuthenticationString), once the handshake is done.
    public private(set) var sasWords: [String]?

    public let role: DTLSRole
    private let offered: [SRTPProfile]
    /// The peer's fingerprints that conf can compute, by hash function.
    private let expected: [Fingerprint.HashFunction: [Fingerprint]]
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private var outputs: [Output] = []
    private(set) public var isConnected = false
    private(set) public var hasEnded = false
    public private(set) var timeout: Instant?
    /// Whether a flight was sent again (a timer ran out): the handshake's round trip is then unknown.
    public private(set) var retransmitted = false

    /// `remoteFingerprints`: the peer's `a=fingerprint` values. Those with a hash function conf
    /// cannot compute are ignored; at least one must be left. `profiles`: the SRTP profiles
    /// offered, best first (all of them but in tests that play an older peer).
    public init(certificate: DTLSCertificate, role: DTLSRole, remoteFingerprints: [Fingerprint],
                profiles: [SRTPProfile] = SRTPProfile.allCases) throws(CryptoError) {
        self.role = role
        offered = profiles
        expected = Dictionary(grouping: remoteFingerprints.filter { $0.hashFunction != nil }) { $0.hashFunction! }
        guard !expected.isEmpty else {
            throw CryptoError("none of the peer's fingerprints uses a hash function conf can compute "
                              + "(\(Fingerprint.HashFunction.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard let context = SSL_CTX_new(DTLS_method()) else { throw .openSSL("cannot create a DTLS context") }
        self.context = context
        conf_ssl_ctx_require_dtls12(context)
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1, SSL_CTX_use_PrivateKey(context, certificate.key) == 1,
              SSL_CTX_set_tlsext_use_srtp(context, SRTPProfile.offer(profiles)) == 0
        else {
            SSL_CTX_free(context)
            throw .openSSL("cannot configure DTLS")
        }
        // Any certificate is acceptable to OpenSSL: self-signed is the norm in WebRTC. What makes
        // it trusted is its fingerprint matching the SDP, checked when the handshake completes.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            throw .openSSL("cannot create a DTLS session")
        }
        self.ssl = ssl
        incoming = BIO_new(BIO_s_mem())
        outgoing = BIO_new(BIO_s_mem())
        conf_bio_set_mem_eof_return(incoming, -1)
        conf_bio_set_mem_eof_return(outgoing, -1)
        SSL_set_bio(ssl, incoming, outgoing)
        conf_dtls_set_mtu(ssl, Self.mtu)
        conf_dtls_use_short_timer(ssl)
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs
        SSL_CTX_free(context)
    }

    /// The client sends its ClientHello; the server waits for it.
    public func start(now: Instant) {
        if role == .client { step(now: now) }
    }

    /// A datagram from the peer whose first byte says DTLS (20...63, RFC 7983).
    public func handle(datagram: [UInt8], now: Instant) {
        guard !hasEnded, !datagram.isEmpty else { return }
        retransmitIfOverdue()
        guard !hasEnded else { return }
        _ = datagram.withUnsafeBytes { BIO_write(incoming, $0.baseAddress, Int32($0.count)) }
        step(now: now)
    }

    /// A flight whose timer ran out before its answer came (the answer was slower than the timer,
    /// or our loop did not run): OpenSSL would resend it while reading the answer, in the same
    /// datagram as the next flight, and OpenSSL as the peer drops the records after an old
    /// ClientHello in a datagram: the handshake then waited for the next timer (a further 0.4-2 s,
    /// or in a simulation never). Resent here first, it goes in a datagram of its own.
    private func retransmitIfOverdue() {
        var seconds = 0, microseconds = 0
        guard !isConnected, conf_dtls_get_timeout(ssl, &seconds, &microseconds) == 1, seconds == 0, microseconds == 0 else { return }
        if conf_dtls_handle_timeout(ssl) < 0 {
            ERR_clear_error()
            return fail(Self.timedOut)
        }
        retransmitted = true
        flushOutgoing()
    }

    public func handleTimeout(now: Instant) {
        guard !hasEnded, let timeout, now >= timeout else { return }
        if conf_dtls_handle_timeout(ssl) < 0 { return fail(Self.timedOut) }
        retransmitted = true
        step(now: now)
    }

    static let timedOut = "the DTLS handshake timed out: the peer never answered"

    /// Application data (SCTP packets) to the peer, once connected.
    public func send(_ data: [UInt8]) {
        guard isConnected, !hasEnded else { return }
        _ = data.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        flushOutgoing()
    }

    /// Sends close_notify.
    public func close() {
        guard !hasEnded else { return }
        hasEnded = true
        SSL_shutdown(ssl)
        flushOutgoing()
    }

    public func pollOutput() -> Output? {
        outputs.isEmpty ? nil : outputs.removeFirst()
    }

    // MARK: -

    private func step(now: Instant) {
        if !isConnected {
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                finishHandshake()
            } else {
                let error = SSL_get_error(ssl, result)
                if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                    flushOutgoing()  // an alert for the peer, if OpenSSL wrote one
                    return fail(CryptoError.openSSL("the DTLS handshake failed").description)
                }
            }
        }
        if isConnected { readApplicationData() }
        flushOutgoing()
        updateTimeout(now: now)
    }

    private func finishHandshake() {
        guard let peer = SSL_get1_peer_certificate(ssl) else { return fail("the peer presented no certificate") }
        // RFC 8122 section 5: with several hash functions, every one conf can compute must vouch
        // for the certificate (one of its fingerprints matches: a peer may list several certificates).
        let mismatch = expected.sorted { $0.key.digestLength < $1.key.digestLength }.first { function, fingerprints in
            !fingerprints.contains { $0.bytes == DTLSCertificate.digest(of: peer, function) }
        }
        if let (function, fingerprints) = mismatch {
            let digest = Fingerprint(function, bytes: DTLSCertificate.digest(of: peer, function))
            X509_free(peer)
            return fail("the peer's DTLS certificate does not match the \(function.rawValue) fingerprint in its SDP (got \(digest.hex.prefix(23))…, "
                        + "expected \(fingerprints[0].hex.prefix(23))…): someone may be in the middle, so the link is refused")
        }
        X509_free(peer)
        guard let selected = SSL_get_selected_srtp_profile(ssl), let profile = SRTPProfile(rawValue: String(cString: selected.pointee.name)) else {
            return fail("the peer agreed to none of the SRTP profiles offered (\(SRTPProfile.offer(offered)))")
        }
        var material = [UInt8](repeating: 0, count: 2 * (profile.keyLength + profile.saltLength))
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            return fail(CryptoError.openSSL("cannot export SRTP keys").description)
        }
        // The SAS words come from this session's own exported secret (RFC 5705), not from the
        // fingerprints alone: a party in the middle holds two sessions with two different secrets,
        // so it cannot choose certificates offline to make both ends read the same words.
        var sas = [UInt8](repeating: 0, count: 32)
        let sasLabel = ShortAuthenticationString.exporterLabel
        guard SSL_export_keying_material(ssl, &sas, 32, sasLabel, sasLabel.utf8.count, nil, 0, 0) == 1 else {
            return fail(CryptoError.openSSL("cannot export the SAS secret").description)
        }
        sasWords = ShortAuthenticationString.words(exported: sas)
        isConnected = true
        outputs.append(.connected(SRTPKeys(exported: material, profile: profile, role: role)))
    }

    private func readApplicationData() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = SSL_read(ssl, &buffer, Int32(buffer.count))
            if n > 0 {
                outputs.append(.applicationData(Array(buffer[..<Int(n)])))
                continue
            }
            let error = SSL_get_error(ssl, n)
            if error == SSL_ERROR_ZERO_RETURN {
                hasEnded = true
                outputs.append(.closed)
            } else if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                ERR_clear_error()  // a bad record is dropped; DTLS tolerates loss and garbage
            }
            return
        }
    }

    /// Moves what OpenSSL wrote into datagrams of at most `mtu` bytes, cut on record boundaries.
    private func flushOutgoing() {
        let pending = Int(BIO_ctrl_pending(outgoing))
        guard pending > 0 else { return }
        var bytes = [UInt8](repeating: 0, count: pending)
        let n = BIO_read(outgoing, &bytes, Int32(pending))
        guard n > 0 else { return }
        bytes.removeSubrange(Int(n)...)
        var datagram: [UInt8] = []
        var offset = 0
        while offset + 13 <= bytes.count {
            // DTLS record header (RFC 6347 section 4.1): type, version(2), epoch(2), seq(6), length(2).
            let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
            let end = min(bytes.count, offset + 13 + length)
            if !datagram.isEmpty && datagram.count + (end - offset) > Self.mtu {
                outputs.append(.send(datagram))
                datagram = []
            }
            datagram += bytes[offset..<end]
            offset = end
        }
        if offset < bytes.count { datagram += bytes[offset...] }
        if !datagram.isEmpty { outputs.append(.send(datagram)) }
    }

    private func updateTimeout(now: Instant) {
        var seconds = 0, microseconds = 0
        if !isConnected, !hasEnded, conf_dtls_get_timeout(ssl, &seconds, &microseconds) == 1 {
            timeout = now + .seconds(seconds) + .microseconds(microseconds)
        } else {
            timeout = nil
        }
    }

    private func fail(_ reason: String) {
        guard !hasEnded else { return }
        hasEnded = true
        timeout = nil
        outputs.append(.failed(reason))
    }
}
