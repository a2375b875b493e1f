@testable import ConfApp
import ConfDriver
import ConfWire
import Testing

@Suite struct CallCommandTests {
    @Test func admitAndDenyTakeAKnockID() throws {
        #expect(try CallCommand.parse("admit k1") == .admit(KnockID("k1")!))
        #expect(try CallCommand.parse("  deny k12") == .deny(KnockID("k12")!))
        #expect(throws: CommandLineProblem.self) { try CallCommand.parse("admit") }
        #expect(throws: CommandLineProblem.self) { try CallCommand.parse("admit p2") }
        #expect(throws: CommandLineProblem.self) { try CallCommand.parse("deny k1; rm") }
    }

    @Test func cameraTakesOffOrOnAndHideAndShowTakeAParticipant() throws {
        #expect(try CallCommand.parse("camera off") == .camera(on: false))
        #expect(try CallCommand.parse("camera on") == .camera(on: true))
        #expect(try CallCommand.parse("hide ann") == .hideVideo("ann"))
        #expect(try CallCommand.parse("show p2") == .showVideo("p2"))
        #expect(try CallCommand.parse("camera next") == .switchCamera(nil))
        #expect(try CallCommand.parse("camera /dev/video1") == .switchCamera("/dev/video1"))
        #expect(try CallCommand.parse("camera v4l2:/dev/video2") == .switchCamera("/dev/video2"))
        for line in ["camera", "camera front", "hide", "show"] {
            #expect(throws: CommandLineProblem.self, "\(line)") { try CallCommand.parse(line) }
        }
    }

    /// Each documented form's example is a command, and each command's first word is documented.
    @Test(arguments: CallCommand.reference.map(\.example))
    func everyDocumentedExampleParses(_ line: String) throws {
        #expect(try CallCommand.parse(line) != nil)
    }

    @Test func everyCommandWordIsDocumented() throws {
        let documented = Set(CallCommand.reference.map { String($0.usage.split(separator: " ")[0]) })
        for word in ["mute", "unmute", "mute-peer", "unmute-peer", "camera", "hide", "show", "say", "play", "admit", "deny", "leave"] {
            #expect(documented.contains(word), "\(word) is a command but not in CallCommand.reference")
        }
        #expect(throws: CommandLineProblem.self) { try CallCommand.parse("dance") }
    }

    @Test func notAdmittedHasItsOwnExitCode() {
        #expect(ExitCode(ErrorCode.notAdmitted) == .notAdmitted && ExitCode.notAdmitted.rawValue == 10)
    }
}
