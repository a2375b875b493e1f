import ConfCall
import ConfCore
import ConfCrypto
import ConfWire

/// A stand-in for DTLS on the simulated network's clock. OpenSSL keeps its retransmission timer in
/// real time, so under virtual time a lost flight of the real one is never sent again; this one
/// has the same flights and retransmissions as a DTLS 1.2 handshake (RFC 6347 §4.2.4), driven by
/// `now`:
///
///     client: Hello ─────────▶ server         (Hello again each timeout until answered)
///             ◀──── ServerHello (fingerprint)
///             Finished (fingerprint) ─▶        (again each timeout until ServerFinished)
///             ◀──── ServerFinished            server connected when it sends it; client when it gets it
///
/// Records start with 22 (handshake, RFC 7983's DTLS range); keys and words come from both randoms.
/// Real SRTP is used over its keys.
final class FakeDTLS: DTLSConnection {
    private enum Kind: UInt8 { case hello = 1, serverHello, finished, serverFinished, data, close }

    let role: DTLSRole
    private let local: Fingerprint
    private let remote: Fingerprint
    private let localRandom: [UInt8]
    private var remoteRandom: [UInt8]?
    private(set) var isConnected = false
    private(set) var timeout: Instant?
    private var interval: Duration = .milliseconds(400)
    private var retransmissions = 0
    var retransmitted: Bool { retransmissions > 0 }
    private var pending: [UInt8]?
    private var ended = false
    private var outputs: [DTLSEndpoint.Output] = []

    init(role: DTLSRole, local: Fingerprint, remote: Fingerprint, random: [UInt8]) {
        self.role = role
        self.local = local
        self.remote = remote
        localRandom = random
    }

    var sasWords: [String]? {
        guard isConnected, let remoteRandom else { return nil }
        let (client, server) = role == .client ? (localRandom, remoteRandom) : (remoteRandom, localRandom)
        return (0..<4).map { "w\(client[$0] ^ server[$0])" }
    }

    func start(now: Instant) {
        guard role == .client else { return }
        flight(record(.hello, localRandom), now: now)
    }

    func handle(datagram: [UInt8], now: Instant) {
        guard !ended, datagram.count >= 2, datagram[0] == 22, let kind = Kind(rawValue: datagram[1]) else { return }
        let body = Array(datagram[2...])
        switch (role, kind) {
        case (.server, .hello) where body.count == 16:
            remoteRandom = body
            emit(record(.serverHello, localRandom + local.bytes))
        case (.client, .serverHello) where body.count >= 16 && !isConnected:
            guard Array(body[16...]) == remote.bytes else { return fail("fingerprint mismatch") }
            remoteRandom = Array(body[..<16])
            flight(record(.finished, local.bytes), now: now)
        case (.server, .finished):
            guard body == remote.bytes, remoteRandom != nil else { return fail("fingerprint mismatch") }
            emit(record(.serverFinished, []))
            connect()
        case (.client, .serverFinished) where pending != nil && remoteRandom != nil:
            pending = nil
            timeout = nil
            connect()
        case (_, .data) where isConnected:
            outputs.append(.applicationData(body))
        case (_, .close):
            ended = true
            timeout = nil
            outputs.append(.closed)
        default:
            break
        }
    }

    func handleTimeout(now: Instant) {
        guard let timeout, now >= timeout, let pending, !ended else { return }
        retransmissions += 1
        guard retransmissions <= 12 else { return fail("the DTLS handshake timed out: the peer never answered") }
        interval = min(interval * 2, .seconds(2))
        self.timeout = now + interval
        emit(pending)
    }

    func send(_ data: [UInt8]) {
        if isConnected && !ended { emit(record(.data, data)) }
    }

    func close() {
        guard !ended else { return }
        ended = true
        timeout = nil
        emit(record(.close, []))
    }

    func pollOutput() -> DTLSEndpoint.Output? { outputs.isEmpty ? nil : outputs.removeFirst() }

    private func connect() {
        guard !isConnected, let remoteRandom else { return }
        isConnected = true
        let (client, server) = role == .client ? (localRandom, remoteRandom) : (remoteRandom, localRandom)
        // AES-GCM's 28 bytes of key and salt, as two conf peers agree it (SRTPProfile).
        let clientKey = Array((client + server + client).prefix(28)), serverKey = Array((server + client + server).prefix(28))
        outputs.append(.connected(role == .client ? SRTPKeys(local: clientKey, remote: serverKey, profile: .aeadAES128GCM)
                                                  : SRTPKeys(local: serverKey, remote: clientKey, profile: .aeadAES128GCM)))
    }

    private func flight(_ bytes: [UInt8], now: Instant) {
        pending = bytes
        interval = .milliseconds(400)
        timeout = now + interval
        emit(bytes)
    }

    private func emit(_ bytes: [UInt8]) { outputs.append(.send(bytes)) }

    private func record(_ kind: Kind, _ body: [UInt8]) -> [UInt8] { [22, kind.rawValue] + body }

    private func fail(_ reason: String) {
        ended = true
        timeout = nil
        outputs.append(.failed(reason))
    }
}

/// Fake DTLS with real SRTP: for runs on the simulated network where flights get lost.
final class FakeSecurity: LinkSecurity {
    let fingerprint: Fingerprint
    private var random: SeededRandom

    init(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        fingerprint = Fingerprint(bytes: (0..<32).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        self.random = random
    }

    struct NoFingerprint: Error {}

    func makeDTLS(role: DTLSRole, remoteFingerprints: [Fingerprint]) throws -> any DTLSConnection {
        guard let remote = remoteFingerprints.first else { throw NoFingerprint() }
        return FakeDTLS(role: role, local: fingerprint, remote: remote, random: (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    func makeSRTP(keys: SRTPKeys) throws -> any RTPProtector { try SRTPSession(keys: keys) }
}
