// What the call screen's drawing costs on one core: a 120x40 screen with three others and a full
// chat pane, laid out and compared with the last frame as a quiet call's clock tick does (once a
// second), and as a call with talking does (five times a second, the level meters moving).
//
//     swift build -c release --product screen-bench && .build/release/screen-bench
import ConfScreen
#if canImport(Glibc)
import Glibc
#endif

/// `value` with `digits` decimals (no Foundation here).
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = scaled / Int(scale), fraction = String(abs(scaled) % Int(scale))
    return digits == 0 ? "\(whole)" : "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

var screen = CallScreen(commandsHelp: "mute, unmute, mute-peer WHO, say TEXT, leave")
screen.header.roomName = "standup"
screen.header.room = "4821-7734"
screen.header.microphoneMuted = false
screen.me = .init(id: "p1", name: "ann")
screen.others = ["bob", "cy", "dee"].enumerated().map { index, name in
    var member = CallScreen.Member(id: "p\(index + 2)", name: name)
    member.connected = true
    member.path = "host"
    member.roundTrip = .milliseconds(12 + index)
    member.lossPercent = 0.5
    member.level = 40
    member.words = ["apple", "river", "stone", "cloud"]
    return member
}
for n in 0..<CallScreen.chatLines {
    screen.append(.init(time: "12:00", from: "bob", text: "message number \(n), long enough to be a real line of chat in a call", kind: .message))
}

var renderer = ScreenRenderer(colors: .trueColor)
var bytes = 0
@MainActor func frame(tick: Int, levels: Bool) {
    screen.header.elapsed = .seconds(tick)
    if levels { for index in screen.others.indices { screen.others[index].level = UInt8(20 + (tick * 7 + index * 13) % 40) } }
    let drawing = screen.draw(columns: 120, rows: 40)
    bytes += renderer.frame(drawing.canvas, cursor: drawing.cursor).utf8.count
}

for (name, levels, perSecond) in [("clock tick (quiet call)", false, 1), ("level meters moving", true, 5)] {
    frame(tick: 0, levels: levels)
    bytes = 0
    let frames = 2_000
    let start = cpuSeconds()
    for tick in 1...frames { frame(tick: tick, levels: levels) }
    let perFrame = (cpuSeconds() - start) / Double(frames)
    let share = fixed(perFrame * Double(perSecond) * 100, 3)
    print("\(name): \(fixed(perFrame * 1e6, 0)) µs a frame, \(bytes / frames) bytes a frame; at \(perSecond) a second: \(share) % of a core")
}

// The driver compares the model with the last one drawn five times a second: what that costs.
let copy = screen
let compares = 100_000
let start = cpuSeconds()
var equal = 0
for _ in 0..<compares where copy == screen { equal += 1 }
let perCompare = (cpuSeconds() - start) / Double(compares)
let compareShare = fixed(perCompare * 5 * 100, 4)
print("unchanged model compared: \(fixed(perCompare * 1e6, 1)) µs; at 5 a second: \(compareShare) % of a core (\(equal) equal)")
