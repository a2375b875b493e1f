import ConfApp
import ConfCLI
import Foundation
import Testing
import TestSupport

/// Completion scripts exercised in the real shells (zsh and fish only where installed).
@Suite struct ShellCompletionTests {
    static func which(_ name: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Completes `line` in bash with the generated script and returns the candidates.
    static func bashComplete(_ line: String) throws -> [String] {
        let script = BashCompletionGenerator.script(for: ConfProgram.program)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-bash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try script.write(to: dir.appendingPathComponent("conf.bash"), atomically: true, encoding: .utf8)
        try "".write(to: dir.appendingPathComponent("hello.wav"), atomically: true, encoding: .utf8)
        // The conf built beside these tests, for values only the program knows (`conf devices --names`).
        let built = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let driver = """
        export PATH='\(built)':"$PATH"
        source '\(dir.path)/conf.bash'
        cd '\(dir.path)'
        COMP_LINE='\(line)'
        read -ra COMP_WORDS <<< "$COMP_LINE"
        [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _conf
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let result = try runToEnd("/bin/bash", ["--norc", "--noprofile", "-c", driver])
        #expect(result.status == 0, "\(result.output)")
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsAndValues() throws {
        #expect(try Self.bashComplete("conf j") == ["join"])
        #expect(try Self.bashComplete("conf join --se") == ["--server"])
        let joinS = ConfProgram.program.root.subcommand(named: "join")!.options.map { "--" + $0.long }.filter { $0.hasPrefix("--s") }
        #expect(joinS.count > 2)
        #expect(try Self.bashComplete("conf join --s") == joinS)
        #expect(Set(try Self.bashComplete("conf ")) == ["host", "join", "check", "rendezvous", "devices", "completions", "help"])
        #expect(try Self.bashComplete("conf host --resolution 7") == ["720p"])
        #expect(try Self.bashComplete("conf completions z") == ["zsh"])
        #expect(try Self.bashComplete("conf help ren") == ["rendezvous"])
        #expect(try Self.bashComplete("conf rendezvous --tls-cert hel") == ["hello.wav"])
        #expect(try Self.bashComplete("conf join --server ").isEmpty)
        // The test sources, from conf itself; the devices too where a sound server runs.
        #expect(try Self.bashComplete("conf join --audio-source t") == ["tone:440"])
        #expect(try Self.bashComplete("conf host --video-source pattern") == ["pattern", "pattern:noisy", "pattern:clock"])
        #expect(try Self.bashComplete("conf join --audio-sink n") == ["none"])
    }

    /// Completes `line` in a real interactive zsh (driven through zpty, with compinit) and returns
    /// what the completion system offered.
    static func zshComplete(_ line: String, zsh: String, dir: URL) throws -> [String] {
        let driver = """
        zmodload zsh/zpty
        zpty z zsh -f -i
        zpty -w z "PROMPT='' ; fpath=('\(dir.path)' \\$fpath); autoload -U compinit; compinit -u -D"
        zpty -w z "compadd () { builtin compadd -O __hits \\"\\$@\\"; print -rl -- '' \\${(@)__hits/#/@@C@@} >/dev/tty; builtin compadd \\"\\$@\\" }"
        zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no"
        zpty -w z "$1"$'\\t'
        zpty -w z $'\\C-u'"print @@DONE@@"$'\\n'
        out=""
        while zpty -r z chunk; do out+="$chunk"; [[ $out == *@@DONE@@*@@DONE@@* ]] && break; done
        print -r -- "$out"
        """
        let script = dir.appendingPathComponent("capture.zsh")
        try driver.write(to: script, atomically: true, encoding: .utf8)
        let result = try runToEnd("/usr/bin/timeout", ["20", zsh, "-f", script.path, line])
        var hits = Set<String>()
        for part in result.output.components(separatedBy: "@@C@@").dropFirst() {
            let word = String(part.prefix { !$0.isWhitespace && $0 != "}" })
            if !word.isEmpty { hits.insert(word) }
        }
        return hits.sorted()
    }

    @Test(.enabled(if: ShellCompletionTests.which("zsh") != nil, "zsh is not installed (scripts/install-deps --test)"))
    func zshCompletesCommandsOptionsAndValues() throws {
        let zsh = try #require(Self.which("zsh"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-zsh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try ZshCompletionGenerator.script(for: ConfProgram.program).write(to: dir.appendingPathComponent("_conf"), atomically: true, encoding: .utf8)
        #expect(try Self.zshComplete("conf j", zsh: zsh, dir: dir) == ["join"])
        #expect(try Self.zshComplete("conf join --se", zsh: zsh, dir: dir) == ["--server"])
        #expect(try Self.zshComplete("conf host --resolution ", zsh: zsh, dir: dir) == ["240p", "360p", "480p", "720p"])
        #expect(try Self.zshComplete("conf completions ", zsh: zsh, dir: dir) == ["bash", "fish", "zsh"])
    }

    @Test(.enabled(if: ShellCompletionTests.which("fish") != nil, "fish is not installed (scripts/install-deps --test)"))
    func fishCompletes() throws {
        let fish = try #require(Self.which("fish"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-fish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("conf.fish")
        try FishCompletionGenerator.script(for: ConfProgram.program).write(to: path, atomically: true, encoding: .utf8)
        let result = try runToEnd(fish, ["--no-config", "-c", "source '\(path.path)'; complete -C 'conf j'; echo ---; complete -C 'conf join --se'; echo ---; complete -C 'conf host --resolution '"])
        let parts = result.output.components(separatedBy: "---\n")
        #expect(parts.count == 3, "\(result.output)")
        guard parts.count == 3 else { return }
        #expect(parts[0].hasPrefix("join\t"))
        #expect(parts[1].hasPrefix("--server\t"))
        #expect(parts[2].split(separator: "\n").map { String($0.split(separator: "\t")[0]) } == ["240p", "360p", "480p", "720p"])
    }
}
