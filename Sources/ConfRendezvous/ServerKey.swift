import ConfCore
import ConfWire

/// The rendezvous's secret, seen only as a keyed hash: HMAC-SHA256 under the secret, 32 bytes out.
/// Injected so that the core stays pure and writes no cryptography of its own; the app wires in
/// ConfCrypto's OpenSSL HMAC. It authenticates resume tokens and derives every room's pins
/// (docs/SECURITY.md, "Resume tokens").
public struct ServerKey: Sendable {
    private let mac: @Sendable ([UInt8]) -> [UInt8]

    public init(mac: @escaping @Sendable ([UInt8]) -> [UInt8]) { self.mac = mac }

    func authenticate(_ text: String) -> [UInt8] { mac(Array(text.utf8)) }

    /// A room's two pins, derived from the secret and the room id, so that a restarted rendezvous
    /// with the same secret can recreate a room a valid token names, pins and all. The listen-only
    /// pin is drawn again (with a counter) in the one case in a million it equals the pin.
    func pins(for room: RoomID) -> (pin: Pin, listenPin: Pin) {
        let pin = derivedPin("conf pin v1 \(room.rawValue)")
        var counter = 0
        var listenPin: Pin
        repeat {
            listenPin = derivedPin("conf listen-pin v1 \(room.rawValue) \(counter)")
            counter += 1
        } while listenPin == pin
        return (pin, listenPin)
    }

    /// Six digits from the first 64 bits of the hash (the modulo bias is below 10^-13).
    private func derivedPin(_ label: String) -> Pin {
        let value = authenticate(label).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
        let digits = String(value)
        return Pin(String(repeating: "0", count: 6 - digits.count) + digits)!
    }
}

/// Relates the monotonic `Instant`s the core is fed to Unix time, measured once by the app at
/// start: resume tokens carry an expiry that must mean the same after a restart.
public struct WallClockAnchor: Sendable {
    public var instant: Instant
    public var unixSeconds: Int64

    public init(instant: Instant, unixSeconds: Int64) {
        self.instant = instant
        self.unixSeconds = unixSeconds
    }

    func unixSeconds(at now: Instant) -> Int64 {
        now >= instant ? unixSeconds + Int64((now.nanoseconds - instant.nanoseconds) / 1_000_000_000)
                       : unixSeconds - Int64((instant.nanoseconds - now.nanoseconds) / 1_000_000_000)
    }
}
