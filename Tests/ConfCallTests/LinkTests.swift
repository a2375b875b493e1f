@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// One link on its own, through its one way in (`handle`): two links driven against each other
/// through their outboxes, with no engine (`FakeDTLS`, real SRTP).
@Suite struct LinkTests {
    let start = Instant.zero + .seconds(1)

    /// A client and a server link on fake DTLS, their ICE not yet connected.
    func pair(connectTimeout: Duration = .seconds(15)) throws -> (client: Link, server: Link) {
        var random = SeededRandom(seed: 5)
        let clientSecurity = FakeSecurity(seed: 1), serverSecurity = FakeSecurity(seed: 2)
        let client = Link(peer: Participant(id: ParticipantID("p2"), name: "bob", role: .publisher), controlling: true,
                          settings: .init(security: clientSecurity, connectTimeout: connectTimeout), now: start, random: &random)
        let server = Link(peer: Participant(id: ParticipantID("p1"), name: "ann", role: .publisher), controlling: false,
                          settings: .init(security: serverSecurity, connectTimeout: connectTimeout), now: start, random: &random)
        client.dtls = try clientSecurity.makeDTLS(role: .client, remoteFingerprints: [serverSecurity.fingerprint])
        server.dtls = try serverSecurity.makeDTLS(role: .server, remoteFingerprints: [clientSecurity.fingerprint])
        return (client, server)
    }

    /// What `link` queued to send, as datagrams.
    func datagrams(_ link: Link) -> [[UInt8]] {
        var outputs: [CallEngine.Output] = []
        link.passOutbox(to: &outputs)
        return outputs.compactMap { if case .transmit(_, let bytes) = $0 { bytes } else { nil } }
    }

    func deliver(_ datagrams: [[UInt8]], to link: Link, at now: Instant) -> [Link.Event] {
        datagrams.flatMap { link.handle(.datagram($0, senderHeldUp: false), now: now) }
    }

    /// Both links' ICE up and their flights exchanged until neither has more to say; the
    /// events each gave, in order.
    @discardableResult
    func connect(_ client: Link, _ server: Link, at now: Instant) -> (client: [Link.Event], server: [Link.Event]) {
        var clientEvents = server.handle(.iceState(.connected), now: now) + client.handle(.iceState(.connected), now: now)
        var serverEvents: [Link.Event] = []
        for _ in 0..<4 {
            serverEvents += deliver(datagrams(client), to: server, at: now)
            clientEvents += deliver(datagrams(server), to: client, at: now)
        }
        return (clientEvents, serverEvents)
    }

    /// The client starts only once ICE has a pair; the flights then go back and forth through
    /// the outboxes until each side says `.connected`, once, with SRTP keyed: each link became
    /// connected by itself.
    @Test func twoLinksConnectThroughTheirOutboxes() throws {
        let (client, server) = try pair()
        #expect(client.handle(.iceState(.checking), now: start).isEmpty)
        #expect(datagrams(client).isEmpty, "no ClientHello before ICE has a pair")
        let (clientEvents, serverEvents) = connect(client, server, at: start)
        #expect(clientEvents == [.connected] && serverEvents == [.connected])
        #expect(client.phase == .connected && server.phase == .connected)
        #expect(client.srtp != nil && server.srtp != nil && client.heardDTLS && server.heardDTLS)
        #expect(server.dtlsStartedAt == start, "the server's handshake starts with the ClientHello")
    }

    /// The association closed from our side: a close_notify waits in the outbox, and the peer's
    /// link reads it as the peer closing.
    @Test func aCloseReachesThePeerAsClosedByThePeer() throws {
        let (client, server) = try pair()
        connect(client, server, at: start)
        client.closeDTLS()
        let closing = datagrams(client)
        #expect(closing.count == 1)
        #expect(deliver(closing, to: server, at: start) == [.ended(.closedByPeer)])
    }

    /// ICE failing ends the link: a path that never worked is `no-path` with what its candidates
    /// say, one that worked is `path-failed`. The link does not end itself (the engine reports
    /// it first), and a link the engine ended takes nothing more.
    @Test func iceFailingEndsTheLinkForTheReasonItsPhaseGives() throws {
        let (client, server) = try pair()
        #expect(client.handle(.iceState(.failed), now: start) == [.ended(.noPath(within: nil, cause: .unknown))])
        connect(client, server, at: start)
        #expect(server.handle(.iceState(.failed), now: start) == [.ended(.pathFailed)])
        #expect(server.phase == .connected)
        server.end()
        #expect(server.handle(.iceState(.failed), now: start).isEmpty)
    }

    /// A connected link that hears nothing ends itself for silence: the DTLS client after the
    /// silence limit, the server (whose last flight may still be being retried) after the
    /// connect timeout until it hears the peer's SRTP.
    @Test func silenceEndsTheLinkAfterItsRoleAllows() throws {
        let (client, server) = try pair(connectTimeout: .seconds(10))
        connect(client, server, at: start)
        let tick = Link.Input.timeout(reportInterval: .seconds(100), afterDatagram: false)
        let justBefore = start + Link.silenceLimit - .milliseconds(1)
        #expect(client.handle(tick, now: justBefore).isEmpty)
        #expect(client.handle(tick, now: start + Link.silenceLimit) == [.ended(.silence(limit: Link.silenceLimit))])
        #expect(server.handle(tick, now: start + Link.silenceLimit).isEmpty, "the server waits the connect timeout")
        #expect(server.handle(tick, now: start + .seconds(10)) == [.ended(.silence(limit: .seconds(10)))])
    }

    /// A PLI from the peer is for the engine (one encoder serves every link); a NACK the link
    /// answers by itself.
    @Test func aPictureLossGoesToTheEngine() throws {
        let (client, server) = try pair()
        connect(client, server, at: start)
        client.sendRTCP(.pictureLossIndication(sender: client.audioSSRC, media: server.videoSSRC))
        #expect(deliver(datagrams(client), to: server, at: start) == [.pictureLost])
    }
}
