import ConfWire

/// What a rendezvous counts for its operator, served at `GET /v1/metrics` in the Prometheus text
/// exposition format (docs/DEPLOY.md, "What to watch"). Counters only grow; gauges are read when
/// the page is made.
public struct RendezvousCounters: Equatable, Sendable {
    public var roomsCreated = 0
    /// Seats taken with a pin (a knock let in counts when it is admitted).
    public var joins = 0
    public var resumes = 0
    public var wrongPins = 0
    /// Signal messages passed from one participant to another.
    public var relays = 0
    /// Every `error` sent, by its code.
    public var refusals: [ErrorCode: Int] = [:]

    public init() {}
}

/// Why the server's WebSocket transport ended a connection itself (the core's own closes are
/// counted as refusals).
public enum WebSocketDrop: String, CaseIterable, Sendable {
    /// The opening handshake was refused (an HTTP error).
    case handshake
    /// The client broke RFC 6455's framing (closed with 1002 or 1007).
    case framing
    /// A message over the limit (1009).
    case tooLarge = "too-large"
    /// It did not read what it was sent until too much waited.
    case slowReader = "slow-reader"
    /// It did not answer a closing handshake in time.
    case closeTimeout = "close-timeout"
}

/// One core's figures at one moment: what `GET /v1/metrics` shows for it.
public struct RendezvousMetricsSnapshot: Equatable, Sendable {
    public var rooms = 0
    public var connections = 0
    public var participants = 0
    public var counters = RendezvousCounters()
    /// Counted by the transport (the server), not the core.
    public var webSocketDrops: [WebSocketDrop: Int] = [:]

    public init() {}
}

extension RendezvousCore {
    public var metricsSnapshot: RendezvousMetricsSnapshot {
        var snapshot = RendezvousMetricsSnapshot()
        (snapshot.rooms, snapshot.connections, snapshot.participants, snapshot.counters) = (rooms.count, connections.count, participantCount, counters)
        return snapshot
    }

    /// This core's metrics page, `labels` (like `instance="1"`) on every sample.
    public func metricsText(labels: [(String, String)] = []) -> String { RendezvousMetrics.text([(labels, metricsSnapshot)]) }
}

/// The Prometheus text exposition format of one or more cores' snapshots (one per worker, each
/// with its labels): every family's HELP and TYPE once, then its samples.
public enum RendezvousMetrics {
    public static func text(_ sources: [(labels: [(String, String)], snapshot: RendezvousMetricsSnapshot)]) -> String {
        func samples(_ name: String, extra: [String] = [], _ value: (RendezvousMetricsSnapshot) -> Int) -> String {
            sources.map { source in
                let all = source.labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" } + extra
                return name + (all.isEmpty ? "" : "{" + all.joined(separator: ",") + "}") + " \(value(source.snapshot))\n"
            }.joined()
        }
        func family(_ name: String, _ type: String, _ help: String, _ value: @escaping (RendezvousMetricsSnapshot) -> Int) -> String {
            "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" + samples(name, value)
        }
        var text = ""
        text += family("conf_rendezvous_rooms", "gauge", "Rooms held now.") { $0.rooms }
        text += family("conf_rendezvous_connections", "gauge", "WebSocket connections open now.") { $0.connections }
        text += family("conf_rendezvous_participants", "gauge", "Connections seated in a room now.") { $0.participants }
        text += family("conf_rendezvous_rooms_created_total", "counter", "Rooms created.") { $0.counters.roomsCreated }
        text += family("conf_rendezvous_joins_total", "counter", "Seats taken with a pin.") { $0.counters.joins }
        text += family("conf_rendezvous_resumes_total", "counter", "Seats taken back with a resume token.") { $0.counters.resumes }
        text += family("conf_rendezvous_wrong_pins_total", "counter", "Joins with a pin that was neither of the room's.") { $0.counters.wrongPins }
        text += family("conf_rendezvous_relays_total", "counter", "Signal messages relayed between participants.") { $0.counters.relays }
        text += "# HELP conf_rendezvous_refusals_total Errors sent to clients, by code.\n# TYPE conf_rendezvous_refusals_total counter\n"
        for code in ErrorCode.allCases {
            text += samples("conf_rendezvous_refusals_total", extra: ["code=\"\(code.rawValue)\""]) { $0.counters.refusals[code, default: 0] }
        }
        text += "# HELP conf_rendezvous_websocket_drops_total WebSocket connections the server ended for how they behaved, by reason.\n"
            + "# TYPE conf_rendezvous_websocket_drops_total counter\n"
        for drop in WebSocketDrop.allCases {
            text += samples("conf_rendezvous_websocket_drops_total", extra: ["reason=\"\(drop.rawValue)\""]) { $0.webSocketDrops[drop, default: 0] }
        }
        return text
    }

    /// A label value as the exposition format writes it: backslash, quote and newline escaped.
    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

extension RendezvousMetricsSnapshot {
    /// One line of text, as the processes of one rendezvous pass their figures to each other
    /// (`rooms connections participants created joins resumes wrongPins relays code=n...`).
    public var encoded: String {
        let figures = [rooms, connections, participants, counters.roomsCreated, counters.joins, counters.resumes, counters.wrongPins, counters.relays]
        let refusals = counters.refusals.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
        let drops = webSocketDrops.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\(Self.dropPrefix)\($0.key.rawValue)=\($0.value)" }
        return (figures.map(String.init) + refusals + drops).joined(separator: " ")
    }

    /// Nil for anything that is not such a line (it comes over a socket: checked, bounded).
    public init?(encoded text: String) {
        let fields = text.split(separator: " ")
        guard fields.count >= 8, fields.count <= 8 + ErrorCode.allCases.count + WebSocketDrop.allCases.count else { return nil }
        let figures = fields.prefix(8).compactMap { Int($0) }.filter { $0 >= 0 }
        guard figures.count == 8 else { return nil }
        self.init()
        (rooms, connections, participants) = (figures[0], figures[1], figures[2])
        (counters.roomsCreated, counters.joins, counters.resumes, counters.wrongPins, counters.relays) =
            (figures[3], figures[4], figures[5], figures[6], figures[7])
        for field in fields.dropFirst(8) {
            let parts = field.split(separator: "=")
            guard parts.count == 2, let count = Int(parts[1]), count >= 0 else { return nil }
            if parts[0].hasPrefix(Self.dropPrefix), let drop = WebSocketDrop(rawValue: String(parts[0].dropFirst(Self.dropPrefix.count))) {
                webSocketDrops[drop] = count
            } else if let code = ErrorCode(rawValue: String(parts[0])) {
                counters.refusals[code] = count
            } else {
                return nil
            }
        }
    }

    private static let dropPrefix = "drop:"
}
