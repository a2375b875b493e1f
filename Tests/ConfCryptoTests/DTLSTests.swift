import ConfCore
import Foundation
import ConfCrypto
import ConfWire
import Testing

/// Two DTLS endpoints handshaking in memory, datagrams moved by hand.
@Suite struct DTLSTests {
    static let alice = try! DTLSCertificate()
    static let bob = try! DTLSCertificate()

    /// Moves datagrams both ways until neither side has anything to say; returns what else came out.
    @discardableResult
    static func pump(_ a: DTLSEndpoint, _ b: DTLSEndpoint, now: Instant = .zero, drop: (Int) -> Bool = { _ in false })
        -> (a: [DTLSEndpoint.Output], b: [DTLSEndpoint.Output])
    {
        var seen: (a: [DTLSEndpoint.Output], b: [DTLSEndpoint.Output]) = ([], [])
        var count = 0
        var moved = true
        while moved {
            moved = false
            while let out = a.pollOutput() {
                moved = true
                if case .send(let datagram) = out {
                    count += 1
                    if !drop(count) { b.handle(datagram: datagram, now: now) }
                } else { seen.a.append(out) }
            }
            while let out = b.pollOutput() {
                moved = true
                if case .send(let datagram) = out {
                    count += 1
                    if !drop(count) { a.handle(datagram: datagram, now: now) }
                } else { seen.b.append(out) }
            }
        }
        return seen
    }

    @Test func handshakeExportsMatchingSRTPKeys() throws {
        let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint])
        let server = try DTLSEndpoint(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint])
        client.start(now: .zero)
        let seen = Self.pump(client, server)
        guard case .connected(let clientKeys)? = seen.a.first, case .connected(let serverKeys)? = seen.b.first else {
            Issue.record("not connected: \(seen)")
            return
        }
        #expect(clientKeys.local == serverKeys.remote && clientKeys.remote == serverKeys.local)
        // Both offer AES-GCM first (RFC 7714): 16 bytes of key and 12 of salt each way.
        #expect(clientKeys.profile == .aeadAES128GCM && serverKeys.profile == .aeadAES128GCM)
        #expect(clientKeys.local.count == 28 && clientKeys.local != clientKeys.remote)
        #expect(client.isConnected && server.isConnected)

        client.send(Array("over DTLS".utf8))
        let data = Self.pump(client, server)
        #expect(data.b == [.applicationData(Array("over DTLS".utf8))])
    }

    /// A peer that offers less (an older conf, or an endpoint without AEAD) gets what both have,
    /// with that profile's key lengths; keys from either end protect for the other.
    @Test(arguments: [([SRTPProfile.aes128CMSHA1_80], SRTPProfile.aes128CMSHA1_80, 30),
                      ([.aeadAES256GCM, .aes128CMSHA1_80], .aeadAES256GCM, 44)])
    func anOlderPeerGetsAProfileBothHave(_ offered: [SRTPProfile], _ agreed: SRTPProfile, _ keyBytes: Int) throws {
        for peerIsClient in [true, false] {
            let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint],
                                          profiles: peerIsClient ? offered : SRTPProfile.allCases)
            let server = try DTLSEndpoint(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint],
                                          profiles: peerIsClient ? SRTPProfile.allCases : offered)
            client.start(now: .zero)
            let seen = Self.pump(client, server)
            guard case .connected(let clientKeys)? = seen.a.first, case .connected(let serverKeys)? = seen.b.first else {
                Issue.record("not connected: \(seen)")
                return
            }
            #expect(clientKeys.profile == agreed && serverKeys.profile == agreed && clientKeys.local.count == keyBytes)
            let rtp: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 160, 1, 2, 3, 4] + Array(repeating: 5, count: 40)
            let packet = try #require(try SRTPSession(keys: clientKeys).protectRTP(rtp))
            #expect(try SRTPSession(keys: serverKeys).unprotectRTP(packet) == rtp)
        }
    }

    @Test func datagramsStayUnderTheMTU() throws {
        let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint])
        let server = try DTLSEndpoint(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint])
        client.start(now: .zero)
        var sizes: [Int] = []
        var moved = true
        while moved {
            moved = false
            while case .send(let d)? = client.pollOutput() { moved = true; sizes.append(d.count); server.handle(datagram: d, now: .zero) }
            while case .send(let d)? = server.pollOutput() { moved = true; sizes.append(d.count); client.handle(datagram: d, now: .zero) }
        }
        #expect(!sizes.isEmpty && sizes.allSatisfy { $0 <= DTLSEndpoint.mtu })
    }

    @Test func aCertificateThatDoesNotMatchTheSDPIsRefused() throws {
        let mallory = try DTLSCertificate()
        let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint])
        let server = try DTLSEndpoint(certificate: mallory, role: .server, remoteFingerprints: [Self.alice.fingerprint])
        client.start(now: .zero)
        let seen = Self.pump(client, server)
        guard case .failed(let reason)? = seen.a.first else { Issue.record("accepted: \(seen.a)"); return }
        #expect(reason.contains("does not match the sha-256 fingerprint"))
        #expect(!client.isConnected)
    }

    @Test func lostFlightsAreRetransmittedOnTimeout() throws {
        let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint])
        let server = try DTLSEndpoint(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint])
        client.start(now: .zero)
        Self.pump(client, server, drop: { $0 == 1 })  // the ClientHello is lost
        #expect(!client.isConnected)
        let deadline = try #require(client.timeout)
        #expect(deadline > .zero && deadline <= .zero + .seconds(2))
        // OpenSSL's own timer runs in real time: poll until it has expired there too (about 1 s).
        var retransmitted: [UInt8]?
        let start = ContinuousClock.now
        while retransmitted == nil, ContinuousClock.now - start < .seconds(3) {
            client.handleTimeout(now: .zero + (ContinuousClock.now - start))
            if case .send(let datagram)? = client.pollOutput() { retransmitted = datagram } else { usleep(10_000) }
        }
        server.handle(datagram: try #require(retransmitted), now: deadline)
        Self.pump(client, server)
        #expect(client.isConnected && server.isConnected)
    }

    /// The server's first flight comes after the client's retransmission timer (400 ms, in real
    /// time) ran out: a slow path, or a loop that did not run. OpenSSL resent the ClientHello
    /// while reading that flight, and our packing put it in one datagram with the client's next
    /// flight; OpenSSL as the server answered nothing to that datagram, and the handshake waited
    /// for the next timer (0.8-2 s more; in a simulated call it never came). The overdue flight
    /// now goes in a datagram of its own first, and the handshake completes at once.
    @Test func aFlightAnsweredAfterItsTimerRanOutStillCompletesAtOnce() throws {
        let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint])
        let server = try DTLSEndpoint(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint])
        client.start(now: .zero)
        usleep(500_000)  // OpenSSL's timer runs in real time: the stimulus is real time passing
        let seen = Self.pump(client, server)
        #expect(client.isConnected && server.isConnected, "client \(seen.a), server \(seen.b)")
        #expect(client.timeout == nil && server.timeout == nil)
        #expect(client.retransmitted && !server.retransmitted, "the ClientHello went twice: no round trip is measured from it")
    }

    @Test func garbageIsDroppedWithoutHarm() throws {
        let client = try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [Self.bob.fingerprint])
        let server = try DTLSEndpoint(certificate: Self.bob, role: .server, remoteFingerprints: [Self.alice.fingerprint])
        var random = SeededRandom(seed: 3)
        for length in [1, 13, 25, 200, 1500] {
            var junk = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            junk[0] = 22  // looks like a handshake record
            server.handle(datagram: junk, now: .zero)
        }
        _ = server.pollOutput()
        client.start(now: .zero)
        Self.pump(client, server)
        #expect(client.isConnected && server.isConnected)
        client.send([1, 2, 3])
        for length in [1, 13, 40, 500] { server.handle(datagram: [23] + (1..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }, now: .zero) }
        let after = Self.pump(client, server)
        #expect(after.b.contains(.applicationData([1, 2, 3])))
        #expect(!after.b.contains { if case .failed = $0 { true } else { false } })
    }
}


@Suite struct SASTests {
    static func handshake(_ a: DTLSCertificate, _ b: DTLSCertificate) throws -> (client: DTLSEndpoint, server: DTLSEndpoint) {
        let client = try DTLSEndpoint(certificate: a, role: .client, remoteFingerprints: [b.fingerprint])
        let server = try DTLSEndpoint(certificate: b, role: .server, remoteFingerprints: [a.fingerprint])
        client.start(now: .zero)
        DTLSTests.pump(client, server)
        return (client, server)
    }

    @Test func bothEndsOfOneSessionReadTheSameFourWords() throws {
        let (client, server) = try Self.handshake(DTLSTests.alice, DTLSTests.bob)
        let words = try #require(client.sasWords)
        #expect(words.count == 4)
        #expect(server.sasWords == words)
    }

    /// A party in the middle runs one session with each end: even with the very same certificates,
    /// two sessions give two sets of words (2^-32 chance of a match per live try), so the words
    /// cannot be matched by choosing certificates offline.
    @Test func anotherSessionReadsOtherWords() throws {
        let first = try Self.handshake(DTLSTests.alice, DTLSTests.bob)
        var differing = 0
        for _ in 0..<4 {
            let other = try Self.handshake(DTLSTests.alice, DTLSTests.bob)
            if other.client.sasWords != first.client.sasWords { differing += 1 }
        }
        #expect(differing == 4)
        #expect(ShortAuthenticationString.words(exported: [1] + [UInt8](repeating: 0, count: 31))
                != ShortAuthenticationString.words(exported: [UInt8](repeating: 0, count: 32)))
    }

    /// The words a browser's link reads (from both fingerprints and both revealed secrets): the
    /// same whichever end computes them, other for another certificate or secret, and the value
    /// of an independent computation (Python's hashlib over the same bytes and word list).
    @Test func fingerprintWordsAreSymmetricAndKnown() {
        let low = Array(UInt8(0)..<32), high = [UInt8](repeating: 0xFF, count: 32)
        let first = [UInt8](repeating: 1, count: 32), second = [UInt8](repeating: 2, count: 32)
        let words = { (a: [UInt8], b: [UInt8], offerer: [UInt8], answerer: [UInt8]) in
            ShortAuthenticationString.words(fingerprint: a, b, offererNonce: offerer, answererNonce: answerer)
        }
        #expect(words(low, high, first, second) == ["onion", "apple", "otter", "ivory"])
        #expect(words(high, low, first, second) == words(low, high, first, second))
        #expect(words(low, [0xFE] + high.dropFirst(), first, second) != words(low, high, first, second))
        #expect(words(low, high, second, first) != words(low, high, first, second))
        #expect(Hex.string(ShortAuthenticationString.commitment(to: first)) == "0ba53fd5583d9573b6e538fc29719a5cc6cac4e80e6ecc0961a8a75eaff86030")
    }
}

/// Several fingerprints for one certificate (RFC 8122 section 5): every hash function conf can
/// compute must match the certificate the peer presents.
@Suite struct DTLSFingerprintTests {
    static let alice = DTLSTests.alice
    static let bob = DTLSTests.bob

    static func handshake(clientExpects fingerprints: [Fingerprint]) throws -> DTLSEndpoint.Output? {
        let client = try DTLSEndpoint(certificate: alice, role: .client, remoteFingerprints: fingerprints)
        let server = try DTLSEndpoint(certificate: bob, role: .server, remoteFingerprints: [alice.fingerprint])
        client.start(now: .zero)
        return DTLSTests.pump(client, server).a.first
    }

    @Test(arguments: Fingerprint.HashFunction.allCases)
    func aFingerprintOfTheRealCertificateVerifies(_ function: Fingerprint.HashFunction) throws {
        let fingerprint = Self.bob.fingerprint(function)
        #expect(fingerprint.bytes.count == function.digestLength && fingerprint.algorithm == function.rawValue)
        guard case .connected? = try Self.handshake(clientExpects: [fingerprint]) else {
            Issue.record("\(function.rawValue) fingerprint of the real certificate refused")
            return
        }
    }

    @Test func sha384AndSHA512TogetherVerify() throws {
        let output = try Self.handshake(clientExpects: [Self.bob.fingerprint(.sha384), Self.bob.fingerprint(.sha512)])
        guard case .connected? = output else { Issue.record("refused: \(String(describing: output))"); return }
    }

    @Test(arguments: [Fingerprint.HashFunction.sha384, .sha512])
    func aWrongFingerprintFailsEvenNextToARightOne(_ function: Fingerprint.HashFunction) throws {
        var wrong = Self.bob.fingerprint(function)
        wrong.bytes[0] ^= 0xFF
        for set in [[wrong], [Self.bob.fingerprint(.sha256), wrong]] {
            guard case .failed(let reason)? = try Self.handshake(clientExpects: set) else {
                Issue.record("accepted a wrong \(function.rawValue) fingerprint")
                continue
            }
            #expect(reason.contains("does not match the \(function.rawValue) fingerprint"), "\(reason)")
        }
    }

    @Test func oneOfSeveralCertificatesUnderOneHashFunctionVerifies() throws {
        // A peer may list the fingerprints of more than one certificate it might present.
        let other = try DTLSCertificate()
        guard case .connected? = try Self.handshake(clientExpects: [other.fingerprint(.sha384), Self.bob.fingerprint(.sha384)]) else {
            Issue.record("refused although one sha-384 fingerprint matches")
            return
        }
    }

    @Test func fingerprintsConfCannotComputeAreIgnoredButNotEnough() throws {
        let md5 = Fingerprint(algorithm: "md5", bytes: Array(repeating: 0, count: 16))
        guard case .connected? = try Self.handshake(clientExpects: [md5, Self.bob.fingerprint(.sha512)]) else {
            Issue.record("an md5 line next to a good sha-512 one was refused")
            return
        }
        #expect(throws: CryptoError.self) { try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: [md5]) }
        #expect(throws: CryptoError.self) { try DTLSEndpoint(certificate: Self.alice, role: .client, remoteFingerprints: []) }
    }
}
