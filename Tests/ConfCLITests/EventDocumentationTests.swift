import ConfApp
import ConfCall
import Foundation
import Testing

/// docs/REFERENCE.md's events table and the man page's JSON EVENTS (both from ConfProgram) list
/// exactly the event types conf prints: one per `CallEvent` case.
@Suite struct EventDocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func reference() throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/REFERENCE.md"), encoding: .utf8)
    }

    /// The first cell of each row of the table whose header is `| \`type\` |`.
    static func referenceEventTypes() throws -> [String] {
        let lines = try reference().split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| `type` |") }) else { return [] }
        var types: [String] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| `") else { break }
            let cell = line.dropFirst(3)
            guard let end = cell.firstIndex(of: "`") else { break }
            types.append(String(cell[..<end]))
        }
        return types
    }

    @Test func theEnumHasOneTypePerCase() {
        #expect(Set(CallEvent.allTypes).count == CallEvent.allTypes.count)
        #expect(CallEvent.allTypes.contains("peer-disconnected") && CallEvent.allTypes.contains("rendezvous-closed"))
    }

    @Test func theReferenceListsExactlyTheEventTypes() throws {
        let documented = try Self.referenceEventTypes()
        #expect(documented.count == Set(documented).count, "a type listed twice: \(documented)")
        #expect(Set(documented) == Set(CallEvent.allTypes), "docs/REFERENCE.md against CallEvent: \(Set(documented).symmetricDifference(CallEvent.allTypes))")
    }

    @Test func manPageListsExactlyTheEventTypes() {
        let documented = ConfProgram.program.info.events.map(\.name)
        #expect(documented.count == Set(documented).count, "a type listed twice: \(documented)")
        #expect(Set(documented) == Set(CallEvent.allTypes), "ConfProgram's events against CallEvent: \(Set(documented).symmetricDifference(CallEvent.allTypes))")
    }

    /// peer-disconnected's codes are documented where scripts look for them.
    @Test func disconnectCodesAreDocumented() throws {
        let reference = try Self.reference()
        let manEntry = ConfProgram.program.info.events.first { $0.name == "peer-disconnected" }
        for code in DisconnectCode.allCases {
            #expect(reference.contains(code.rawValue), "docs/REFERENCE.md lacks \(code.rawValue)")
            #expect(manEntry?.meaning.contains(code.rawValue) == true, "the man page lacks \(code.rawValue)")
        }
        #expect(manEntry?.fields.contains("code") == true)
    }
}
