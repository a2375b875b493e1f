@testable import ConfCall
import ConfCore
import ConfWire
import Testing

/// One link's transport on its own: two links' DTLS driven against each other through their
/// outboxes, with no engine (`FakeDTLS`, real SRTP).
@Suite struct LinkTransportTests {
    let start = Instant.zero + .seconds(1)

    /// A client and a server link on fake DTLS; the client's ICE is connected.
    func pair() throws -> (client: Link, server: Link, clientSecurity: FakeSecurity, serverSecurity: FakeSecurity) {
        var random = SeededRandom(seed: 5)
        let clientSecurity = FakeSecurity(seed: 1), serverSecurity = FakeSecurity(seed: 2)
        let client = Link(peer: Participant(id: ParticipantID("p2"), name: "bob", role: .publisher), controlling: true, now: start, random: &random)
        let server = Link(peer: Participant(id: ParticipantID("p1"), name: "ann", role: .publisher), controlling: false, now: start, random: &random)
        client.dtls = try clientSecurity.makeDTLS(role: .client, remoteFingerprints: [serverSecurity.fingerprint])
        server.dtls = try serverSecurity.makeDTLS(role: .server, remoteFingerprints: [clientSecurity.fingerprint])
        return (client, server, clientSecurity, serverSecurity)
    }

    /// What `link` queued to send, as datagrams.
    func datagrams(_ link: Link) -> [[UInt8]] {
        var outputs: [CallEngine.Output] = []
        link.passOutbox(to: &outputs)
        return outputs.compactMap { if case .transmit(_, let bytes) = $0 { bytes } else { nil } }
    }

    /// The client starts only once ICE has a pair; the flights then go back and forth through
    /// the outboxes until each side says `.connected`, once, with SRTP keyed.
    @Test func twoLinksConnectThroughTheirOutboxes() throws {
        let (client, server, clientSecurity, serverSecurity) = try pair()
        #expect(client.startDTLSIfReady(now: start, security: clientSecurity).isEmpty)
        #expect(datagrams(client).isEmpty, "no ClientHello before ICE has a pair")
        client.iceConnected = true
        var clientEvents = client.startDTLSIfReady(now: start, security: clientSecurity), serverEvents: [Link.TransportEvent] = []
        var toServer = datagrams(client), toClient: [[UInt8]] = []
        #expect(!toServer.isEmpty, "the ClientHello")
        for _ in 0..<4 where !(toServer.isEmpty && toClient.isEmpty) {
            for datagram in toServer { serverEvents += server.receivedDTLS(datagram, now: start, security: serverSecurity) }
            toServer = []
            toClient = datagrams(server)
            for datagram in toClient { clientEvents += client.receivedDTLS(datagram, now: start, security: clientSecurity) }
            toClient = []
            toServer = datagrams(client)
        }
        #expect(clientEvents == [.connected] && serverEvents == [.connected])
        #expect(client.srtp != nil && server.srtp != nil && client.heardDTLS && server.heardDTLS)
        #expect(server.dtlsStartedAt == start, "the server's handshake starts with the ClientHello")
    }

    /// The association closed from our side: a close_notify waits in the outbox, and the peer's
    /// link reads it as the peer closing.
    @Test func aCloseReachesThePeerAsClosedByThePeer() throws {
        let (client, server, clientSecurity, serverSecurity) = try pair()
        client.iceConnected = true
        _ = client.startDTLSIfReady(now: start, security: clientSecurity)
        for _ in 0..<4 {
            for datagram in datagrams(client) { _ = server.receivedDTLS(datagram, now: start, security: serverSecurity) }
            for datagram in datagrams(server) { _ = client.receivedDTLS(datagram, now: start, security: clientSecurity) }
        }
        client.closeDTLS()
        let closing = datagrams(client)
        #expect(closing.count == 1)
        let events = closing.flatMap { server.receivedDTLS($0, now: start, security: serverSecurity) }
        #expect(events == [.ended(.closedByPeer)])
    }
}
