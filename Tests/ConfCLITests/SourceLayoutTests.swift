import Foundation
import Testing

/// The layout rule of issue 9: small files with one job, none over 300 lines. A file that grows
/// past it has grown a second job; split it (as CallDriver+Ice.swift was split from CallDriver).
struct SourceLayoutTests {
    static let limit = 300

    @Test func noSourceFileIsOverThreeHundredLines() throws {
        let sources = GeneratedFilesTests.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { ["swift", "c", "h"].contains($0.pathExtension) }
        #expect(files.count > 100, "found \(files.count) source files under \(sources.path)")
        let long = try files.compactMap { url -> String? in
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            return lines > Self.limit ? "\(url.path.dropFirst(sources.path.count + 1)): \(lines) lines" : nil
        }
        #expect(long.isEmpty, "over \(Self.limit) lines: \(long)")
    }
}
