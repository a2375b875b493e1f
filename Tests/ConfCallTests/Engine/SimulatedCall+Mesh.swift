import ConfCall
import ConfCore
import Testing

extension SimulatedCall {
    /// What each participant of a test mesh sends: audio frames, and layered video starting at
    /// `videoKbps` (nil: none).
    struct MeshMedia {
        var audio = false
        var videoKbps: Int?

        static let none = MeshMedia()
        static let audio = MeshMedia(audio: true)
        static func audioAndVideo(kbps: Int) -> MeshMedia { MeshMedia(audio: true, videoKbps: kbps) }
    }

    /// The one way a test forms a call: `names` on a fresh call (`network` sees it before anyone
    /// is added, `configure` each one's engine, `beforeJoining` everyone before they join), all
    /// in the room, each pair connected both ways and announced (`peer-connected` on each side)
    /// within `limit`.
    static func connectedMesh(_ names: [String], seed: UInt64, media: MeshMedia = .none, within limit: Duration = .seconds(5),
                              network: (SimulatedCall) -> Void = { _ in },
                              configure: (String, inout CallEngine.Configuration) -> Void = { _, _ in },
                              beforeJoining: (SimulatedCall, [Participant]) -> Void = { _, _ in }) throws -> (SimulatedCall, [Participant]) {
        let call = SimulatedCall(seed: seed, handshake: .fakeDTLS)
        network(call)
        let people = try names.map { name in
            try call.add(name) { configuration in
                if let kbps = media.videoKbps {
                    configuration.videoBitrateKbps = kbps
                    configuration.statsInterval = .seconds(1)
                }
                configure(name, &configuration)
            }
        }
        for person in people {
            person.sendsAudio = media.audio
            if let kbps = media.videoKbps {
                person.sendsVideo = true
                person.layeredVideo = LayeredVideoSource(startKbps: kbps)
            }
        }
        beforeJoining(call, people)
        for person in people { call.join(person) }
        let up = call.run(for: limit) { call.fullMesh(people) && people.allSatisfy { $0.connectedEvents.count >= people.count - 1 } }
        #expect(up, "\(people.map { person in "\(person.name): \(person.events.map { "\($0.at) \($0.event)" })" })")
        return (call, people)
    }

    /// ann and bob, connected (`connectedMesh`).
    static func connectedPair(seed: UInt64, media: MeshMedia = .none, within limit: Duration = .seconds(5),
                              network: (SimulatedCall) -> Void = { _ in }) throws -> (SimulatedCall, Participant, Participant) {
        let (call, people) = try connectedMesh(["ann", "bob"], seed: seed, media: media, within: limit, network: network)
        return (call, people[0], people[1])
    }
}
