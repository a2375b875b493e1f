// What the rendezvous's JSON costs per relayed message: parsing a client's signal and writing it
// out again, for a short payload, a 200-character one (bench/rendezvous_load.c's) and an SDP
// with a dozen candidates (what conf sends, \r\n between lines). Median of 7 rounds.
//
//     swift build -c release --product json-bench && .build/release/json-bench
import ConfCore

var sdp = "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\n"
for i in 0..<12 { sdp += "a=candidate:\(i) 1 udp 2122260223 192.168.1.\(i) 5432\(i % 10) typ host generation 0\r\n" }
let payloads: [(String, JSONValue)] = [
    ("short", .object(["seq": 1])),
    ("200 x", .object(["sdp": .string(String(repeating: "x", count: 200)), "seq": 1])),
    ("SDP \(sdp.utf8.count) B", .object(["type": "offer", "sdp": .string(sdp)])),
]
let clock = ContinuousClock()
let rounds = 7, iterations = 20_000

func median(_ body: () -> Int) -> (Duration, Int) {
    var times: [Duration] = [], check = 0
    for _ in 0..<rounds {
        let elapsed = clock.measure { for _ in 0..<iterations { check &+= body() } }
        times.append(elapsed / iterations)
    }
    return (times.sorted()[rounds / 2], check)
}

func microseconds(_ d: Duration) -> String {
    let (seconds, attoseconds) = d.components
    let hundredths = Int(((Double(seconds) * 1e6 + Double(attoseconds) / 1e12) * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}

print("payload | message bytes | parse | serialize")
for (label, payload) in payloads {
    let message = JSONValue.object(["type": "signal", "to": "p2", "payload": payload]).serialized
    let (parse, _) = median { (try? JSONValue.parse(message)) == nil ? 0 : 1 }
    let parsed = try! JSONValue.parse(message)
    let (write, _) = median { parsed.serialized.utf8.count }
    print("\(label) | \(message.utf8.count) | \(microseconds(parse)) µs | \(microseconds(write)) µs")
}
