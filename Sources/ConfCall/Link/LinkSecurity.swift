import ConfCore
import ConfCrypto
import ConfWire

/// DTLS for one link, as the engine drives it: bytes and time in, outputs drained. ConfCrypto's
/// `DTLSEndpoint` (OpenSSL over memory BIOs) is the real one; tests may use it or a fake.
public protocol DTLSConnection: AnyObject {
    var role: DTLSRole { get }
    var isConnected: Bool { get }
    /// Whether any flight of the handshake was sent again: then no round trip is measured from it
    /// (Karn's rule: an answer cannot be matched to the copy it answers).
    var retransmitted: Bool { get }
    /// When `handleTimeout` is due (a retransmission), if a flight is outstanding.
    var timeout: Instant? { get }
    /// The words both sides read aloud, once connected.
    var sasWords: [String]? { get }
    func start(now: Instant)
    func handle(datagram: [UInt8], now: Instant)
    func handleTimeout(now: Instant)
    /// Application data (SCTP packets of the data channels).
    func send(_ data: [UInt8])
    func close()
    func pollOutput() -> DTLSEndpoint.Output?
}

extension DTLSEndpoint: DTLSConnection {}

/// SRTP for one link: nil from any of these means the packet failed (authentication, replay, a
/// malformed header) and is dropped.
public protocol RTPProtector: AnyObject {
    func protectRTP(_ packet: [UInt8]) -> [UInt8]?
    func protectRTCP(_ packet: [UInt8]) -> [UInt8]?
    func unprotectRTP(_ packet: [UInt8]) -> [UInt8]?
    func unprotectRTCP(_ packet: [UInt8]) -> [UInt8]?
    /// Bytes protection adds to an RTP packet (the profile's tag).
    var rtpOverhead: Int { get }
}

extension SRTPSession: RTPProtector {}

/// What makes each link's crypto: the participant's certificate, DTLS and SRTP.
public protocol LinkSecurity {
    var fingerprint: Fingerprint { get }
    func makeDTLS(role: DTLSRole, remoteFingerprints: [Fingerprint]) throws -> any DTLSConnection
    func makeSRTP(keys: SRTPKeys) throws -> any RTPProtector
}

/// The real thing: one self-signed certificate for every link of the participant.
public struct CertificateSecurity: LinkSecurity {
    public let certificate: DTLSCertificate
    public init(certificate: DTLSCertificate) { self.certificate = certificate }
    public var fingerprint: Fingerprint { certificate.fingerprint }

    public func makeDTLS(role: DTLSRole, remoteFingerprints: [Fingerprint]) throws -> any DTLSConnection {
        try DTLSEndpoint(certificate: certificate, role: role, remoteFingerprints: remoteFingerprints)
    }

    public func makeSRTP(keys: SRTPKeys) throws -> any RTPProtector { try SRTPSession(keys: keys) }
}
