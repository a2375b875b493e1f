import ConfCore
import ConfCrypto
import ConfDriver
import ConfIO
import ConfRendezvous
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// `--certificate acme`: gets the rendezvous a certificate from an ACME directory and keeps it
/// served and renewed, as `ACMECertificatePolicy` decides; answers the CA's tls-alpn-01 challenge
/// on the rendezvous's own TLS listener. Until a certificate comes (or when none can), the
/// self-signed one the server started with stays served.
///
/// Threading: made and used on the server's loop thread.
final class ACMECertificates {
    struct Settings {
        var directory: String
        var caFile: String?
        var identifier: ACMEIdentifier
        var stateDirectory: String
        /// The challenges answered: tls-alpn-01 on the rendezvous's listener, http-01 on `http01`.
        var challenges: [ACMEChallenge.Kind] = [.tlsALPN01]
        var http01: HTTP01Responder?
        /// The self-signed certificate (one PEM file), served again when no ACME one may be.
        var fallbackFile: String
        /// Whether it keeps ordering after the first announcement (renewals, retries): a standing
        /// rendezvous does; conf host does not, as its links and its own connection name the
        /// certificate it announced, which must not change under them during the call.
        var renews = true
    }

    private let loop: EventLoop
    private let server: RendezvousServer
    private let settings: Settings
    private let files: ACMEStateFiles
    private let accountKey: ACMEKey
    private let log: (String) -> Void
    private var client: ACMEClient?
    private var timer: Timer?
    private var backOff: ACMECertificatePolicy.BackOff?
    private var served: ServedCertificate
    /// After `cancel`.
    private var stopped = false
    /// The file the ACME certificate is served from (chain and key).
    var certificatePath: String { files.certificatePath }
    private var ready: ((ServedCertificate) -> Void)?

    init(loop: EventLoop, server: RendezvousServer, settings: Settings, log: @escaping (String) -> Void) throws(CommandFailure) {
        self.loop = loop
        self.server = server
        self.settings = settings
        self.log = log
        served = ServedCertificate(kind: .selfSigned)
        let pem: String
        do throws(ACMEStateFiles.Problem) {
            files = try ACMEStateFiles(directory: settings.stateDirectory)
            pem = try files.accountKey { try ACMEKey().pem }
        } catch {
            throw CommandFailure(.failure, code: "state-dir", error.description)
        }
        do throws(CryptoError) {
            accountKey = try ACMEKey(pem: pem)
        } catch {
            throw CommandFailure(.failure, code: "state-dir", "\(files.accountKeyPath) does not hold an ACME account key (\(error)): remove it to make a new one")
        }
        backOff = Self.backOff(from: try? files.state())
    }

    deinit { cancel() }

    /// Stops: no order, no swap, nothing announced after this.
    func cancel() {
        timer?.cancel()
        timer = nil
        client?.cancel()
        ready = nil
        stopped = true
    }

    /// Serves a kept certificate at once, or orders one; `ready` is called once, when the
    /// certificate to announce is known (a kept or new one, or the self-signed one and why).
    func start(ready: @escaping (ServedCertificate) -> Void) {
        self.ready = ready
        decide()
    }

    private var now: Int64 { Int64(time(nil)) }

    private func decide() {
        guard !stopped else { return }
        let kept = keptCertificate()
        switch ACMECertificatePolicy.decide(kept: kept, backOff: backOff, identifier: settings.identifier.description,
                                            directory: settings.directory, now: now) {
        case .serve(let renewAt):
            guard serveKept(kept!) else { return }
            schedule(at: renewAt)
        case .order(let servesKept):
            if servesKept {
                guard serveKept(kept!) else { return }
                // conf host: the kept one has a day left; it is not swapped during the call.
                if !settings.renews { return }
            } else {
                serveFallback()
            }
            order()
        case .wait(let until, let servesKept):
            if servesKept {
                guard serveKept(kept!) else { return }
                // Before the kept one stops being good, decide again (then without it).
                schedule(at: min(until, ACMECertificatePolicy.lastUsable(kept!)))
            } else {
                serveFallback()
                announce(ServedCertificate(kind: .selfSigned, reason: "the last ACME order failed (\(backOff?.reason ?? "no reason kept")); "
                                                + "the next is tried at \(ServedCertificate.wallTime(until).iso8601)"))
                schedule(at: until)
            }
        }
    }

    /// Back to the rendezvous's own certificate (an ACME one that may no longer be served).
    private func serveFallback() {
        guard served.kind == .acme else { return }
        do throws(GLibError) {
            try server.serve(certificate: settings.fallbackFile, key: settings.fallbackFile)
            served = ServedCertificate(kind: .selfSigned)
        } catch {
            log("cannot serve the rendezvous's own certificate again: \(error.message)")
        }
    }

    private func keptCertificate() -> ACMECertificatePolicy.Kept? {
        guard let pem = try? files.certificate(), let summary = CertificateChainSummary(pem: pem), let state = try? files.state(),
              let identifier = state["identifier"]?.stringValue, let directory = state["directory"]?.stringValue else { return nil }
        return ACMECertificatePolicy.Kept(identifier: identifier, directory: directory, notBefore: summary.notBefore, notAfter: summary.notAfter)
    }

    /// Serves the kept certificate and announces it; when it cannot be read, announces the
    /// self-signed one with the reason instead, and says false.
    @discardableResult
    private func serveKept(_ record: ACMECertificatePolicy.Kept) -> Bool {
        do throws(GLibError) {
            try server.serve(certificate: files.certificatePath, key: files.certificatePath)
            announce(ServedCertificate(kind: .acme, expires: record.notAfter))
            return true
        } catch {
            let reason = "cannot serve the kept certificate \(files.certificatePath): \(error.message)"
            log(reason)
            serveFallback()
            announce(ServedCertificate(kind: .selfSigned, reason: reason))
            return false
        }
    }

    private func announce(_ certificate: ServedCertificate) {
        served = certificate
        if !settings.renews, ready == nil { return }
        let ready = self.ready
        self.ready = nil
        ready?(certificate)
    }

    private func schedule(at moment: Int64) {
        timer?.cancel()
        guard settings.renews || ready != nil else { return }
        timer = loop.schedule(after: .seconds(max(1, moment - now))) { [weak self] in self?.decide() }
    }

    private func order() {
        let certificateKey: ACMEKey, csr: [UInt8]
        do throws(CryptoError) {
            certificateKey = try ACMEKey()
            csr = try certificateKey.certificateRequest(for: settings.identifier)
        } catch {
            return failed(ACMEFailure(kind: .refused, message: "cannot make the certificate request: \(error)"))
        }
        do throws(GLibError) {
            client = try ACMEClient(loop: loop, caFile: settings.caFile)
        } catch {
            return failed(ACMEFailure(kind: .unreachable, message: "--acme-ca \(settings.caFile ?? ""): \(error.message)"))
        }
        var options = ACMEIssuance.Options()
        options.challenges = settings.challenges
        let issuance = ACMEIssuance(directory: settings.directory, identifier: settings.identifier, key: accountKey, csr: csr, options: options)
        let ports = settings.challenges.map { $0 == .tlsALPN01 ? "tls-alpn-01 on port 443" : "http-01 on port 80" }.joined(separator: " or ")
        log("asking \(settings.directory) for a certificate for \(settings.identifier) (\(ports))")
        client?.run(issuance, answer: { [weak self] challenge in
            guard let self else { return }
            switch challenge.kind {
            case .tlsALPN01:
                do {
                    try self.server.answerTLSALPNChallenge(pem: try certificateKey.challengeCertificate(for: challenge))
                } catch {
                    self.log("cannot put up the tls-alpn-01 challenge: \(error)")
                }
            case .http01:
                self.settings.http01?.answer(token: challenge.token, keyAuthorization: challenge.keyAuthorization)
            }
        }, done: { [weak self] result in
            guard let self else { return }
            try? self.server.answerTLSALPNChallenge(pem: nil)
            self.settings.http01?.withdraw()
            switch result {
            case .success(let issued): self.issued(chain: issued.chain, key: certificateKey)
            case .failure(let failure): self.failed(failure)
            }
        })
    }

    private func issued(chain: String, key: ACMEKey) {
        guard let summary = CertificateChainSummary(pem: chain) else { return failed(ACMEFailure(kind: .malformedAnswer, message: "the certificate does not parse")) }
        do throws(ACMEStateFiles.Problem) {
            try files.storeCertificate(chain + (chain.hasSuffix("\n") ? "" : "\n") + key.pem)
            backOff = nil
            try files.storeState(.object(["identifier": .string(settings.identifier.description), "directory": .string(settings.directory)]))
        } catch {
            return failed(ACMEFailure(kind: .refused, message: "cannot keep the certificate: \(error.description)"))
        }
        let record = ACMECertificatePolicy.Kept(identifier: settings.identifier.description, directory: settings.directory,
                                                notBefore: summary.notBefore, notAfter: summary.notAfter)
        serveKept(record)
        log("serving the certificate from \(settings.directory) for \(settings.identifier), until \(ServedCertificate.wallTime(summary.notAfter).iso8601)")
        schedule(at: ACMECertificatePolicy.renewalTime(record))
    }

    private func failed(_ failure: ACMEFailure) {
        let next = ACMECertificatePolicy.backOff(after: backOff, retryAfter: failure.retryAfter, reason: failure.message, now: now)
        backOff = next
        var state: [JSONValue.Member] = [.init("failures", .number(Double(next.failures))), .init("next_attempt", .number(Double(next.nextAttempt))),
                                         .init("reason", .string(next.reason))]
        if let kept = keptCertificate() {
            state += [.init("identifier", .string(kept.identifier)), .init("directory", .string(kept.directory))]
        }
        try? files.storeState(.object(state))
        log("no certificate from \(settings.directory): \(failure.message)" + (settings.renews ? "; the next try at \(ServedCertificate.wallTime(next.nextAttempt).iso8601)" : ""))
        announce(ServedCertificate(kind: .selfSigned, reason: failure.message))
        schedule(at: next.nextAttempt)
    }

    static func backOff(from state: JSONValue?) -> ACMECertificatePolicy.BackOff? {
        guard let state, let failures = state["failures"]?.numberValue, let next = state["next_attempt"]?.numberValue,
              failures >= 1, failures < 1_000, next >= 0, next < 1e10 else { return nil }
        return ACMECertificatePolicy.BackOff(failures: Int(failures), nextAttempt: Int64(next), reason: state["reason"]?.stringValue ?? "")
    }
}
