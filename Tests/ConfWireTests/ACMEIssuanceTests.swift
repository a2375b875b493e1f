import ConfCore
import ConfWire
import Testing

/// The ACME client's core (RFC 8555) against a certificate authority simulated from the RFC's own
/// examples (sections 7.1.1, 7.1.3, 7.1.4, 7.4), on a manual clock, and against hostile answers.
struct ACMEIssuanceTests {
    /// A key whose signature is fixed: the core's JWS framing is what is under test here (the
    /// real ES256 is `ACMEKeyTests`').
    struct FixedKey: ACMEAccountKey {
        var jwk = #"{"crv":"P-256","kty":"EC","x":"xx","y":"yy"}"#
        var thumbprint = "LoqXcjzGaQs4rJ4l0y4-1cWDx8Ny4A1yGDP6uAIR2qQ"
        func sign(_ input: [UInt8]) throws -> [UInt8] { [UInt8](repeating: 7, count: 64) }
    }

    static let directory = "https://example.com/acme/directory"
    static let identifier = ACMEIdentifier.ip("11.0.0.2")
    static let token = "DGyRejmCefe7v4NfDGDKfA"

    /// RFC 8555 section 7.1.1's directory (and `meta.profiles`, as Let's Encrypt lists them).
    static func directoryBody(profiles: Bool = true) -> String {
        """
        {"newNonce": "https://example.com/acme/new-nonce", "newAccount": "https://example.com/acme/new-account",
         "newOrder": "https://example.com/acme/new-order", "newAuthz": "https://example.com/acme/new-authz",
         "revokeCert": "https://example.com/acme/revoke-cert", "keyChange": "https://example.com/acme/key-change",
         "meta": {"termsOfService": "https://example.com/acme/terms/2017-5-30", "website": "https://www.example.com/",
                  "caaIdentities": ["example.com"], "externalAccountRequired": false\(profiles ? #", "profiles": {"classic": "90 days", "shortlived": "160 hours"}"# : "")}}
        """
    }

    static func order(_ status: String, certificate: Bool = false) -> String {
        """
        {"status": "\(status)", "expires": "2016-01-05T14:09:07.99Z",
         "identifiers": [{"type": "ip", "value": "11.0.0.2"}],
         "authorizations": ["https://example.com/acme/authz/PAniVnsZcis"],
         "finalize": "https://example.com/acme/order/TOlocE8rfgo/finalize"\(certificate ? #", "certificate": "https://example.com/acme/cert/mAt3xBGaobw""# : "")}
        """
    }

    static func authorization(_ status: String, challenges: String? = nil) -> String {
        """
        {"status": "\(status)", "expires": "2016-01-02T14:09:30Z", "identifier": {"type": "ip", "value": "11.0.0.2"},
         "challenges": \(challenges ?? """
         [{"type": "http-01", "url": "https://example.com/acme/chall/prV_B7yEyA4", "status": "\(status)", "token": "\(token)"},
          {"type": "tls-alpn-01", "url": "https://example.com/acme/chall/Rg5dV14Gh1Q", "status": "\(status)", "token": "\(token)"}]
         """)}
        """
    }

    static let chain = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"

    /// Drives an issuance against `answer` (which sees each request and says what comes back)
    /// on a manual clock; returns the final step and every request made.
    static func run(options: ACMEIssuance.Options = .init(), answer: (ACMERequest, Int) -> ACMEResponse) -> (ACMEIssuance.Step, [ACMERequest], Instant) {
        var issuance = ACMEIssuance(directory: directory, identifier: identifier, key: FixedKey(), csr: [0x30, 0x03, 0x02, 0x01, 0x00], options: options)
        var now = Instant(nanoseconds: 1_000_000_000)
        var requests: [ACMERequest] = []
        var nonce = 0
        for _ in 0..<200 {
            let step = issuance.next(now: now)
            switch step {
            case .send(let request):
                requests.append(request)
                nonce += 1
                var response = answer(request, requests.count)
                if !response.headers.contains(where: { $0.name == "Replay-Nonce" }) { response.headers.append(("Replay-Nonce", "nonce\(nonce)")) }
                issuance.received(response, now: now, unixTime: 1_700_000_000)
            case .wait(let until): now = until
            case .answer: issuance.challengeAnswered()
            case .issued, .failed: return (step, requests, now)
            }
        }
        Issue.record("no end after 200 steps")
        return (issuance.next(now: now), requests, now)
    }

    /// A CA that issues: the authorization pending until polled twice, the order processing once.
    static func issuingCA(_ request: ACMERequest, authorizationPolls: inout Int, orderPolls: inout Int) -> ACMEResponse {
        switch (request.method, request.url) {
        case (.get, directory): return ACMEResponse(status: 200, body: Array(directoryBody().utf8))
        case (.head, "https://example.com/acme/new-nonce"): return ACMEResponse(status: 200)
        case (.post, "https://example.com/acme/new-account"):
            return ACMEResponse(status: 201, headers: [("Location", "https://example.com/acme/acct/evOfKhNU60wg")], body: Array(#"{"status": "valid"}"#.utf8))
        case (.post, "https://example.com/acme/new-order"):
            return ACMEResponse(status: 201, headers: [("Location", "https://example.com/acme/order/TOlocE8rfgo")], body: Array(order("pending").utf8))
        case (.post, "https://example.com/acme/authz/PAniVnsZcis"):
            authorizationPolls += 1
            let status = authorizationPolls == 1 ? "pending" : authorizationPolls == 2 ? "pending" : "valid"
            return ACMEResponse(status: 200, headers: [("Retry-After", "2")], body: Array(authorization(status).utf8))
        case (.post, "https://example.com/acme/chall/Rg5dV14Gh1Q"):
            return ACMEResponse(status: 200, body: Array(#"{"type": "tls-alpn-01", "status": "processing", "token": "\#(token)"}"#.utf8))
        case (.post, "https://example.com/acme/order/TOlocE8rfgo/finalize"):
            return ACMEResponse(status: 200, body: Array(order("processing").utf8))
        case (.post, "https://example.com/acme/order/TOlocE8rfgo"):
            orderPolls += 1
            return ACMEResponse(status: 200, body: Array(order(orderPolls == 1 ? "processing" : "valid", certificate: orderPolls > 1).utf8))
        case (.post, "https://example.com/acme/cert/mAt3xBGaobw"):
            return ACMEResponse(status: 200, headers: [("Content-Type", "application/pem-certificate-chain")], body: Array(chain.utf8))
        default: return ACMEResponse(status: 404, body: Array(#"{"type": "urn:ietf:params:acme:error:malformed", "detail": "no such resource"}"#.utf8))
        }
    }

    static func decodeJWS(_ request: ACMERequest) throws -> (header: JSONValue, payload: String) {
        let bytes = try #require(request.body)
        let body = try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
        let protected = try #require(body["protected"]?.stringValue), encodedPayload = try #require(body["payload"]?.stringValue)
        let signature = try #require(body["signature"]?.stringValue)
        let header = try #require(Base64.decodeURLSafe(protected))
        let payload = try #require(Base64.decodeURLSafe(encodedPayload))
        #expect(Base64.decodeURLSafe(signature) == [UInt8](repeating: 7, count: 64))
        return (try JSONValue.parse(String(decoding: header, as: UTF8.self)), String(decoding: payload, as: UTF8.self))
    }

    @Test func anIPAddressIsIssuedWithTheRFCsExchange() throws {
        var authorizationPolls = 0, orderPolls = 0
        var answered: [ACMEChallenge] = []
        var issuance = ACMEIssuance(directory: Self.directory, identifier: Self.identifier, key: FixedKey(), csr: [0x30, 0x03, 0x02, 0x01, 0x00])
        var now = Instant(nanoseconds: 1_000_000_000)
        let start = now
        var requests: [ACMERequest] = []
        var final: ACMEIssuance.Step?
        var nonce = 0
        while final == nil, requests.count < 50 {
            switch issuance.next(now: now) {
            case .send(let request):
                requests.append(request)
                nonce += 1
                var response = Self.issuingCA(request, authorizationPolls: &authorizationPolls, orderPolls: &orderPolls)
                // As Let's Encrypt and pebble: no nonce with the directory.
                if request.method != .get { response.headers.append(("Replay-Nonce", "nonce\(nonce)")) }
                issuance.received(response, now: now, unixTime: 1_700_000_000)
            case .wait(let until):
                #expect(until > now)
                now = until
            case .answer(let challenge):
                answered.append(challenge)
                issuance.challengeAnswered()
            case let step: final = step
            }
        }
        #expect(final == .issued(chain: Self.chain, account: "https://example.com/acme/acct/evOfKhNU60wg"))
        // tls-alpn-01 preferred; the key authorization is token.thumbprint (section 8.1).
        #expect(answered == [ACMEChallenge(kind: .tlsALPN01, identifier: Self.identifier, token: Self.token,
                                           keyAuthorization: "\(Self.token).\(FixedKey().thumbprint)")])
        #expect(requests.map { "\($0.method.rawValue) \($0.url.replacingOccurrences(of: "https://example.com/acme/", with: ""))" } == [
            "GET directory", "HEAD new-nonce", "POST new-account", "POST new-order", "POST authz/PAniVnsZcis",
            "POST chall/Rg5dV14Gh1Q", "POST authz/PAniVnsZcis", "POST authz/PAniVnsZcis",
            "POST order/TOlocE8rfgo/finalize", "POST order/TOlocE8rfgo", "POST order/TOlocE8rfgo", "POST cert/mAt3xBGaobw",
        ])
        // Polls paced by Retry-After where the CA says it (2 s, the pending authorization), else a
        // quarter of a second doubling for each poll of the same thing: 0.25 s after the
        // challenge, 0.25 s and 0.5 s for the order.
        #expect(now.since(start) == .seconds(3))
        // Each POST: ES256, the URL it goes to, the nonce of the answer before; the key itself
        // only for newAccount, the account's URL after.
        var expectedNonce = 1
        for request in requests {
            defer { expectedNonce += 1 }
            guard request.method == .post else { continue }
            let (header, payload) = try Self.decodeJWS(request)
            #expect(header["alg"]?.stringValue == "ES256" && header["url"]?.stringValue == request.url)
            #expect(header["nonce"]?.stringValue == "nonce\(expectedNonce - 1)")
            if request.url.hasSuffix("new-account") {
                #expect(header["jwk"]?["crv"]?.stringValue == "P-256" && header["kid"] == nil)
                #expect(payload == #"{"termsOfServiceAgreed":true}"#)
            } else {
                #expect(header["kid"]?.stringValue == "https://example.com/acme/acct/evOfKhNU60wg" && header["jwk"] == nil)
            }
            if request.url.hasSuffix("new-order") {
                #expect(payload == #"{"identifiers":[{"type":"ip","value":"11.0.0.2"}],"profile":"shortlived"}"#)
            }
            if request.url.contains("/authz/") || request.url.contains("/cert/") || request.url.hasSuffix("TOlocE8rfgo") { #expect(payload == "") }
            if request.url.contains("/chall/") { #expect(payload == "{}") }
            if request.url.hasSuffix("finalize") { #expect(payload == #"{"csr":"MAMCAQA"}"#) }
        }
    }

    @Test func noProfileIsAskedForWhereTheDirectoryListsNone() throws {
        var a = 0, o = 0
        let (step, requests, _) = Self.run { request, _ in
            request.method == .get ? ACMEResponse(status: 200, body: Array(Self.directoryBody(profiles: false).utf8))
                : Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
        }
        guard case .issued = step else { Issue.record("\(step)"); return }
        let order = try #require(requests.first { $0.url.hasSuffix("new-order") })
        #expect(try Self.decodeJWS(order).payload == #"{"identifiers":[{"type":"ip","value":"11.0.0.2"}]}"#)
    }

    @Test func http01IsAnsweredWhereTLSALPNIsNotOffered() {
        var a = 0, o = 0
        var challenge: ACMEChallenge?
        var issuance = ACMEIssuance(directory: Self.directory, identifier: Self.identifier, key: FixedKey(), csr: [1])
        var now = Instant(nanoseconds: 0)
        for _ in 0..<60 {
            switch issuance.next(now: now) {
            case .send(let request):
                var response = Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
                if request.url.contains("/authz/") {
                    response.body = Array(Self.authorization(a < 3 ? "pending" : "valid", challenges: """
                        [{"type": "http-01", "url": "https://example.com/acme/chall/Rg5dV14Gh1Q", "status": "pending", "token": "\(Self.token)"},
                         {"type": "dns-01", "url": "https://example.com/acme/chall/dns", "status": "pending", "token": "\(Self.token)"}]
                        """).utf8)
                }
                response.headers.append(("Replay-Nonce", "n"))
                issuance.received(response, now: now, unixTime: 0)
            case .wait(let until): now = until
            case .answer(let offered):
                challenge = offered
                issuance.challengeAnswered()
            case .issued, .failed: break
            }
        }
        #expect(challenge?.kind == .http01 && challenge?.path == "/.well-known/acme-challenge/\(Self.token)")
        guard case .issued = issuance.next(now: now) else { Issue.record("not issued"); return }
    }

    @Test func aBadNonceIsRetriedWithTheNonceThatCameWithIt() throws {
        var a = 0, o = 0, refusals = 0
        let (step, requests, _) = Self.run { request, _ in
            if request.url.hasSuffix("new-order"), refusals < 2 {
                refusals += 1
                return ACMEResponse(status: 400, headers: [("Replay-Nonce", "fresh\(refusals)")],
                                    body: Array(#"{"type": "urn:ietf:params:acme:error:badNonce", "detail": "JWS has an invalid anti-replay nonce"}"#.utf8))
            }
            return Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
        }
        guard case .issued = step else { Issue.record("\(step)"); return }
        let orders = requests.filter { $0.url.hasSuffix("new-order") }
        #expect(orders.count == 3)
        #expect(try orders.dropFirst().map { try Self.decodeJWS($0).header["nonce"]?.stringValue } == ["fresh1", "fresh2"])
    }

    @Test func badNoncesWithoutEndFail() {
        let (step, requests, _) = Self.run { request, _ in
            if request.method == .get { return ACMEResponse(status: 200, body: Array(Self.directoryBody().utf8)) }
            if request.method == .head { return ACMEResponse(status: 200) }
            return ACMEResponse(status: 400, body: Array(#"{"type": "urn:ietf:params:acme:error:badNonce"}"#.utf8))
        }
        guard case .failed(let failure) = step else { Issue.record("\(step)"); return }
        #expect(failure.kind == .refused && failure.problem?.shortType == "badNonce")
        #expect(requests.filter { $0.method == .post }.count == 4)
    }

    @Test(arguments: [("3600", Int64(3600)), ("Tue, 14 Nov 2023 23:13:20 GMT", Int64(3600)), ("soon", nil)])
    func aRateLimitCarriesItsRetryAfter(header: String, seconds: Int64?) {
        // 1,700,000,000 is 2023-11-14 22:13:20 UTC.
        let (step, _, _) = Self.run { request, _ in
            if request.method == .get { return ACMEResponse(status: 200, body: Array(Self.directoryBody().utf8)) }
            if request.method == .head { return ACMEResponse(status: 200) }
            if request.url.hasSuffix("new-account") {
                return ACMEResponse(status: 201, headers: [("Location", "https://example.com/acme/acct/1")], body: Array("{}".utf8))
            }
            return ACMEResponse(status: 429, headers: [("Retry-After", header)],
                                body: Array(#"{"type": "urn:ietf:params:acme:error:rateLimited", "detail": "too many certificates (5) already issued for this exact set of identifiers in the last 168h0m0s"}"#.utf8))
        }
        guard case .failed(let failure) = step else { Issue.record("\(step)"); return }
        #expect(failure.kind == .refused && failure.retryAfter == seconds)
        #expect(failure.message.contains("rate limit") && failure.message.contains("too many certificates"))
    }

    @Test func anOrderThatGoesInvalidFailsWithTheCAsReason() {
        var a = 0, o = 0
        let (step, _, _) = Self.run { request, _ in
            if request.url.contains("/authz/"), a >= 1 {
                a += 1
                return ACMEResponse(status: 200, body: Array(Self.authorization("invalid", challenges: """
                    [{"type": "tls-alpn-01", "url": "https://example.com/acme/chall/Rg5dV14Gh1Q", "status": "invalid", "token": "\(Self.token)",
                      "error": {"type": "urn:ietf:params:acme:error:connection", "detail": "11.0.0.2: Connection refused"}}]
                    """).utf8))
            }
            return Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
        }
        guard case .failed(let failure) = step else { Issue.record("\(step)"); return }
        #expect(failure.kind == .validationFailed && failure.message.contains("Connection refused"))
        #expect(failure.problem?.shortType == "connection")
    }

    @Test func aFinalizedOrderThatGoesInvalidFails() {
        var a = 0, o = 0
        let (step, _, _) = Self.run { request, _ in
            if request.url.hasSuffix("TOlocE8rfgo") { return ACMEResponse(status: 200, body: Array(Self.order("invalid").utf8)) }
            return Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
        }
        guard case .failed(let failure) = step else { Issue.record("\(step)"); return }
        #expect(failure.kind == .validationFailed)
    }

    @Test func aCAThatKeepsItPendingRunsIntoTheDeadline() {
        var options = ACMEIssuance.Options()
        options.deadline = .seconds(30)
        var a = 0, o = 0
        let (step, _, end) = Self.run(options: options) { request, _ in
            if request.url.contains("/authz/"), a >= 1 { return ACMEResponse(status: 200, body: Array(Self.authorization("pending").utf8)) }
            return Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
        }
        guard case .failed(let failure) = step else { Issue.record("\(step)"); return }
        #expect(failure.kind == .timedOut)
        #expect(end.since(Instant(nanoseconds: 1_000_000_000)) == .seconds(30))
    }

    /// Answers an attacker (or a broken CA) might send, each at the step where it hurts.
    @Test(arguments: [
        ("directory", "not json", "not a JSON object"),
        ("directory", #"{"newNonce": "http://example.com/n", "newAccount": "https://e/a", "newOrder": "https://e/o"}"#, "https URLs"),
        ("directory", #"[1, 2]"#, "not a JSON object"),
        ("account", #"{"status": "deactivated"}"#, "deactivated"),
        ("order", #"{"status": "pending", "authorizations": [], "finalize": "https://example.com/f"}"#, "authorizations"),
        ("order", #"{"status": "valid", "authorizations": ["https://example.com/a"], "finalize": "https://example.com/f", "certificate": "https://example.com/c"}"#, "valid before it was finalized"),
        ("order", #"{"status": "pending", "authorizations": ["https://example.com/a b"], "finalize": "https://example.com/f"}"#, "authorizations"),
        ("authz", #"{"status": "pending", "identifier": {"type": "ip", "value": "11.0.0.2"}, "challenges": [{"type": "tls-alpn-01", "url": "https://example.com/c", "token": "../../../etc/passwd"}]}"#, "token"),
        ("authz", #"{"status": "pending", "identifier": {"type": "ip", "value": "11.0.0.2"}, "challenges": [{"type": "tls-alpn-01", "url": "https://example.com/c", "token": "short"}]}"#, "token"),
        ("authz", #"{"status": "pending", "identifier": {"type": "ip", "value": "203.0.113.9"}, "challenges": []}"#, "not 11.0.0.2"),
        ("authz", #"{"status": "pending", "identifier": {"type": "ip", "value": "11.0.0.2"}, "challenges": [{"type": "dns-01", "url": "https://example.com/c", "token": "DGyRejmCefe7v4NfDGDKfA"}]}"#, "offers: dns-01"),
        ("authz", #"{"status": "revoked", "identifier": {"type": "ip", "value": "11.0.0.2"}, "challenges": []}"#, "revoked"),
        ("cert", "<html>hello</html>", "not a PEM chain"),
        ("cert", "-----BEGIN CERTIFICATE-----\n\u{1B}]52;c;aGk=\u{07}\n", "not a PEM chain"),
        ("huge", "", "bytes"),
    ])
    func aHostileAnswerEndsTheIssuanceWithAReason(step: String, body: String, expected: String) {
        var a = 0, o = 0
        let (final, _, _) = Self.run { request, _ in
            var response = Self.issuingCA(request, authorizationPolls: &a, orderPolls: &o)
            let replace = switch step {
            case "directory": request.method == .get
            case "account": request.url.hasSuffix("new-account")
            case "order": request.url.hasSuffix("new-order")
            case "authz": request.url.contains("/authz/")
            case "cert", "huge": request.url.contains("/cert/")
            default: false
            }
            if replace { response.body = step == "huge" ? [UInt8](repeating: 0x41, count: ACMEIssuance.maximumBody + 1) : Array(body.utf8) }
            return response
        }
        guard case .failed(let failure) = final else { Issue.record("\(step): \(final)"); return }
        #expect(failure.message.contains(expected), "\(failure.message)")
    }

    @Test func anUnreachableCAEndsTheIssuance() {
        var issuance = ACMEIssuance(directory: Self.directory, identifier: Self.identifier, key: FixedKey(), csr: [1])
        let now = Instant(nanoseconds: 0)
        guard case .send = issuance.next(now: now) else { Issue.record("no request"); return }
        issuance.unreachable("connection refused")
        guard case .failed(let failure) = issuance.next(now: now) else { Issue.record("not failed"); return }
        #expect(failure.kind == .unreachable && failure.message.contains("connection refused"))
    }
}
