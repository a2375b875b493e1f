import ConfWire
import Testing

/// The link conf host hands out, read back by conf join, and what is not one.
struct InvitationLinkTests {
    static let fingerprint = ServerFingerprint(sha256: Array(0..<32))

    @Test func aLinkReadsBackAsItWasWritten() throws {
        let server = try RendezvousAddress.parse("192.0.2.5:7373").get()
        let link = InvitationLink(server: server, room: try #require(RoomID("4821-7734")), pin: try #require(Pin("381204")),
                                  fingerprint: Self.fingerprint)
        #expect(link.text == "https://192.0.2.5:7373/#room=4821-7734&pin=381204&fp=\(Self.fingerprint.digits)")
        #expect(try InvitationLink.parse(link.text).get() == link)
    }

    @Test func anIPv6AddressAPlainLoopbackLinkAndAPagesOwnMembers() throws {
        let v6 = try InvitationLink.parse("https://[2001:db8::1]:7373/#room=48217734&pin=000001&name=ann&join=1").get()
        #expect(v6.server.endpoint == HostPort(host: "2001:db8::1", port: 7373) && v6.server.secure)
        #expect(v6.room.rawValue == "4821-7734" && v6.pin.digits == "000001" && v6.fingerprint == nil)
        #expect(v6.text == "https://[2001:db8::1]:7373/#room=4821-7734&pin=000001")
        let plain = try InvitationLink.parse("http://127.0.0.1:40001/#room=4821-7734&pin=381204").get()
        #expect(!plain.server.secure && plain.server.isLoopback)
        // A dashed fingerprint, as --fingerprint takes it, and no port: HTTPS's.
        let dashed = try InvitationLink.parse("https://call.example.org#room=4821-7734&pin=381204&fp=k3f7-2m7q-x4ab-h6tn-c2wz-p7r5-ve").get()
        #expect(dashed.server.endpoint.port == 443 && dashed.fingerprint?.digits == "k3f72m7qx4abh6tnc2wzp7r5ve")
        // HTTPS's own port is left out when written, as a browser shows it.
        #expect(dashed.text == "https://call.example.org/#room=4821-7734&pin=381204&fp=k3f72m7qx4abh6tnc2wzp7r5ve")
        #expect(try InvitationLink.parse("https://[2001:db8::1]:443/#room=4821-7734&pin=381204").get().text == "https://[2001:db8::1]/#room=4821-7734&pin=381204")
    }

    @Test(arguments: [
        "4821-7734",                                                       // a room id: not a link
        "ftp://192.0.2.5/#room=4821-7734&pin=381204",
        "https://192.0.2.5:7373/",                                         // the fragment lost in copying
        "https://192.0.2.5:7373/#room=4821-7734",                          // no pin
        "https://192.0.2.5:7373/#pin=381204",                              // no room
        "https://192.0.2.5:7373/#room=4821-773&pin=381204",
        "https://192.0.2.5:7373/#room=4821-7734&pin=38120",
        "https://192.0.2.5:7373/#room=4821-7734&pin=381204&pin=111111",    // twice: which one?
        "https://192.0.2.5:7373/#room=4821-7734&pin=381204&fp=nope",
        "http://192.0.2.5:7373/#room=4821-7734&pin=381204&fp=k3f72m7qx4abh6tnc2wzp7r5ve",  // a certificate without TLS
        "https://192.0.2.5:7373/call/#room=4821-7734&pin=381204",          // a path: not a rendezvous's page
        "https://user@192.0.2.5:7373/#room=4821-7734&pin=381204",
        "https://192.0.2.5:99999/#room=4821-7734&pin=381204",
        "https://#room=4821-7734&pin=381204",
        "https://192.0.2.5 evil/#room=4821-7734&pin=381204",
        "https://192.0.2.5:7373/#room=4821-7734&pin=381204\u{1B}[2J",
        "https://192.0.2.5:7373/#room=4821-7734&pin=381204&x=" + String(repeating: "a", count: 600),
    ])
    func whatIsNotALinkIsRefusedWithAReason(_ text: String) {
        guard case .failure(let problem) = InvitationLink.parse(text) else { Issue.record("read as a link: \(text)"); return }
        #expect(!problem.description.isEmpty)
    }
}
