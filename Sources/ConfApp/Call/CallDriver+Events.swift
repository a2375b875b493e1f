import ConfCall
import ConfCore
import ConfWire

// TEMPORARY: the `events` branch brings one JSON and one human renderer for every CallEvent.
extension CallDriver {
    func report(_ event: CallEvent) {
        let style = reporter.style
        switch event {
        case .peerConnected(let info):
            let setup = JSONValue.object(["ice": info.setupMilliseconds.ice.map { .number($0) }, "dtls": info.setupMilliseconds.dtls.map { .number($0) },
                                          "connected": .number(info.setupMilliseconds.connected)])
            reporter.emit(
                .object(["type": "peer-connected", "peer": .string(info.peer.rawValue), "name": .string(info.name),
                         "path": .string(info.path), "local": .string(info.local), "remote": .string(info.remote),
                         "rtt_ms": .number(info.rttMilliseconds), "sas": .string(info.sas), "setup_ms": setup]),
                human: style.green("=") + " connected to \(info.name) (\(info.peer)): \(info.path) \(info.local) ↔ \(info.remote), "
                    + "rtt \(info.rttMilliseconds) ms; check words with them: \(style.bold(info.sas))")
        case .peerDisconnected(let peer, let name, let code, let wasConnected, let reason):
            reporter.emit(.object(["type": "peer-disconnected", "peer": .string(peer.rawValue), "code": .string(code.rawValue),
                                   "reason": .string(reason)]),
                          human: style.red("×") + " \(wasConnected ? "lost" : "could not connect to") \(name) (\(peer)): \(reason)")
        case .chat(let from, let name, let text):
            reporter.emit(.object(["type": "chat", "from": .string(from.rawValue), "name": .string(name), "text": .string(text)]),
                          human: "\(style.bold(name)): \(text)")
        case .sent(let to, let name, let text):
            reporter.emit(.object(["type": "sent", "to": .string(to.rawValue), "text": .string(text)]),
                          human: style.dim("you → \(name): \(text)"))
        case .muted(let audio, let video):
            reporter.emit(.object(["type": "muted", "audio": .bool(audio), "video": .bool(video)]),
                          human: audio ? "Microphone muted: nothing is sent." : "Microphone on.")
        case .peerMuted(let peer, let name, let audio, let video):
            reporter.emit(.object(["type": "peer-muted", "peer": .string(peer.rawValue), "audio": .bool(audio), "video": .bool(video)]),
                          human: "\(name) \(audio ? "muted" : "unmuted") their microphone")
        case .peerMutedLocally(let peer, let name, let muted):
            reporter.emit(.object(["type": "peer-muted-locally", "peer": .string(peer.rawValue), "muted": .bool(muted)]),
                          human: muted ? "\(name) is muted here." : "\(name) plays again.")
        case .talking(let peer, let name, let talking):
            let who = peer ?? you ?? ParticipantID("?")
            let label = peer.map { "\(name) (\($0))" } ?? "you"
            reporter.emit(.object(["type": "talking", "peer": .string(who.rawValue), "talking": .bool(talking)]),
                          human: style.dim("\(label) \(talking ? "started" : "stopped") talking"))
        case .listenerIgnored(let peer, let name, let what):
            reporter.emit(.object(["type": "listener-ignored", "peer": .string(peer.rawValue), "what": .string(what)]),
                          human: style.dim("\(name) (\(peer)) joined to listen only: their \(what) is ignored"))
        case .audioStats(let peers):
            guard !peers.isEmpty else { return }
            func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
            let json = peers.map { p in
                JSONValue.object(["peer": .string(p.peer.rawValue), "kbps": .number(round1(p.kbps)), "loss_percent": .number(round1(p.lossPercent)),
                                  "jitter_ms": .number(round1(p.jitterMilliseconds)), "buffer_ms": .number(p.bufferMilliseconds),
                                  "target_ms": .number(round1(p.targetMilliseconds)), "concealed_ms": .number(p.concealedMilliseconds)])
            }
            let human = peers.map { p in
                "\(p.peer): \(round1(p.kbps)) kbit/s, loss \(round1(p.lossPercent)) %, jitter \(round1(p.jitterMilliseconds)) ms, "
                    + "buffer \(p.bufferMilliseconds) ms, concealed \(p.concealedMilliseconds) ms"
            }.joined(separator: "; ")
            reporter.emit(.object(["type": "audio-stats", "peers": .array(json)]), human: style.dim("audio: " + human))
        case .note(let text):
            reporter.note("\(text)")
        }
    }
}
