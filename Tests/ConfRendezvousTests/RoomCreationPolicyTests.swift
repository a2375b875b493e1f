import ConfCore
import ConfRendezvous
import Testing

/// Who may make rooms, as another site's page, a forged client and a key guesser would try it
/// (docs/SECURITY.md, "Who may make rooms").
@Suite struct RoomCreationPolicyTests {
    typealias Request = RoomCreationPolicy.Request
    static let json = "application/json"
    static let key = RoomKey("k3y-of-the-operator-0123")!

    private func isForbidden(_ failure: RendezvousCore.CreateRoomFailure?) -> Bool {
        if case .forbidden? = failure { true } else { false }
    }

    @Test func aBodyNotDeclaredJSONIsRefusedSoThatAnotherSitesPageNeedsAPreflight() {
        let open = RoomCreationPolicy.open
        for type in [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "json"] {
            guard case .unsupportedMediaType? = open.refusal(of: Request(contentType: type)) else {
                Issue.record("\(type ?? "no type") was let through")
                continue
            }
        }
        for type in ["application/json", "Application/JSON; charset=utf-8", " application/json ;charset=UTF-8"] {
            #expect(open.refusal(of: Request(contentType: type)) == nil, "\(type)")
        }
    }

    @Test func aPageOfAnotherOriginIsRefusedAndTheRendezvoussOwnIsNot() {
        let open = RoomCreationPolicy.open
        #expect(isForbidden(open.refusal(of: Request(contentType: Self.json, origin: "https://evil.example", host: "192.0.2.1:7373"))))
        #expect(isForbidden(open.refusal(of: Request(contentType: Self.json, origin: "null", host: "192.0.2.1:7373"))))
        #expect(isForbidden(open.refusal(of: Request(contentType: Self.json, origin: "https://192.0.2.1:7373", host: nil))))
        // A prefix of the host is not the host.
        #expect(isForbidden(open.refusal(of: Request(contentType: Self.json, origin: "https://192.0.2.1:7373.evil.example", host: "192.0.2.1:7373"))))
        #expect(open.refusal(of: Request(contentType: Self.json, origin: "https://192.0.2.1:7373", host: "192.0.2.1:7373")) == nil)
        // A hostile Origin is quoted back clean and short.
        let refusal = open.refusal(of: Request(contentType: Self.json, origin: "https://x\u{1b}[31m" + String(repeating: "a", count: 500), host: "h:1"))
        #expect(refusal?.message.contains("\u{1b}") == false && (refusal?.message.count ?? 0) < 300)
    }

    @Test func aKeyedRendezvousMakesRoomsOnlyForTheKey() {
        let keyed = RoomCreationPolicy(key: Self.key, holder: .operatorOnly)
        let missing = keyed.refusal(of: Request(contentType: Self.json))
        #expect(isForbidden(missing) && missing?.message.contains("room-key") == true)
        for wrong in ["Bearer k3y-of-the-operator-012", "Bearer k3y-of-the-operator-01234", "Bearer K3Y-OF-THE-OPERATOR-0123",
                      "Basic k3y-of-the-operator-0123", "k3y-of-the-operator-0123", "Bearer", ""] {
            #expect(isForbidden(keyed.refusal(of: Request(contentType: Self.json, authorization: wrong))), "\(wrong)")
        }
        #expect(keyed.refusal(of: Request(contentType: Self.json, authorization: "Bearer k3y-of-the-operator-0123")) == nil)
        #expect(keyed.refusal(of: Request(contentType: Self.json, authorization: "bearer  k3y-of-the-operator-0123 ")) == nil)
        // The key does not let another site's page in.
        #expect(isForbidden(keyed.refusal(of: Request(contentType: Self.json, origin: "https://evil.example", host: "h:1",
                                                      authorization: "Bearer k3y-of-the-operator-0123"))))
    }

    @Test func aHostsRendezvousSaysItIsTheHostsAlone() {
        let host = RoomCreationPolicy(key: Self.key, holder: .host)
        let refusal = host.refusal(of: Request(contentType: Self.json))
        #expect(isForbidden(refusal) && refusal?.message.contains("conf host") == true)
    }

    @Test func keysAreBoundedPrintableAndRandomOnesDiffer() {
        #expect(RoomKey("short") == nil)
        #expect(RoomKey(String(repeating: "a", count: 257)) == nil)
        #expect(RoomKey("sixteen chars ok") == nil)  // a space
        #expect(RoomKey("sixteen-chars-ok") != nil)
        #expect(RoomKey("sixteen-chars-\u{7f}k") == nil)
        var random = SystemRandomNumberGenerator()
        let a = RoomKey.random(using: &random), b = RoomKey.random(using: &random)
        #expect(a != b && a.text.count == 32)
    }

    @Test func metricsAreForLoopbackAndTheNetworksNamed() {
        var config = RendezvousConfig()
        for address in ["127.0.0.1", "127.9.8.7", "::1", "::ffff:127.0.0.1"] { #expect(config.mayReadMetrics(address), "\(address)") }
        for address in ["10.1.2.3", "192.0.2.1", "2001:db8::1", "::2", "unknown", ""] { #expect(!config.mayReadMetrics(address), "\(address)") }
        config.metricsFrom = [AddressRange("10.0.0.0/8")!, AddressRange("2001:db8:1::/48")!, AddressRange("192.0.2.7")!]
        for address in ["10.1.2.3", "::ffff:10.0.0.1", "2001:db8:1:ffff::1", "192.0.2.7"] { #expect(config.mayReadMetrics(address), "\(address)") }
        for address in ["11.0.0.1", "2001:db8:2::1", "192.0.2.8"] { #expect(!config.mayReadMetrics(address), "\(address)") }
    }

    @Test func addressRangesParseOnlyWhatTheySay() {
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0/8", "::/129", "10.0.0.0/8/8", "example.org/8", "10.0.0.0/+8", "10.0.0.0/"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
        #expect(AddressRange("0.0.0.0/0")?.contains("203.0.113.9") == true)
        #expect(AddressRange("0.0.0.0/0")?.contains("2001:db8::1") == false)
        #expect(AddressRange("10.128.0.0/9")?.contains("10.127.255.255") == false)
        #expect(AddressRange("10.128.0.0/9")?.contains("10.128.0.0") == true)
        #expect(AddressRange("2001:db8::/32")?.description == "2001:db8:0:0:0:0:0:0/32")
    }
}
