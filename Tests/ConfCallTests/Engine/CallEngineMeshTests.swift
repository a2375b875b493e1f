import ConfCall
import ConfCore
import ConfWire
import Testing

@Suite struct CallEngineMeshTests {
    @Test func twoParticipantsConnectAndChat() throws {
        let call = SimulatedCall(seed: 1)
        let ann = try call.add("ann")
        let bob = try call.add("bob") { $0.say = ["hello from bob"] }
        call.join(ann)
        call.run(for: .milliseconds(50))
        call.join(bob)
        #expect(call.run(for: .seconds(5)) { call.fullMesh([ann, bob]) && ann.chats.contains("hello from bob") && !ann.connectedEvents.isEmpty && !bob.connectedEvents.isEmpty })
        let annSide = try #require(ann.connectedEvents.first), bobSide = try #require(bob.connectedEvents.first)
        #expect(annSide.sas == bobSide.sas && !annSide.sas.isEmpty, "both read the same words")
        #expect(annSide.rttMilliseconds >= 35 && annSide.rttMilliseconds < 100, "a 20 ms one-way network: \(annSide.rttMilliseconds) ms")
    }
}
