import ConfCall
import ConfCore
import Testing

extension SimulatedCall {
    /// ann and bob on a fresh call (`configure` sees it before anyone is added), in the room,
    /// connected both ways and announced (`peer-connected` on each side) within `limit`.
    static func connectedPair(seed: UInt64, sendingAudio: Bool = false, within limit: Duration = .seconds(5),
                              configure: (SimulatedCall) -> Void = { _ in }) throws -> (SimulatedCall, Participant, Participant) {
        let call = SimulatedCall(seed: seed, handshake: .fakeDTLS)
        configure(call)
        let ann = try call.add("ann"), bob = try call.add("bob")
        ann.sendsAudio = sendingAudio
        bob.sendsAudio = sendingAudio
        call.join(ann)
        call.join(bob)
        let up = call.run(for: limit) { call.fullMesh([ann, bob]) && !ann.connectedEvents.isEmpty && !bob.connectedEvents.isEmpty }
        #expect(up, "ann: \(ann.events.map { "\($0.at) \($0.event)" }), bob: \(bob.events.map { "\($0.at) \($0.event)" })")
        return (call, ann, bob)
    }
}
