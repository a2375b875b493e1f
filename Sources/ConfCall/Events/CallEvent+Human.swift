import ConfCore
import ConfWire

extension CallEvent {
    /// The event as a line (or a few) for a person, styled with `style`; nil when it has none
    /// (`left` after a failure: the error's line said it). Whatever came from the network is
    /// interpolated as a `String`, so `TerminalText` shows it escaped.
    public func human(_ style: Style) -> TerminalText? {
        switch self {
        case .room(let r):
            var text: TerminalText = "Room \(style.bold(r.room.name))  id \(style.bold(r.room.room.rawValue))  pin \(style.bold(r.room.pin.digits))"
                + "  listen-only pin \(style.bold(r.room.listenPin.digits))  (\(r.room.resolution.rawValue))\n"
            // Each link alone on its line, so that a terminal's copy (a triple click) takes it whole.
            text += (r.forBrowsers ? "Invite others with this link (a browser opens it; so does conf join LINK):\n"
                                   : "Invite others with this link (conf join LINK):\n")
                + "  \(r.link)\n"
                + "Listen-only link (they see and hear, and send nothing):\n"
                + "  \(r.listenLink)"
            if !r.forBrowsers {
                text += "\n  (not for browsers: the rendezvous is plain http:// at an address of the network, where a browser gives a page"
                    + " no camera, microphone or encryption; serve TLS, that is, leave out --no-tls, for guests in browsers)"
            } else if r.selfSignedCertificate {
                text += "\n  (a browser first warns that the connection is not private: the certificate is this machine's own, which the"
                    + " link's fp= names; the guest goes on past the warning (Advanced). For a certificate browsers trust, with no"
                    + " warning: conf host --certificate acme, with port 443 open to the internet (docs/DEPLOY.md))"
                if let reason = r.certificate?.reason { text += "\n  (no trusted certificate: \(reason))" }
            }
            if !r.otherAddresses.isEmpty { text += "\n  (this machine is also at \(r.otherAddresses.joined(separator: ", ")))" }
            return text
        case .reachability(let r):
            let words = switch r.verdict {
            case .reachable: "Reachable from the internet at \(r.address)"
            case .closed: "Not reachable from the internet"
            case .carrierGradeNAT: "Not reachable from the internet: carrier-grade NAT"
            }
            return "\(words) — \(r.advice)"
        case .joined(let j):
            let others = j.peers.isEmpty
                ? "nobody else is here yet"
                : "here: " + j.peers.map { "\($0.name) (\($0.id), \($0.role.rawValue))" }.joined(separator: ", ")
            return "Joined \(style.bold(j.roomName)) as \(j.name) (\(j.you), \(j.role.rawValue)); \(others)"
        case .peerJoined(let peer):
            return style.green("+") + " \(peer.name) joined (\(peer.id), \(peer.role.rawValue))"
        case .peerLeft(let peer):
            return style.red("-") + " \(peer.name) left (\(peer.id))"
        case .peerConnected(let c):
            let rtt = c.roundTrip.map { "rtt \((($0.milliseconds * 10).rounded() / 10)) ms; " } ?? ""
            return style.green("=") + " connected to \(c.peer.name) (\(c.peer.id)): \(c.path) \(c.local) ↔ \(c.remote), "
                + (c.sas.isEmpty ? "\(rtt)no words to check (the peer cannot derive them)"
                                 : "\(rtt)check words with them: \(style.bold(c.sas.joined(separator: " ")))")
        case .peerDisconnected(let d):
            let verb = d.wasConnected ? "lost" : "could not connect to"
            return style.red("×") + " \(verb) \(d.peer.name) (\(d.peer.id)): \(d.reason.words)"
        case .chat(let from, let text):
            return "\(style.bold(from.name)): \(text)"
        case .sent(let to, let text):
            return style.dim("you → \(to.name): \(text)")
        case .muted(let audio, _):
            return audio ? "Microphone muted: nothing is sent." : "Microphone on."
        case .peerMuted(let peer, let audio, _):
            return "\(peer.name) \(audio ? "muted" : "unmuted") their microphone"
        case .peerMutedLocally(let peer, let muted):
            return muted ? "\(peer.name) is muted here." : "\(peer.name) plays again."
        case .camera(let on):
            return on ? "Camera on." : "Camera off: no video is sent."
        case .cameraSwitched(let device, let mode):
            return "Sending video from \(device) (\(mode))."
        case .peerVideoMuted(let peer):
            return "\(peer.name) turned their camera off"
        case .peerVideoUnmuted(let peer):
            return "\(peer.name) turned their camera on"
        case .peerVideoHidden(let peer, let hidden):
            return hidden ? "\(peer.name)'s video is hidden here: they stop sending it." : "\(peer.name)'s video is shown again."
        case .talking(let speaker, let talking):
            let who = switch speaker {
            case .you: "you"
            case .peer(let peer): "\(peer.name) (\(peer.id))"
            }
            return style.dim("\(who) \(talking ? "started" : "stopped") talking")
        case .talkingWhileMuted:
            return style.bold("You are muted: nobody hears you (unmute, or m in the window)")
        case .audioStats(let peers):
            func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }
            let figures = peers.map { s in
                "\(s.peer): \(tenths(s.kbps)) kbit/s, loss \(tenths(s.lossPercent)) %, jitter \(tenths(s.jitter.milliseconds)) ms, "
                    + "buffer \(tenths(s.buffered.milliseconds)) ms, concealed \(tenths(s.concealed.milliseconds)) ms, "
                    + "skipped \(tenths(s.skipped.milliseconds)) ms"
            }
            return style.dim("audio: " + figures.joined(separator: "; "))
        case .linkStats(let links):
            func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }
            let figures = links.map { s in
                "\(s.peer): estimate \(tenths(s.estimateKbps)) kbit/s, sent \(tenths(s.sentKbps)) kbit/s, "
                    + "rtt \(s.roundTrip.map { "\(tenths($0.milliseconds)) ms" } ?? "unknown"), loss \(tenths(s.lossPercent)) %, "
                    + "queue \(tenths(s.queueDelay.milliseconds)) ms, video layers \(s.videoLayers)"
                    + (s.videoEncoding == .small ? " (small)" : "")
                    + (s.audioPacketMilliseconds > 20 ? ", audio in \(s.audioPacketMilliseconds) ms packets" : "")
                    + (s.sharedKbps.map { ", sharing an uplink at \(tenths($0)) kbit/s" } ?? "")
            }
            return style.dim("links: " + figures.joined(separator: "; "))
        case .videoPaused(let peer, _):
            return style.dim("\(peer.name) (\(peer.id)) gets no video from you for now: the link cannot carry it (audio goes on)")
        case .videoResumed(let peer):
            return style.dim("\(peer.name) (\(peer.id)) gets your video again")
        case .check(let c):
            let mapping = switch c.portMapping.verdict {
            case .reachable: "the router forwards the port: reachable from the internet at \(c.portMapping.address) (\(c.portMapping.via.rawValue))"
            case .closed: "not forwarded: \(c.portMapping.advice)"
            case .carrierGradeNAT: "carrier-grade NAT: no forward can help; \(c.portMapping.advice)"
            }
            let asked = c.stunServers.isEmpty ? "no STUN server given (--server or --stun)" : c.stunServers.joined(separator: ", ")
            let outside = c.verdict.mappedAddress.map { "\($0), as \(c.stunServers.first ?? "STUN") sees it" } ?? "unknown: no STUN answer from \(asked)"
            let nat = switch c.verdict.nat {
            case .none: "none: this machine's own address is its outside address"
            case .endpointIndependent: "one outside port for every destination: direct links get through (hole punching)"
            case .perDestination: "a port of its own for each destination (symmetric): direct links cannot get through, only a relay or a forwarded port"
            case .unknown: "unknown: only one STUN server answered, give another with --stun to compare"
            case .noAnswer: "unknown: no STUN server answered (\(asked)); UDP may be blocked"
            }
            let turn = c.turn.isEmpty ? "none given (--turn)"
                : c.turn.map { "\($0.server) \($0.answered ? "answers" : "does not answer")" }.joined(separator: ", ")
            let verdict = switch c.verdict.verdict {
            case .direct: style.green("a direct call is likely")
            case .relay: style.red("a direct call is unlikely: calls need a TURN relay") + (c.turnState == "reachable" ? " (yours answers)" : " (--turn)")
            case .unknown: style.red("cannot tell: no STUN server answered") + " (give --server or --stun)"
            }
            return "Port mapping:  \(mapping)\nOutside address:  \(outside)\nNAT:  \(nat)\n"
                + "IPv6:  \(c.ipv6.isEmpty ? "no global address" : c.ipv6.joined(separator: ", "))\nTURN:  \(turn)\nVerdict:  " + verdict
        case .devices(let sources, let sinks, let cameras):
            var text: TerminalText = "Sources (--mic; the default is marked *):"
            for source in sources {
                text += "\n  \(source.isDefault ? "*" : " ") \(source.name)  \(style.dim(source.description + (source.isMonitor ? " (monitor of a sink)" : "")))"
            }
            text += "\nSinks (--speaker; the default is marked *):"
            for sink in sinks { text += "\n  \(sink.isDefault ? "*" : " ") \(sink.name)  \(style.dim(sink.description))" }
            text += "\nCameras (--video-source v4l2:PATH; the default is marked *):"
            if cameras.isEmpty { text += "\n  " + style.dim("none found") }
            for camera in cameras {
                text += "\n  \(camera.isDefault ? "*" : " ") \(camera.path)  \(camera.name)"
                if camera.modes.isEmpty { text += "  " + style.dim("(no format conf reads)") }
                for mode in camera.modes {
                    let rate = mode.framesPerSecond > 0 ? " at \(mode.framesPerSecond) fps" : ""
                    text += "\n      " + style.dim("\(mode.format) \(mode.width)x\(mode.height)\(rate)")
                }
            }
            return text
        case .devicesMissing(let devices, let reason):
            return "conf: no sound server (\(reason)), so no \(devices.map(\.rawValue).joined(separator: " or ")) in this call — "
                + "start pulseaudio or pipewire-pulse for sound"
        case .deviceLost(.microphone):
            return "conf: the microphone went away; sending silence from now on"
        case .deviceLost(.camera):
            return "conf: the camera went away; no more video from you"
        case .deviceLost(.speaker(let peer)):
            return "conf: the speaker for \(peer.name) went away; the call goes on without playing them"
        case .recordError(let peer, let path, let error):
            return "conf: cannot record \(peer.name) to \(path): \(error); the call goes on without this recording"
        case .listenerIgnored(let peer, let what):
            return style.dim("\(peer.name) (\(peer.id)) joined to listen only: their \(what.rawValue) is ignored")
        case .knocking(let room, _):
            return "Room \(room) is locked after too many wrong pins: waiting for someone in the call to let you in"
        case .knock(let knock):
            return style.bold("?")
                + " \(knock.name) knocks (\(knock.role.rawValue), \(knock.id)): type `admit \(knock.id)` to let them in or `deny \(knock.id)`"
        case .knockEnded(let id, let outcome):
            return style.dim("knock \(id) \(outcome.rawValue)")
        case .rendezvousLost(let rendezvous, let reason):
            return style.red("!") + " lost the rendezvous at \(rendezvous) (\(reason.words)); the call goes on with those "
                + "connected, nobody new can join until it is back; reconnecting"
        case .rendezvousBack(let rendezvous):
            return style.green("!") + " the rendezvous at \(rendezvous) is back; newcomers can join again"
        case .rendezvousClosed(let rendezvous, let reason):
            return style.red("!") + " \(reason.words(rendezvous: rendezvous)): the call goes on with those connected; nobody new can join"
        case .left(.failed):
            return nil
        case .left(let reason):
            let words = switch reason {
            case .duration: "the duration ran out"
            case .signal: "interrupted"
            case .command: "you typed leave"
            case .hostLeft: "the host left, with its rendezvous, while nobody was connected to you"
            case .nobodyLeft: "nobody else is left in the call"
            case .failed(let code): code
            }
            return "Left the room (\(words))."
        case .error(.rendezvous(_, let message)):
            return "conf: the rendezvous reported: \(message)"
        case .error(.badCommand(let message)):
            return "conf: \(message)"
        case .error(.failed(_, let message)):
            return "conf: " + style.red(message)
        }
    }
}
