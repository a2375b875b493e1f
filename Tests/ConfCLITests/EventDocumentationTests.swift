import ConfApp
import ConfCall
import Foundation
import Testing

/// The README's events table and the man page's JSON EVENTS (from ConfProgram) list exactly the
/// event types conf prints: one per `CallEvent` case. A new case without documentation fails here.
@Suite struct EventDocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The first cell of each row of the table under "### JSON events" whose header is `| \`type\` |`.
    static func readmeEventTypes() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
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

    @Test func readmeListsExactlyTheEventTypes() throws {
        let documented = try Self.readmeEventTypes()
        #expect(documented.count == Set(documented).count, "a type listed twice: \(documented)")
        #expect(Set(documented).subtracting(CallEvent.allTypes).isEmpty, "in README.md but not an event: \(Set(documented).subtracting(CallEvent.allTypes))")
        #expect(Set(CallEvent.allTypes).subtracting(documented).isEmpty, "events missing from README.md: \(Set(CallEvent.allTypes).subtracting(documented))")
    }

    @Test func manPageListsExactlyTheEventTypes() {
        let documented = ConfProgram.program.info.events.map(\.name)
        #expect(documented.count == Set(documented).count, "a type listed twice: \(documented)")
        #expect(Set(documented).subtracting(CallEvent.allTypes).isEmpty, "in ConfProgram's events but not an event: \(Set(documented).subtracting(CallEvent.allTypes))")
        #expect(Set(CallEvent.allTypes).subtracting(documented).isEmpty, "events missing from ConfProgram's events (man page): \(Set(CallEvent.allTypes).subtracting(documented))")
    }

    /// peer-disconnected's codes are documented where scripts look for them.
    @Test func disconnectCodesAreDocumented() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let manEntry = ConfProgram.program.info.events.first { $0.name == "peer-disconnected" }
        for code in DisconnectCode.allCases {
            #expect(readme.contains("`\(code.rawValue)`"), "README lacks \(code.rawValue)")
            #expect(manEntry?.meaning.contains(code.rawValue) == true, "the man page lacks \(code.rawValue)")
        }
        #expect(manEntry?.fields.contains("code") == true)
    }
}
