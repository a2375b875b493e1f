import ConfCore

/// One certificate from an ACME directory (RFC 8555), sans-IO: it says which request to make next,
/// when to wait and which challenge to put up; the adapter makes the requests and hands back what
/// came. The account is found or made from the key (a `newAccount` with a known key returns that
/// account), so nothing but the key needs keeping between runs.
///
/// The order: the directory, a nonce, the account, a new order for one identifier, each of its
/// authorizations (one challenge answered, then polled until valid), finalize with the CSR, the
/// order polled until valid, the certificate chain downloaded.
///
/// Everything that comes back is checked before use: JSON shape, https URLs, tokens of the
/// base64url alphabet only (a token becomes a path on our own HTTP server), sizes. A `badNonce`
/// is retried with the nonce that came with it (section 6.5); `Retry-After` paces the polls and
/// rides on a failure so that the caller can back off as the CA asks.
public struct ACMEIssuance: Sendable {
    public enum Step: Equatable, Sendable {
        case send(ACMERequest)
        case wait(until: Instant)
        /// Put up the answer to `challenge`, then call `challengeAnswered()`; keep it up until the
        /// issuance ends.
        case answer(ACMEChallenge)
        /// The certificate chain (PEM, the leaf first), and the account's URL.
        case issued(chain: String, account: String)
        case failed(ACMEFailure)
    }

    public struct Options: Sendable {
        /// Challenge kinds in the order of preference; the first the CA offers is answered.
        public var challenges: [ACMEChallenge.Kind] = [.tlsALPN01, .http01]
        /// A profile (Let's Encrypt's `shortlived` for IP addresses) asked for when the directory
        /// lists it; nil: the directory's default.
        public var profile: String? = "shortlived"
        /// The whole issuance, from the first request to the chain.
        public var deadline: Duration = .seconds(180)
        /// A poll's pause when the CA does not say (`Retry-After`): `firstPoll`, doubling with
        /// each poll of the same thing up to `pollInterval` (a validation takes a fraction of a
        /// second at Let's Encrypt); what the CA says is kept within `pollBounds`.
        public var firstPoll: Duration = .milliseconds(250)
        public var pollInterval: Duration = .seconds(2)
        public var pollBounds: ClosedRange<Int64> = 1...30

        public init() {}
    }

    /// Let's Encrypt's production directory, the default.
    public static let letsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"

    /// Bodies past this are not ACME answers (a chain is a few KiB).
    public static let maximumBody = 256 * 1024

    private enum Purpose: Equatable, Sendable {
        case directory, nonce, account, newOrder
        case authorization(Int)
        case challenge(Int)
        case pollAuthorization(Int)
        case finalize, pollOrder, certificate
    }

    private let directoryURL: String
    private let identifier: ACMEIdentifier
    private let key: any ACMEAccountKey
    private let csr: [UInt8]
    private let options: Options
    private var deadline: Instant?

    private var phase: Purpose = .directory
    private var inFlight: Purpose?
    private var waitUntil: Instant?
    private var outcome: Step?
    private var awaitingChallenge: (index: Int, url: String, challenge: ACMEChallenge)?
    /// The challenge answered, to tell the CA to look.
    private var challengeURL: String?
    private var badNonceRetries = 0
    private var polls = 0
    /// Polls of the same resource in a row, for the doubling pause, and which one.
    private var pollsInARow = 0
    private var lastPolled: Purpose?

    private var nonce: String?
    private var newNonceURL = "", newAccountURL = "", newOrderURL = ""
    private var profile: String?
    private var accountURL: String?
    private var orderURL: String?
    private var finalizeURL: String?
    private var authorizations: [String] = []
    private var certificateURL: String?
    /// The wall clock of the last answer (seconds since 1970), for a `Retry-After` given as a date.
    private var unixTime: Int64 = 0

    /// `csr`: a DER certificate signing request for `identifier`, signed by the certificate's own
    /// key (not the account's).
    public init(directory: String, identifier: ACMEIdentifier, key: any ACMEAccountKey, csr: [UInt8], options: Options = Options()) {
        directoryURL = directory
        self.identifier = identifier
        self.key = key
        self.csr = csr
        self.options = options
    }

    // MARK: Driving

    /// What to do now. After `.send`, call `received`; after `.wait`, call `next` again at that
    /// instant; after `.answer`, call `challengeAnswered`. `.issued` and `.failed` are final.
    public mutating func next(now: Instant) -> Step {
        if let outcome { return outcome }
        let deadline = self.deadline ?? now + options.deadline
        self.deadline = deadline
        if now >= deadline {
            return finish(.failed(ACMEFailure(kind: .timedOut, message: "the certificate authority did not issue a certificate within \(options.deadline.components.seconds) s")))
        }
        precondition(inFlight == nil, "next() while a request is in flight")
        if let waitUntil, now < waitUntil { return .wait(until: waitUntil) }
        waitUntil = nil
        if let awaiting = awaitingChallenge { return .answer(awaiting.challenge) }
        switch phase {
        case .directory: return send(.directory, .init(method: .get, url: directoryURL))
        case .nonce: return send(.nonce, .init(method: .head, url: newNonceURL))
        case .account: return post(.account, to: newAccountURL, payload: #"{"termsOfServiceAgreed":true}"#, withKey: true)
        case .newOrder:
            var members = [JSONValue.Member("identifiers", .array([identifier.json]))]
            if let profile { members.append(.init("profile", .string(profile))) }
            return post(.newOrder, to: newOrderURL, payload: JSONValue.object(members).serialized)
        case .authorization(let index), .pollAuthorization(let index):
            return post(phase, to: authorizations[index], payload: "")
        case .challenge:
            guard let url = challengeURL else { return finish(.failed(malformed("no challenge to answer"))) }
            return post(phase, to: url, payload: "{}")
        case .finalize:
            return post(.finalize, to: finalizeURL ?? "", payload: JSONValue.object(["csr": .string(Base64.encode(csr, urlSafe: true))]).serialized)
        case .pollOrder: return post(.pollOrder, to: orderURL ?? "", payload: "")
        case .certificate: return post(.certificate, to: certificateURL ?? "", payload: "")
        }
    }

    /// The answer to `challenge` is up: the CA may look now.
    public mutating func challengeAnswered() {
        guard let awaiting = awaitingChallenge else { return }
        awaitingChallenge = nil
        challengeURL = awaiting.url
        phase = .challenge(awaiting.index)
    }

    /// The answer to the last `.send`. `unixTime`: the wall clock now, in seconds since 1970.
    public mutating func received(_ response: ACMEResponse, now: Instant, unixTime: Int64) {
        guard let purpose = inFlight, outcome == nil else { return }
        inFlight = nil
        self.unixTime = unixTime
        if let fresh = response.header("Replay-Nonce"), Self.isNonce(fresh) { nonce = fresh }
        guard response.body.count <= Self.maximumBody else { return fail(malformed("an answer of \(response.body.count) bytes")) }
        if response.status >= 400 { return refused(response, purpose: purpose, now: now) }
        badNonceRetries = 0
        switch purpose {
        case .nonce:
            if nonce == nil { fail(malformed("no Replay-Nonce from \(newNonceURL)")) }
        case .directory: readDirectory(response)
        case .account: readAccount(response)
        case .newOrder: readOrder(response, created: true, now: now)
        case .authorization(let index), .pollAuthorization(let index): readAuthorization(response, index: index, now: now)
        case .challenge(let index):
            guard let challenge = json(response) else { return }
            if challenge["status"]?.stringValue == "invalid" { return fail(validationFailed(challenge["error"])) }
            phase = .pollAuthorization(index)
            pause(response, now: now)
        case .finalize, .pollOrder: readOrder(response, created: false, now: now)
        case .certificate:
            let chain = String(decoding: response.body, as: UTF8.self)
            guard chain.hasPrefix("-----BEGIN CERTIFICATE-----"), chain.utf8.allSatisfy({ $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) }) else {
                return fail(malformed("the certificate is not a PEM chain"))
            }
            outcome = .issued(chain: chain, account: accountURL ?? "")
        }
    }

    /// The request could not be made (no route, refused, TLS failed): the issuance ends.
    public mutating func unreachable(_ reason: String) {
        inFlight = nil
        fail(ACMEFailure(kind: .unreachable, message: "cannot reach the certificate authority: \(reason)"))
    }

    // MARK: Answers

    private mutating func readDirectory(_ response: ACMEResponse) {
        guard let directory = json(response) else { return }
        guard let newNonce = directory["newNonce"]?.stringValue, Self.isURL(newNonce),
              let newAccount = directory["newAccount"]?.stringValue, Self.isURL(newAccount),
              let newOrder = directory["newOrder"]?.stringValue, Self.isURL(newOrder) else {
            return fail(malformed("the directory lacks newNonce, newAccount or newOrder as https URLs"))
        }
        (newNonceURL, newAccountURL, newOrderURL) = (newNonce, newAccount, newOrder)
        if let wanted = options.profile, directory["meta"]?["profiles"]?[wanted] != nil { profile = wanted }
        phase = .account
    }

    private mutating func readAccount(_ response: ACMEResponse) {
        guard let account = json(response) else { return }
        guard let location = response.header("Location"), Self.isURL(location) else { return fail(malformed("the account has no Location")) }
        if let status = account["status"]?.stringValue, status != "valid" {
            return fail(ACMEFailure(kind: .refused, message: "the certificate authority says this account is \(status.prefix(20))"))
        }
        accountURL = location
        phase = .newOrder
    }

    private mutating func readOrder(_ response: ACMEResponse, created: Bool, now: Instant) {
        guard let order = json(response) else { return }
        if created {
            guard let location = response.header("Location"), Self.isURL(location) else { return fail(malformed("the order has no Location")) }
            guard let urls = order["authorizations"]?.arrayValue?.compactMap(\.stringValue), (1...10).contains(urls.count), urls.allSatisfy(Self.isURL),
                  let finalize = order["finalize"]?.stringValue, Self.isURL(finalize) else {
                return fail(malformed("the order lacks its authorizations or finalize URL"))
            }
            (orderURL, authorizations, finalizeURL) = (location, urls, finalize)
        }
        switch order["status"]?.stringValue {
        case "pending" where created: phase = .authorization(0)
        case "ready": phase = .finalize
        case "processing", "pending":
            phase = .pollOrder
            pause(response, now: now)
        case "valid" where created:
            // Issued before this CSR was sent: for another key than the one kept with it.
            fail(malformed("an order that is valid before it was finalized"))
        case "valid":
            guard let url = order["certificate"]?.stringValue, Self.isURL(url) else { return fail(malformed("a valid order without its certificate URL")) }
            certificateURL = url
            phase = .certificate
        case "invalid":
            fail(validationFailed(order["error"], fallback: "the certificate authority declared the order invalid"))
        default:
            fail(malformed("an order whose status is \(order["status"]?.serialized.prefix(30) ?? "missing")"))
        }
    }

    private mutating func readAuthorization(_ response: ACMEResponse, index: Int, now: Instant) {
        guard let authorization = json(response) else { return }
        if let type = authorization["identifier"]?["type"]?.stringValue, let value = authorization["identifier"]?["value"]?.stringValue,
           ACMEIdentifier(type: type, value: value).map({ $0 != identifier }) ?? true {
            return fail(malformed("an authorization for \(value.prefix(60)), not \(identifier)"))
        }
        let challenges = authorization["challenges"]?.arrayValue ?? []
        switch authorization["status"]?.stringValue {
        case "valid":
            phase = index + 1 < authorizations.count ? .authorization(index + 1) : .finalize
        case "pending" where phase == .authorization(index):
            for kind in options.challenges {
                guard let offered = challenges.first(where: { $0["type"]?.stringValue == kind.rawValue }) else { continue }
                guard let token = offered["token"]?.stringValue, Self.isToken(token), let url = offered["url"]?.stringValue, Self.isURL(url) else {
                    return fail(malformed("a \(kind.rawValue) challenge without a well-formed token and URL"))
                }
                let challenge = ACMEChallenge(kind: kind, identifier: identifier, token: token, keyAuthorization: token + "." + key.thumbprint)
                awaitingChallenge = (index, url, challenge)
                return
            }
            let offered = challenges.compactMap { $0["type"]?.stringValue?.prefix(20) }.joined(separator: ", ")
            fail(ACMEFailure(kind: .refused, message: "the certificate authority offers no challenge conf can answer (it offers: \(offered))"))
        case "pending", "processing":
            pause(response, now: now)
        case "invalid":
            let error = challenges.first { $0["status"]?.stringValue == "invalid" }?["error"]
            fail(validationFailed(error))
        default:
            fail(ACMEFailure(kind: .refused, message: "the authorization for \(identifier) is \(authorization["status"]?.stringValue?.prefix(20) ?? "without a status")"))
        }
    }

    private mutating func refused(_ response: ACMEResponse, purpose: Purpose, now: Instant) {
        let problem = ACMEProblem(json: try? JSONValue.parse(String(decoding: response.body, as: UTF8.self)))
        if problem.shortType == "badNonce", badNonceRetries < 3 {
            badNonceRetries += 1
            if response.header("Replay-Nonce") == nil { nonce = nil }
            return  // The same request again, with the new nonce.
        }
        if purpose == .finalize, problem.shortType == "orderNotReady" {
            phase = .pollOrder
            return pause(response, now: now)
        }
        let what = problem.detail.isEmpty ? problem.shortType : problem.detail
        let message = problem.shortType == "rateLimited"
            ? "the certificate authority's rate limit: \(what)"
            : "the certificate authority refused (HTTP \(response.status)): \(what)"
        fail(ACMEFailure(kind: .refused, message: message, problem: problem, retryAfter: response.retryAfter(unixTime: unixTime)))
    }

    // MARK: Helpers

    private mutating func send(_ purpose: Purpose, _ request: ACMERequest) -> Step {
        inFlight = purpose
        return .send(request)
    }

    /// A JWS POST (section 6.2): the key itself for `newAccount`, the account's URL otherwise; an
    /// empty payload is a POST-as-GET (section 6.3).
    private mutating func post(_ purpose: Purpose, to url: String, payload: String, withKey: Bool = false) -> Step {
        // A nonce first when none is held (none comes with the directory).
        guard let nonce else { return send(.nonce, .init(method: .head, url: newNonceURL)) }
        let identity = withKey ? #""jwk":\#(key.jwk)"# : #""kid":\#(JSONValue.string(accountURL ?? "").serialized)"#
        let header = #"{"alg":"ES256",\#(identity),"nonce":\#(JSONValue.string(nonce).serialized),"url":\#(JSONValue.string(url).serialized)}"#
        let protected = Base64.encode(Array(header.utf8), urlSafe: true)
        let encodedPayload = Base64.encode(Array(payload.utf8), urlSafe: true)
        guard let signature = try? key.sign(Array("\(protected).\(encodedPayload)".utf8)) else {
            return finish(.failed(ACMEFailure(kind: .refused, message: "cannot sign with the ACME account key")))
        }
        self.nonce = nil  // Each nonce is good for one request.
        let body = JSONValue.object(["protected": .string(protected), "payload": .string(encodedPayload),
                                     "signature": .string(Base64.encode(signature, urlSafe: true))]).serialized
        return send(purpose, .init(method: .post, url: url, body: Array(body.utf8)))
    }

    private mutating func pause(_ response: ACMEResponse, now: Instant) {
        polls += 1
        guard polls <= 120 else { return fail(ACMEFailure(kind: .timedOut, message: "the certificate authority kept the order pending through 120 polls")) }
        let asked = response.retryAfter(unixTime: unixTime).map { min(max($0, options.pollBounds.lowerBound), options.pollBounds.upperBound) }
        if lastPolled != phase { pollsInARow = 0 }
        lastPolled = phase
        let doubling = options.firstPoll * (1 << min(pollsInARow, 16))
        pollsInARow += 1
        // Never past the deadline: the issuance ends there, not a pause later.
        let until = now + (asked.map { .seconds($0) } ?? min(doubling, options.pollInterval))
        waitUntil = deadline.map { min(until, $0) } ?? until
    }

    private mutating func json(_ response: ACMEResponse) -> JSONValue? {
        guard let value = try? JSONValue.parse(String(decoding: response.body, as: UTF8.self)), case .object = value else {
            fail(malformed("an answer that is not a JSON object"))
            return nil
        }
        return value
    }

    private func malformed(_ what: String) -> ACMEFailure {
        ACMEFailure(kind: .malformedAnswer, message: "the certificate authority's answer is not usable: \(what)")
    }

    private func validationFailed(_ error: JSONValue?, fallback: String? = nil) -> ACMEFailure {
        let problem = error.map { ACMEProblem(json: $0) }
        let detail = problem.map { $0.detail.isEmpty ? $0.shortType : $0.detail } ?? fallback ?? "no reason given"
        return ACMEFailure(kind: .validationFailed, message: "the certificate authority could not reach this address's challenge: \(detail)", problem: problem)
    }

    private mutating func fail(_ failure: ACMEFailure) {
        if outcome == nil { outcome = .failed(failure) }
    }

    private mutating func finish(_ step: Step) -> Step {
        outcome = step
        return step
    }

    /// Absolute https URLs of printable ASCII without spaces, of a sane length.
    static func isURL(_ text: String) -> Bool {
        text.hasPrefix("https://") && text.count > 8 && text.utf8.count <= 2_000 && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// A token of the base64url alphabet (section 8.3: at least 128 bits of entropy): it becomes
    /// a path on our HTTP server and part of what we sign.
    static func isToken(_ text: String) -> Bool {
        (16...256).contains(text.utf8.count) && text.utf8.allSatisfy { Base64.isURLSafeCharacter($0) }
    }

    static func isNonce(_ text: String) -> Bool {
        (1...256).contains(text.utf8.count) && text.utf8.allSatisfy { Base64.isURLSafeCharacter($0) }
    }
}

extension ACMEIdentifier {
    init?(type: String, value: String) {
        switch type {
        case "ip": self = .ip(value)
        case "dns": self = .dns(value)
        default: return nil
        }
    }
}
