import ConfCore

/// What each `--json` event carries and means: the man page's JSON EVENTS and docs/REFERENCE.md
/// are made from this, and CallEventTests checks each type's members against what its JSON has.
extension CallEvent.Kind {
    /// The event's own members (after `type`, `t` and `at`), and what it means.
    public var documentation: (members: [String], meaning: String) {
        switch self {
        case .room:
            (["room", "pin", "listen_pin", "name", "resolution", "link", "listen_link", "join_command", "listen_join_command", "browser_url", "listen_browser_url", "certificate"],
             "conf host created the room. link and listen_link join as a publisher and as a listener: a browser opens them, and conf join LINK takes them (https://HOST:PORT/#room=ID&pin=PIN&fp=FINGERPRINT: the secrets in the fragment, which a browser never sends; fp names the certificate to trust). The commands join the same way with separate arguments. browser_url and listen_browser_url are the links again, or empty where a browser cannot use them (plain http:// to another machine); a page's link may add &name=NAME to fill in the name and &join=1 to focus the Join button. certificate: which the rendezvous serves, {kind: acme, self-signed or file, expires (ISO 8601, or null), reason (why not the one asked for, or null)}; null for a standing rendezvous trusted through a CA")
        case .reachability:
            (["verdict", "address", "via", "advice"],
             "conf host with its built-in rendezvous: whether others on the internet reach it. verdict: reachable (a router forwards the port, or the address is public), closed (no router opened it: forward TCP and UDP PORT, or use --server) or carrier-grade-nat (the router has no public address: use --server); address: what the join command names; via: upnp, nat-pmp, pcp, public or none; advice: what to do, in words")
        case .joined:
            (["you", "role", "room", "name", "resolution", "peers"],
             "you are in the room; peers lists {id, name, role} of everyone already there")
        case .peerJoined:
            (["peer", "name", "role"],
             "someone joined")
        case .peerLeft:
            (["peer"],
             "someone left or their connection dropped")
        case .peerConnected:
            (["peer", "name", "path", "local", "remote", "rtt_ms", "sas", "srtp", "setup_ms"],
             "a direct encrypted link to a peer is up (reported when DTLS is); path is host, srflx, prflx or relay; rtt_ms is the DTLS handshake's round trip (null if none was measured; RTCP's is in link-stats); sas is four words to compare with the peer aloud; srtp is the profile DTLS agreed (AEAD_AES_128_GCM between conf peers); setup_ms has ice, dtls and connected, in ms from the offer")
        case .peerDisconnected:
            (["peer", "code", "reason"],
             "the link to a peer ended; code is one of \(DisconnectCode.allCases.map(\.rawValue).joined(separator: ", ")), reason says it in words; a failed link is set up again (up to 4 times, 2 to 16 s apart) while the peer stays")
        case .chat:
            (["from", "name", "text"],
             "a chat message from a peer, over the encrypted data channel")
        case .listenerIgnored:
            (["peer", "what"],
             "a listen-only participant sent media or chat anyway; dropped (reported once per peer and kind)")
        case .sent:
            (["to", "text"],
             "your chat message went to that peer")
        case .muted:
            (["audio", "video"],
             "your own mute state changed (--muted, the mute and unmute commands)")
        case .peerMuted:
            (["peer", "audio", "video"],
             "a peer muted or unmuted itself")
        case .peerMutedLocally:
            (["peer", "muted"],
             "you stopped or resumed playing a peer (mute-peer, unmute-peer)")
        case .camera:
            (["on"],
             "your camera turned off (camera off: no video is sent) or on again")
        case .cameraSwitched:
            (["device", "mode"],
             "you send from another camera now (camera next), in this mode (like YUYV 640x480 at 30 fps)")
        case .peerVideoMuted:
            (["peer"],
             "that peer turned its camera off")
        case .peerVideoUnmuted:
            (["peer"],
             "that peer turned its camera on again (a key frame follows)")
        case .peerVideoHidden:
            (["peer", "hidden"],
             "you stopped or resumed getting that peer's video (hide, show); it stops sending it to you")
        case .talking:
            (["peer", "talking"],
             "someone (you included, by your own id) started or stopped talking")
        case .talkingWhileMuted:
            ([],
             "you started talking while muted: nobody hears it (at most every 15 s)")
        case .audioStats:
            (["peers"],
             "with --stats, every 2 s: per peer {peer, kbps, loss_percent, jitter_ms, buffer_ms, target_ms, concealed_ms, skipped_ms}")
        case .linkStats:
            (["links"],
             "with --stats, every 2 s: per link {peer, estimate_kbps, sent_kbps, rtt_ms, loss_percent, queue_delay_ms, video_layers, video_encoding, audio_packet_ms, shared_kbps}: what congestion control sees of the path to that peer (rtt_ms 0 before measured; video_layers 0 while paused; video_encoding full, or small: half the width and height, for a link that cannot carry half the full one's frame rate or what the full picture needs; audio_packet_ms 20, or 60 while the link is weak and the peer plays such packets; shared_kbps, while this link shares our uplink with others (the links that get our video do, until one's packets are seen to wait alone), the one rate they all send at (the least of their estimates), else 0)")
        case .videoPaused:
            (["peer", "reason"],
             "that peer stops getting your video: its link cannot carry even the small encoding's base layer (reason bandwidth); its audio goes on")
        case .videoResumed:
            (["peer"],
             "that peer gets your video again, from a key frame (tried after 1 s of room on the link; a try that fails within 10 s doubles the wait before the next, up to 32 s)")
        case .check:
            (["verdict", "mapped_address", "nat", "port_mapping", "ipv6", "turn"],
             "conf check: verdict is direct (a direct call is likely), relay (only through a TURN relay or a port forwarded by hand) or unknown (no STUN server answered, or only one, and no port is forwarded); mapped_address is this machine's address outside its NATs as the first STUN server saw it (null without an answer); nat is none, endpoint-independent (one outside port for every destination: hole punching works), per-destination (symmetric), unknown (one STUN answer: nothing to compare) or no-answer; port_mapping is {verdict, address, via} as the reachability event says them; ipv6 lists this machine's global IPv6 addresses; turn is none, reachable or unreachable")
        case .devices:
            (["sources", "sinks", "cameras"],
             "conf devices: the sound server's sources and sinks, each {name, description, monitor, default}, and the cameras, each {path, name, default, modes: [{format, width, height, fps}]}")
        case .devicesMissing:
            (["devices", "reason"],
             "no sound server: the call goes on without the default microphone or speaker")
        case .deviceLost:
            (["device", "peer"],
             "a microphone, camera or speaker (peer: whose stream) went away; the call goes on without it")
        case .recordError:
            (["peer", "path", "error"],
             "a --record file could not be written (error: the system's words, like No space left on device); that recording stopped, the call goes on")
        case .knocking:
            (["room", "message"],
             "the room is locked after too many wrong pins: your join waits for someone in the call to let you in")
        case .knock:
            (["knock", "name", "role"],
             "someone with the right pin knocks on your locked room: answer with admit KNOCK or deny KNOCK on stdin")
        case .knockEnded:
            (["knock", "outcome"],
             "a knock was admitted, denied, withdrawn or expired (by anyone in the call)")
        case .rendezvousLost:
            (["code", "reason"],
             "the connection to the rendezvous broke (code: closed, stopped-answering, closed-while-resuming, network-changed: this machine's addresses changed and it did not answer a ping within 2 s); the links stay up and conf reconnects, 0.5 to 15 s apart, to take its seat back")
        case .rendezvousBack:
            ([],
             "the seat in the room was taken back after rendezvous-lost; peer-joined and peer-left follow for what changed meanwhile")
        case .rendezvousClosed:
            (["reason"],
             "no rendezvous from now on (host-left, resume-refused, no-resume); the call goes on with those connected, nobody new can join, and it ends when no link is left")
        case .left:
            (["reason"],
             "you left: duration, signal, command, host-left, nobody-left, or the code of the error that ended the call")
        case .error:
            (["code", "message"],
             "something failed; code is stable, one of those under ERROR CODES (usage, wrong-pin, rendezvous-unreachable, no-audio-device, ...)")
        }
    }
}
