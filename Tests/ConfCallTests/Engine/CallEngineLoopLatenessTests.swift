import ConfCall
import ConfCore
import ConfWire
import Testing

/// The driver's word that its loop runs late (`Input.loopLate`) reaching the standing-queue guard.
@Suite struct CallEngineLoopLatenessTests {
    /// ann's route to bob grows 200 ms longer mid-call: the queue meter reads 200 ms standing
    /// with conf's frequent feedback. A prompt sender's guard cuts twice, sees the reading not
    /// answer, and takes the longer route for the path (the reading back to 0). A sender whose
    /// loop is held up cannot tell that reading from its own lateness and leaves it to the
    /// detector, which reads trends: the reading stands.
    @Test(arguments: [false, true]) func aLongerRouteIsJudgedOnlyByAPromptSender(heldUp: Bool) throws {
        let (call, people) = try SimulatedCall.connectedMesh(["ann", "bob"], seed: 51, media: .audioAndVideo(kbps: 600),
                                                             beforeJoining: { call, people in
            call.network.setConditions(LinkConditions(delay: .milliseconds(20)), from: people[0].id, to: people[1].id)
        })
        let ann = people[0], bob = people[1]
        call.run(for: .seconds(8))
        call.network.setConditions(LinkConditions(delay: .milliseconds(220)), from: ann.id, to: bob.id)
        let start = call.now
        for _ in 0..<40 {
            // A timer 30 ms late every quarter of a second, as a loaded machine's.
            if heldUp { ann.pending.append(.loopLate(by: .milliseconds(30))) }
            call.run(for: .milliseconds(250))
        }
        let queues = ann.events.filter { $0.at >= start + .seconds(5) }.flatMap { entry -> [Int] in
            if case .linkStats(let links) = entry.event { links.map { Int($0.queueDelay.milliseconds) } } else { [] }
        }
        print("route 200 ms longer, held up \(heldUp): queue readings from 5 s \(queues) ms")
        #expect(queues.count >= 4)
        if heldUp {
            #expect(queues.allSatisfy { $0 >= 150 }, "the guard stood aside: \(queues)")
        } else {
            #expect(queues.allSatisfy { $0 < 50 }, "the guard took the longer route for the path: \(queues)")
        }
    }
}
