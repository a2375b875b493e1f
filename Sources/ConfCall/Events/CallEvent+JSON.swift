import ConfCore
import ConfWire

/// When an event happened, as every JSON event says it: `t`, seconds since the participant
/// started (monotonic), and `at`, the time of day in UTC.
public struct EventTime: Equatable, Sendable {
    public var sinceStart: Duration
    public var wall: WallTime

    public init(sinceStart: Duration, wall: WallTime) {
        self.sinceStart = sinceStart
        self.wall = wall
    }
}

extension CallEvent {
    /// The event as one JSON object: `type`, `t`, `at`, then the event's own members (README.md,
    /// "JSON events"; the man page's JSON EVENTS). Members that scripts parse keep their names.
    public func json(at time: EventTime) -> JSONValue {
        let head: [JSONValue.Member] = [
            .init("type", .string(type)),
            .init("t", .number((Double(time.sinceStart.nanosecondsClamped) / 1e6).rounded() / 1000)),
            .init("at", .string(time.wall.iso8601)),
        ]
        guard case .object(let members) = body else { return .object(head) }
        return .object(head + members)
    }

    /// The members after `type`, `t` and `at`.
    private var body: JSONValue {
        switch self {
        case .room(let r):
            .object([
                "room": .string(r.room.room.rawValue), "pin": .string(r.room.pin.digits), "listen_pin": .string(r.room.listenPin.digits),
                "name": .string(r.room.name), "resolution": .string(r.room.resolution.rawValue),
                "link": .string(r.link), "listen_link": .string(r.listenLink),
                "join_command": .string(r.joinCommand), "listen_join_command": .string(r.listenJoinCommand),
                "browser_url": .string(r.browserURL), "listen_browser_url": .string(r.listenBrowserURL),
                "certificate": r.certificate?.json ?? .null,
            ])
        case .check(let c):
            .object([
                "verdict": .string(c.verdict.verdict.rawValue), "mapped_address": c.verdict.mappedAddress.map(JSONValue.string) ?? .null,
                "nat": .string(c.verdict.nat.rawValue),
                "port_mapping": .object(["verdict": .string(c.portMapping.verdict.rawValue), "address": .string(c.portMapping.address),
                                         "via": .string(c.portMapping.via.rawValue)]),
                "ipv6": .array(c.ipv6.map(JSONValue.string)), "turn": .string(c.turnState),
            ])
        case .reachability(let r):
            .object(["verdict": .string(r.verdict.rawValue), "address": .string(r.address), "via": .string(r.via.rawValue), "advice": .string(r.advice)])
        case .joined(let j):
            .object([
                "you": .string(j.you.rawValue), "role": .string(j.role.rawValue), "room": .string(j.room.rawValue),
                "name": .string(j.roomName), "resolution": .string(j.resolution.rawValue), "peers": .array(j.peers.map(\.json)),
            ])
        case .peerJoined(let peer):
            .object(["peer": .string(peer.id.rawValue), "name": .string(peer.name), "role": .string(peer.role.rawValue)])
        case .peerLeft(let peer):
            .object(["peer": .string(peer.id.rawValue)])
        case .peerConnected(let c):
            .object([
                "peer": .string(c.peer.id.rawValue), "name": .string(c.peer.name), "path": .string(c.path),
                "local": .string(c.local), "remote": .string(c.remote), "rtt_ms": c.roundTrip.map(Self.tenths) ?? .null,
                "sas": .string(c.sas.joined(separator: " ")), "srtp": .string(c.srtp),
                "setup_ms": .object(["ice": c.iceConnected.map(Self.tenths), "dtls": c.dtlsConnected.map(Self.tenths),
                                     "connected": c.announced.map(Self.tenths)]),
            ])
        case .peerDisconnected(let d):
            .object(["peer": .string(d.peer.id.rawValue), "code": .string(d.reason.code.rawValue), "reason": .string(d.reason.words)])
        case .chat(let from, let text):
            .object(["from": .string(from.id.rawValue), "name": .string(from.name), "text": .string(text)])
        case .sent(let to, let text):
            .object(["to": .string(to.id.rawValue), "text": .string(text)])
        case .muted(let audio, let video):
            .object(["audio": .bool(audio), "video": .bool(video)])
        case .peerMuted(let peer, let audio, let video):
            .object(["peer": .string(peer.id.rawValue), "audio": .bool(audio), "video": .bool(video)])
        case .peerMutedLocally(let peer, let muted):
            .object(["peer": .string(peer.id.rawValue), "muted": .bool(muted)])
        case .camera(let on):
            .object(["on": .bool(on)])
        case .cameraSwitched(let device, let mode):
            .object(["device": .string(device), "mode": .string(mode)])
        case .peerVideoMuted(let peer), .peerVideoUnmuted(let peer):
            .object(["peer": .string(peer.id.rawValue)])
        case .peerVideoHidden(let peer, let hidden):
            .object(["peer": .string(peer.id.rawValue), "hidden": .bool(hidden)])
        case .talking(let speaker, let talking):
            .object(["peer": .string(speaker.id.rawValue), "talking": .bool(talking)])
        case .talkingWhileMuted:
            .object([:])
        case .audioStats(let peers):
            .object(["peers": .array(peers.map { s in
                .object([
                    "peer": .string(s.peer.rawValue), "kbps": Self.tenths(s.kbps), "loss_percent": Self.tenths(s.lossPercent),
                    "jitter_ms": Self.tenths(s.jitter), "buffer_ms": Self.tenths(s.buffered), "target_ms": Self.tenths(s.target),
                    "concealed_ms": Self.tenths(s.concealed), "skipped_ms": Self.tenths(s.skipped),
                ])
            })])
        case .linkStats(let links):
            .object(["links": .array(links.map { s in
                .object([
                    "peer": .string(s.peer.rawValue), "estimate_kbps": Self.tenths(s.estimateKbps), "sent_kbps": Self.tenths(s.sentKbps),
                    "rtt_ms": Self.tenths(s.roundTrip ?? .zero), "loss_percent": Self.tenths(s.lossPercent),
                    "queue_delay_ms": Self.tenths(s.queueDelay), "video_layers": .number(Double(s.videoLayers)),
                    "video_encoding": .string(s.videoEncoding.rawValue), "audio_packet_ms": .number(Double(s.audioPacketMilliseconds)),
                    "shared_kbps": Self.tenths(s.sharedKbps ?? 0),
                ])
            })])
        case .videoPaused(let peer, let reason):
            .object(["peer": .string(peer.id.rawValue), "reason": .string(reason.rawValue)])
        case .videoResumed(let peer):
            .object(["peer": .string(peer.id.rawValue)])
        case .devices(let sources, let sinks, let cameras):
            .object(["sources": .array(sources.map(\.json)), "sinks": .array(sinks.map(\.json)), "cameras": .array(cameras.map(\.json))])
        case .devicesMissing(let devices, let reason):
            .object(["devices": .array(devices.map { .string($0.rawValue) }), "reason": .string(reason)])
        case .deviceLost(.microphone):
            .object(["device": "microphone"])
        case .deviceLost(.camera):
            .object(["device": "camera"])
        case .deviceLost(.speaker(let peer)):
            .object(["device": "speaker", "peer": .string(peer.id.rawValue)])
        case .recordError(let peer, let path, let error):
            .object(["peer": .string(peer.id.rawValue), "path": .string(path), "error": .string(error)])
        case .listenerIgnored(let peer, let what):
            .object(["peer": .string(peer.id.rawValue), "what": .string(what.rawValue)])
        case .knocking(let room, let message):
            .object(["room": .string(room.rawValue), "message": .string(message)])
        case .knock(let knock):
            .object(["knock": .string(knock.id.rawValue), "name": .string(knock.name), "role": .string(knock.role.rawValue)])
        case .knockEnded(let id, let outcome):
            .object(["knock": .string(id.rawValue), "outcome": .string(outcome.rawValue)])
        case .rendezvousLost(_, let reason):
            .object(["code": .string(reason.code), "reason": .string(reason.words)])
        case .rendezvousBack:
            .object([JSONValue.Member]())
        case .rendezvousClosed(_, let reason):
            .object(["reason": .string(reason.code)])
        case .left(let reason):
            .object(["reason": .string(reason.code)])
        case .error(let report):
            .object(["code": .string(report.code), "message": .string(report.message)])
        }
    }

    /// Milliseconds (or any figure) to one decimal.
    private static func tenths(_ duration: Duration) -> JSONValue { tenths(duration.milliseconds) }
    private static func tenths(_ value: Double) -> JSONValue { .number((value * 10).rounded() / 10) }
}

extension CallEvent.Speaker {
    public var id: ParticipantID {
        switch self {
        case .you(let id): id
        case .peer(let peer): peer.id
        }
    }
}

extension CallEvent.SoundDevice {
    var json: JSONValue {
        .object(["name": .string(name), "description": .string(description), "monitor": .bool(isMonitor), "default": .bool(isDefault)])
    }
}

extension CallEvent.CameraDevice {
    var json: JSONValue {
        .object(["path": .string(path), "name": .string(name), "default": .bool(isDefault), "modes": .array(modes.map { mode in
            .object(["format": .string(mode.format), "width": .number(Double(mode.width)), "height": .number(Double(mode.height)),
                     "fps": .number(Double(mode.framesPerSecond))])
        })])
    }
}
