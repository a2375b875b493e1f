import Foundation
import Testing
import TestSupport

/// A guest in a real browser (headless Chromium, its fake camera and microphone) opens the link
/// `conf host` prints and joins the call from the page the rendezvous serves.
@Suite(.serialized, .enabled(if: HeadlessBrowser.available, "needs Debian's chromium (scripts/install-deps --test)"))
struct BrowserCallTests {
    /// `--resolution` last: `conf join` takes the others only.
    static let media = ["--audio-source", "tone:440", "--video-source", "pattern", "--video-view", "none", "--resolution", "240p"]

    /// The link, opened as printed (plus a name and join=1): the browser and conf connect, each
    /// gets the other's audio and video, and chat goes from conf to the page.
    @Test func aBrowserGuestJoinsFromTheLink() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-browser-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--record", dir.path,
                                    "--say", "hello from conf"] + Self.media)
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let link = try #require(room["browser_url"] as? String)
        #expect(link.hasPrefix("http://127.0.0.1:") && link.contains("/#room=\(room["room"] as? String ?? "?")&pin=\(room["pin"] as? String ?? "?")"), "\(link)")
        #expect((room["listen_browser_url"] as? String)?.hasSuffix("&pin=\(room["listen_pin"] as? String ?? "?")") == true)

        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        #expect(browser.waitForEvent("joined")?["role"] as? String == "publisher", "\(browser.stderr.suffix(3000))")
        #expect(host.waitForEvent("peer-joined", timeout: .seconds(15))?["name"] as? String == "web")
        let connected = host.waitForEvent("peer-connected", timeout: .seconds(15))
        #expect(connected?["name"] as? String == "web", "\(host.stderr)")
        #expect(browser.waitForEvent("link", where: { $0["state"] as? String == "connected" }) != nil, "\(browser.stderr.suffix(3000))")
        #expect(browser.waitForEvent("track", where: { $0["kind"] as? String == "video" }) != nil)
        // conf's picture decoded on the page, at the room's resolution (240p: 320x240).
        #expect(browser.waitForEvent("picture")?["width"] as? Int == 320, "\(browser.events.filter { $0["type"] as? String == "picture" })")
        // The words to read aloud are the same on both ends (from the fingerprints: a browser
        // has no DTLS exporter), and the page shows them.
        let words = browser.waitForEvent("sas")?["words"] as? String
        #expect(words != nil && words == connected?["sas"] as? String, "page \(words ?? "none"), conf \(connected?["sas"] ?? "none")")
        #expect(try browser.evaluate("document.querySelector('.tile:not([data-peer=me]) .sas').textContent") as? String == words)
        #expect(browser.waitForEvent("chat")?["text"] as? String == "hello from conf")
        #expect(browser.waitForEvent("state")?["audio_muted"] as? Bool == false)
        // conf's picture in the big place, in its 4:3 shape; the guest's own small in a corner
        // (inside the grid, over conf's at most at its edge), marked as theirs.
        let placed = try browser.evaluate("JSON.stringify([...document.querySelectorAll('.tile')].map(t => [t.offsetLeft, t.offsetTop, t.offsetWidth, t.offsetHeight, t.classList.contains('self') ? 1 : 0]))") as? String ?? ""
        let tiles = (try? JSONSerialization.jsonObject(with: Data(placed.utf8))) as? [[Int]] ?? []
        let others = tiles.filter { $0.count == 5 && $0[4] == 0 }, own = tiles.filter { $0.count == 5 && $0[4] == 1 }
        #expect(others.count == 1 && others.allSatisfy { $0[2] > 100 && abs(Double($0[2]) - 4.0 / 3 * Double($0[3])) <= 2 }, "\(placed)")
        #expect(own.count == 1 && others.count == 1 && own[0][2] * 2 < others[0][2], "the guest's own picture is never the big one: \(placed)")
        #expect(try browser.evaluate("document.querySelector('.tile.self .label').textContent") as? String == "web (you)")
        // The browser's fake microphone beeps: conf hears it talk.
        #expect(host.waitForEvent("talking", timeout: .seconds(10), where: { $0["peer"] as? String == connected?["peer"] as? String }) != nil)
        // Four seconds of the browser's audio and video in conf's recordings.
        let audio = dir.appendingPathComponent("web.wav"), video = dir.appendingPathComponent("web.ivf")
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { Self.size(audio) > 4 * 96_000 && Self.size(video) > 32 + 40 * 12 },
                "audio \(Self.size(audio)) B, video \(Self.size(video)) B")
        withExtendedLifetime(browser) {}  // the guest stays in the call until here
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// Two conf participants and two browsers in one room: the full mesh of six links, each
    /// browser connected to the three others, each conf participant to its three.
    @Test func twoBrowsersAndTwoConfsMakeAFullMesh() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media)
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let link = try #require(room["browser_url"] as? String)
        let command = try #require(room["join_command"] as? String)
        let bob = try ConfProcess(Array(command.split(separator: " ").dropFirst().map(String.init)) + ["--as", "bob", "--json"] + Self.media.dropLast(2))
        #expect(bob.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(bob.stderr)")
        let first = try HeadlessBrowser(link + "&name=web1&join=1")
        #expect(first.waitForEvent("joined") != nil, "\(first.stderr.suffix(3000))")
        let second = try HeadlessBrowser(link + "&name=web2&join=1")
        for browser in [first, second] {
            let connected = ConfProcess.waitUntil(timeout: .seconds(30)) { Self.connectedPeers(browser).count == 3 }
            #expect(connected, "\(Self.connectedPeers(browser)) \(browser.stderr.suffix(3000))")
        }
        for conf in [host, bob] {
            let names = ConfProcess.waitUntil(timeout: .seconds(15)) {
                Set(conf.events(ofType: "peer-connected").compactMap { $0["name"] as? String }).isSuperset(of: ["web1", "web2"])
            }
            #expect(names, "\(conf.events(ofType: "peer-connected"))")
        }
        // The browsers see each other's pictures too, and read the same words.
        let (web1, web2) = (Self.id(of: "web1", in: host), Self.id(of: "web2", in: host))
        #expect(first.waitForEvent("sas", where: { $0["peer"] as? String == web2 })?["words"] as? String
                == second.waitForEvent("sas", where: { $0["peer"] as? String == web1 })?["words"] as? String)
        // Between conf participants the words still come from the DTLS session.
        let annBob = host.events(ofType: "peer-connected").first { $0["name"] as? String == "bob" }?["sas"] as? String
        #expect(annBob != nil && annBob == bob.events(ofType: "peer-connected").first { $0["name"] as? String == "ann" }?["sas"] as? String)
        #expect(first.waitForEvent("track", where: { $0["kind"] as? String == "video" && $0["peer"] as? String == Self.id(of: "web2", in: host) }) != nil)
        bob.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(bob.waitForExit(timeout: .seconds(15)) == 0 && host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// The peers a page reports connected (its last state per peer).
    static func connectedPeers(_ browser: HeadlessBrowser) -> Set<String> {
        var state: [String: String] = [:]
        for event in browser.events where event["type"] as? String == "link" {
            if let peer = event["peer"] as? String { state[peer] = event["state"] as? String }
        }
        return Set(state.filter { $0.value == "connected" }.keys)
    }

    /// The participant id conf reported for `name`.
    static func id(of name: String, in conf: ConfProcess) -> String? {
        conf.events(ofType: "peer-joined").first { $0["name"] as? String == name }?["peer"] as? String
    }

    /// What the page sends and shows when its buttons are used: chat to conf, mute and camera
    /// off seen by conf, conf's own mute seen on the page; leaving, then coming back by
    /// opening the link again.
    @Test func theGuestChatsMutesLeavesAndComesBack() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media, interactive: true)
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        let web = try #require(host.waitForEvent("peer-connected", timeout: .seconds(20))?["peer"] as? String, "\(browser.stderr.suffix(3000))")
        #expect(browser.waitForEvent("state") != nil)  // conf-control is open both ways

        try browser.evaluate("document.getElementById('chat-input').value = 'hello from the browser'; document.getElementById('chat-form').requestSubmit()")
        let chat = host.waitForEvent("chat", timeout: .seconds(10))
        #expect(chat?["text"] as? String == "hello from the browser" && chat?["from"] as? String == web, "\(chat ?? [:])")

        try browser.evaluate("document.getElementById('mute').click()")
        #expect(host.waitForEvent("peer-muted", timeout: .seconds(10), where: { $0["audio"] as? Bool == true }) != nil, "\(host.stdout)")
        try browser.evaluate("document.getElementById('camera').click()")
        #expect(host.waitForEvent("peer-video-muted", timeout: .seconds(10))?["peer"] as? String == web, "\(host.stdout)")
        host.send("mute")
        #expect(browser.waitForEvent("state", where: { $0["audio_muted"] as? Bool == true }) != nil)
        #expect(try browser.evaluate("document.querySelector('.tile:not([data-peer=me]) .badges').textContent") as? String == "muted")

        try browser.evaluate("document.getElementById('leave').click()")
        #expect(host.waitForEvent("peer-left", timeout: .seconds(10))?["peer"] as? String == web)
        // The same link again, in the same tab (only its fragment differs from the address now).
        let lobbies = browser.events.filter { $0["type"] as? String == "lobby" }.count
        try browser.evaluate("location.href = '\(link)&name=web&join=1'")
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { browser.events.filter { $0["type"] as? String == "lobby" }.count > lobbies })
        try browser.clickJoin()
        let back = host.waitForEvent("peer-connected", timeout: .seconds(20), where: { $0["peer"] as? String != web })
        #expect(back?["name"] as? String == "web", "\(browser.stderr.suffix(3000))")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// conf's `hide` reaches the page (`wants_video` false on conf-control): the page stops
    /// sending its picture to conf, and sends it again on `show`. Talking shows both ways: conf's
    /// tone on the page's tile, the browser's fake microphone in conf's `talking`.
    @Test func theGuestStopsItsVideoWhenHiddenAndTalkingShowsBothWays() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media, interactive: true)
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        let web = try #require(host.waitForEvent("peer-connected", timeout: .seconds(20))?["peer"] as? String, "\(browser.stderr.suffix(3000))")
        #expect(browser.waitForEvent("state") != nil)

        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) {
            (try? browser.evaluate("document.querySelector('.tile:not([data-peer=me])').classList.contains('talking')")) as? Bool == true
        }, "conf's tone shows as talking on the page")
        #expect(host.waitForEvent("talking", timeout: .seconds(10), where: { $0["peer"] as? String == web && $0["talking"] as? Bool == true }) != nil,
                "the browser's beeps are talking in conf: \(host.stdout.suffix(2000))")

        // What the page sends conf: its video transceivers' tracks (none while hidden).
        let sending = "[...links.values()][0].pc.getTransceivers().some((t) => t.receiver.track.kind === 'video' && t.sender.track !== null)"
        #expect(try browser.evaluate(sending) as? Bool == true)
        host.send("hide web")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { (try? browser.evaluate(sending)) as? Bool == false }, "hidden: the page sends no picture")
        host.send("show web")
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) { (try? browser.evaluate(sending)) as? Bool == true }, "shown again")
        // The camera button and the hide agree: camera off and on while shown sends again.
        try browser.evaluate("document.getElementById('camera').click()")
        #expect(try browser.evaluate(sending) as? Bool == false)
        try browser.evaluate("document.getElementById('camera').click()")
        #expect(try browser.evaluate(sending) as? Bool == true)
        withExtendedLifetime(browser) {}
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// The guest's machine stops (its browser frozen, as a laptop's lid closed) until conf
    /// reports the link lost after 2.5 s of silence; once the browser runs again, the page sets
    /// the link up again (its `restart` and a new offer) and it is up with the same guest, media
    /// flowing.
    @Test func aGuestWhoseBrowserFreezesComesBackOnItsOwn() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--stats"] + Self.media)
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        let web = try #require(host.waitForEvent("peer-connected", timeout: .seconds(20))?["peer"] as? String, "\(browser.stderr.suffix(3000))")
        // Frozen once conf has heard the page's audio: `peer-connected` comes when DTLS is up, and
        // as the DTLS server conf gives a peer not heard from since the connect timeout (15 s)
        // to finish its handshake (CallEngine.silenceLimit).
        let heard = host.waitForEvent("audio-stats", timeout: .seconds(10), where: { stats in
            (stats["peers"] as? [[String: Any]])?.contains { $0["peer"] as? String == web && ($0["kbps"] as? Double ?? 0) > 0 } == true
        })
        try #require(heard != nil, "\(host.stdout.suffix(2000))")
        browser.freeze(true)
        let lost = host.waitForEvent("peer-disconnected", timeout: .seconds(10), where: { $0["peer"] as? String == web })
        // Counted before the thaw: the new connection's picture may be reported before the test
        // sees the link up again.
        let pictures = browser.events.filter { $0["type"] as? String == "picture" }.count
        browser.freeze(false)
        #expect(lost != nil, "\(host.stdout.suffix(2000))")
        let again = ConfProcess.waitUntil(timeout: .seconds(30)) { host.events(ofType: "peer-connected").filter { $0["peer"] as? String == web }.count >= 2 }
        let history = host.stdout.split(separator: "\n").filter { !$0.contains("\"room\"") }.suffix(12).joined(separator: "\n")
        let page = browser.events.map { "\($0["type"] ?? "")" }.joined(separator: " ")
        #expect(again, "the link came back: \(history)\npage: \(page)\n\(host.stderr.suffix(1500))")
        #expect(host.events(ofType: "peer-left").isEmpty, "the guest never left")
        // The page shows conf's picture on the new connection.
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { browser.events.filter { $0["type"] as? String == "picture" }.count > pictures },
                "\(browser.stderr.suffix(2000))")
        withExtendedLifetime(browser) {}
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// The listen-only link: the page joins as a listener, gets conf's audio and video, asks for
    /// no camera or microphone and sends nothing.
    @Test func aListenOnlyLinkSendsNothing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-browser-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--record", dir.path] + Self.media)
        let link = try #require(host.waitForEvent("room")?["listen_browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=ear&join=1", clicksJoin: false)
        #expect(browser.waitForEvent("lobby") != nil)
        // Every ask for a camera or microphone is counted (and refused).
        try browser.evaluate("""
            navigator.mediaDevices.getUserMedia = () => { window.askedForDevices = (window.askedForDevices || 0) + 1; return Promise.reject(new Error('no')); }
            """)
        try browser.clickJoin()
        #expect(browser.waitForEvent("joined")?["role"] as? String == "listener")
        #expect(host.waitForEvent("peer-joined", timeout: .seconds(15))?["role"] as? String == "listener")
        #expect(host.waitForEvent("peer-connected", timeout: .seconds(15)) != nil, "\(browser.stderr.suffix(3000))")
        #expect(browser.waitForEvent("track", where: { $0["kind"] as? String == "video" }) != nil)
        #expect(try browser.evaluate("document.querySelector('.tile[data-peer=me] video').srcObject === null") as? Bool == true)
        // Media has flowed to the page (conf's picture decoded there): nothing of the listener's was
        // recorded, nothing it sent was dropped.
        #expect(browser.waitForEvent("picture") != nil)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("ear.wav").path))
        #expect(host.events(ofType: "listener-ignored").isEmpty)
        #expect(try browser.evaluate("window.askedForDevices === undefined") as? Bool == true)
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// join=1 fills in the name and focuses Join, and goes no further: a site that gets someone
    /// to open such a link puts nobody in a room and opens no camera. Once read, the pin leaves
    /// the address bar.
    @Test func aLinkJoinsOnlyOnAClickAndThePinLeavesTheAddress() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media)
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let link = try #require(room["browser_url"] as? String), id = try #require(room["room"] as? String)
        let browser = try HeadlessBrowser(link + "&name=web&join=1", clicksJoin: false)
        #expect(browser.waitForEvent("lobby") != nil, "\(browser.stderr.suffix(3000))")
        let page = try browser.evaluate("JSON.stringify({ hash: location.hash, name: document.getElementById('name').value, focus: document.activeElement.id })")
        let lobby = try JSONSerialization.jsonObject(with: Data((page as? String ?? "{}").utf8)) as? [String: Any]
        #expect(lobby?["hash"] as? String == "#room=\(id)" && lobby?["name"] as? String == "web" && lobby?["focus"] as? String == "join", "\(page ?? "")")
        // Nothing joins by itself: the host sees nobody within a few seconds of the lobby.
        #expect(host.waitForEvent("peer-joined", timeout: .seconds(3)) == nil)
        #expect(browser.events.allSatisfy { $0["type"] as? String != "joined" })
        try browser.clickJoin()
        #expect(browser.waitForEvent("joined") != nil)
        #expect(host.waitForEvent("peer-connected", timeout: .seconds(15)) { $0["name"] as? String == "web" } != nil)
        #expect(try browser.evaluate("location.href.includes('pin')") as? Bool == false)
        // Reloaded, the page takes its seat back at once (the tab kept it): the host sees no one
        // leave, and the link comes up again with the same participant.
        let web = try #require(Self.id(of: "web", in: host))
        try browser.evaluate("location.reload()")
        let back = browser.waitForEvent("joined", timeout: .seconds(15), where: { $0["resumed"] as? Bool == true })
        #expect(back?["you"] as? String == web, "\(browser.events.suffix(5))")
        let connections = host.events(ofType: "peer-connected").count
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { host.events(ofType: "peer-connected").count > connections }, "\(host.stdout.suffix(2000))")
        #expect(host.events(ofType: "peer-left").isEmpty, "a reload is not a leave: \(host.stdout.suffix(2000))")
        #expect(try browser.evaluate("location.href.includes('pin')") as? Bool == false)
        // The page goes (a tab closed, or another address): the seat is given up at once (the
        // page said `away`), not after the 30 s a dropped connection's seat waits.
        try browser.evaluate("location.href = 'about:blank'")
        #expect(host.waitForEvent("peer-left", timeout: .seconds(10))?["peer"] as? String == web)
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// The page as a guest sees it, on a phone (390 px) and a laptop (1280 px): the room's name
    /// at the top, the other's picture big, the guest's own small and marked, the chat whole
    /// inside the screen (below the pictures on the phone, beside them on the laptop). The
    /// screenshots are kept in CONF_SCREENSHOTS when set, to be looked at.
    @Test(arguments: [(390, 844), (1280, 800)])
    func thePageFitsAPhoneAndALaptop(size: (width: Int, height: Int)) throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--name", "Friday standup", "--json"] + Self.media)
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        #expect(browser.waitForEvent("picture", timeout: .seconds(20)) != nil, "\(browser.stderr.suffix(2000))")
        let png = try browser.screenshot(width: size.width, height: size.height)
        if let directory = ProcessInfo.processInfo.environment["CONF_SCREENSHOTS"] {
            try png.write(to: URL(fileURLWithPath: directory).appendingPathComponent("call-page-\(size.width).png"))
        }
        #expect(png.count > 1000)
        let box = { (selector: String) throws -> [Double] in
            let text = try browser.evaluate("JSON.stringify((r => [r.left, r.top, r.right, r.bottom])(document.querySelector('\(selector)').getBoundingClientRect()))") as? String ?? "[]"
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Double] ?? []
        }
        let title = try box("#room-title"), input = try box("#chat-input"), send = try box("#chat-form button")
        let grid = try box("#grid"), leave = try box("#leave"), own = try box(".tile.self"), other = try box(".tile:not(.self)")
        #expect(try browser.evaluate("document.getElementById('room-title').textContent") as? String == "Friday standup")
        #expect(title.count == 4 && title[1] >= 0 && title[3] <= grid[1] + 1, "the room's name above the pictures: \(title) \(grid)")
        for (name, rect) in [("chat input", input), ("send", send), ("leave", leave)] {
            #expect(rect.count == 4 && rect[0] >= 0 && rect[2] <= Double(size.width) && rect[3] <= Double(size.height), "\(name) on screen: \(rect)")
        }
        if size.width < 700 {
            #expect(input[1] >= grid[3], "the chat below the pictures on a phone: \(input) \(grid)")
        } else {
            #expect(input[0] >= grid[2], "the chat beside the pictures: \(input) \(grid)")
        }
        #expect(own.count == 4 && other.count == 4 && (own[2] - own[0]) * 2 < other[2] - other[0], "\(own) \(other)")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// Leave says so and offers to come back; Rejoin does, with the pin the tab kept in memory.
    @Test func leaveShowsYouLeftAndRejoinComesBack() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media)
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        let first = try #require(host.waitForEvent("peer-connected", timeout: .seconds(20))?["peer"] as? String, "\(browser.stderr.suffix(2000))")
        try browser.evaluate("document.getElementById('leave').click()")
        #expect(host.waitForEvent("peer-left", timeout: .seconds(10))?["peer"] as? String == first)
        let view = try browser.evaluate("JSON.stringify({ left: !document.getElementById('left').hidden, call: !document.getElementById('call').hidden, text: document.getElementById('left').textContent })") as? String ?? ""
        #expect(view.contains("\"left\":true") && view.contains("\"call\":false") && view.contains("You left the call"), "\(view)")
        if let directory = ProcessInfo.processInfo.environment["CONF_SCREENSHOTS"] {
            try browser.screenshot(width: 390, height: 844).write(to: URL(fileURLWithPath: directory).appendingPathComponent("call-page-left-390.png"))
        }
        try browser.evaluate("document.getElementById('rejoin').click()")
        let again = host.waitForEvent("peer-connected", timeout: .seconds(20), where: { $0["peer"] as? String != first })
        #expect(again?["name"] as? String == "web", "\(browser.stderr.suffix(2000))")
        host.signal(SIGTERM)
        // The host left: the page says the call is over (nobody else was in it), not that the room is.
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
        #expect(ConfProcess.waitUntil(timeout: .seconds(10)) {
            ((try? browser.evaluate("document.getElementById('call-status').textContent")) as? String ?? "").contains("The host left")
        })
    }

    /// After the host left with its rendezvous, leaving still reaches the others: over each
    /// link's control channel (`bye`). The page and a conf guest go on alone; a guest who leaves
    /// first is gone from the page at once, and the page leaving is gone from conf.
    @Test func leavingReachesTheOthersAfterTheHostIsGone() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media)
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let link = try #require(room["browser_url"] as? String), command = try #require(room["join_command"] as? String)
        let joining = command.split(separator: " ").dropFirst().map(String.init) + Self.media.filter { $0 != "--resolution" && $0 != "240p" }
        let bob = try ConfProcess(joining + ["--as", "bob", "--json"], interactive: true)
        let cy = try ConfProcess(joining + ["--as", "cy", "--json"], interactive: true)
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        for conf in [bob, cy] {
            #expect(conf.waitForEvent("peer-connected", timeout: .seconds(20), where: { $0["name"] as? String == "web" }) != nil, "\(conf.stderr)")
        }
        #expect(ConfProcess.waitUntil(timeout: .seconds(20)) { Self.connectedPeers(browser).count == 3 }, "\(browser.events.suffix(5))")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
        #expect(bob.waitForEvent("rendezvous-closed", timeout: .seconds(10)) != nil)
        // Ids from what bob connected to: cy may have joined before bob (then in bob's `joined`).
        let connectedID = { (name: String) in bob.events(ofType: "peer-connected").first { $0["name"] as? String == name }?["peer"] as? String }
        #expect(bob.waitForEvent("peer-connected", timeout: .seconds(10), where: { $0["name"] as? String == "cy" }) != nil)
        let cyID = try #require(connectedID("cy"))
        cy.send("leave")
        #expect(browser.waitForEvent("bye", timeout: .seconds(10), where: { $0["peer"] as? String == cyID }) != nil, "\(browser.events.suffix(5))")
        #expect(try browser.evaluate("document.querySelectorAll('.tile:not(.self)').length") as? Int == 1, "cy's tile is gone")
        let webID = try #require(connectedID("web"))
        try browser.evaluate("document.getElementById('leave').click()")
        #expect(bob.waitForEvent("peer-left", timeout: .seconds(10), where: { $0["peer"] as? String == webID }) != nil, "\(bob.stdout.suffix(1500))")
        #expect(bob.waitForExit(timeout: .seconds(15)) == 0, "nobody is left: bob's call ends")
        #expect(bob.events(ofType: "left").first?["reason"] as? String == "nobody-left")
        _ = cy.waitForExit()
    }

    /// A listener whose page was modified to send anyway (it tells itself it is a publisher):
    /// a publisher's page neither negotiates nor shows its media and drops its chat, as conf does.
    @Test func aModifiedListenerPageIsNeitherSeenHeardNorRead() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json"] + Self.media)
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let publisher = try HeadlessBrowser(try #require(room["browser_url"] as? String) + "&name=pub&join=1")
        #expect(publisher.waitForEvent("link") { $0["state"] as? String == "connected" } != nil, "\(publisher.stderr.suffix(3000))")
        let intruder = try HeadlessBrowser(try #require(room["listen_browser_url"] as? String) + "&name=eve&join=1", clicksJoin: false)
        #expect(intruder.waitForEvent("lobby") != nil)
        try intruder.evaluate("""
            const realOnServerMessage = onServerMessage;
            onServerMessage = async (message) => { if (message.type === 'joined') message.role = 'publisher'; return realOnServerMessage(message); };
            """)
        try intruder.clickJoin()
        let eve = try #require(intruder.waitForEvent("joined")?["you"] as? String)
        // Its links up (to ann and to the publisher's page), its camera open, it says something.
        #expect(publisher.waitForEvent("link") { $0["peer"] as? String == eve && $0["state"] as? String == "connected" } != nil)
        #expect(intruder.waitForEvent("track") != nil, "the listener still receives")
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) {
            (try? intruder.evaluate("[...links.values()].filter((link) => link.chat?.readyState === 'open').length")) as? Int == 2
        })
        try intruder.evaluate("for (const link of links.values()) link.chat.send('eve speaks')")
        #expect(publisher.waitForEvent("listener-ignored") { $0["peer"] as? String == eve && $0["what"] as? String == "chat" } != nil)
        #expect(host.waitForEvent("listener-ignored") { $0["what"] as? String == "chat" } != nil, "\(host.stdout)")
        #expect(!publisher.events.contains { $0["type"] as? String == "chat" })
        #expect(!publisher.events.contains { $0["type"] as? String == "track" && $0["peer"] as? String == eve })
        #expect(try publisher.evaluate("(document.querySelector(`.tile[data-peer='\(eve)'] video`)?.srcObject ?? null) === null") as? Bool == true)
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// A name and a chat message made of markup and script reach the page as text: no element
    /// is made from them and nothing runs.
    @Test func namesAndChatAreShownAsText() throws {
        let name = "<img src=x onerror=\"document.title='name ran'\">"
        let message = "<b>bold</b><script>document.title='chat ran'</script><img src=x onerror=\"document.title='chat ran'\">"
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", name, "--json", "--say", message, "--no-video",
                                    "--audio-source", "tone:440"])
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=web&join=1")
        #expect(browser.waitForEvent("chat")?["text"] as? String == message, "\(browser.stderr.suffix(3000))")
        let shown = try browser.evaluate("""
            JSON.stringify({ label: document.querySelector('.tile:not([data-peer=me]) .label').textContent,
                             chat: document.querySelector('#chat-log li').textContent,
                             made: document.querySelectorAll('#grid img, #grid script, #chat-log b, #chat-log img, #chat-log script').length,
                             title: document.title })
            """) as? String ?? ""
        let page = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
        #expect(page?["label"] as? String == name, "\(shown)")
        #expect((page?["chat"] as? String)?.hasSuffix(message) == true, "\(shown)")
        #expect(page?["made"] as? Int == 0 && page?["title"] as? String == "conf call", "\(shown)")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// A room locked by wrong pins (KnockTests): the page shows a knock and lets it in with its
    /// button; a page that knocks waits, and joins when conf admits it. Through a standing
    /// rendezvous, which serves the page too.
    @Test func knocksAreAnsweredFromThePageAndThePageKnocks() throws {
        let server = try RendezvousProcess(["--knock-timeout", "20"])
        let host = try ConfProcess(["host", "--server", server.address, "--as", "ann", "--json", "--no-video", "--audio-source", "tone:440"],
                                   interactive: true)
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let link = try #require(room["browser_url"] as? String)
        #expect(link.hasPrefix("http://\(server.endpoint)/#"), "\(link)")
        let id = try #require(room["room"] as? String), pin = try #require(room["pin"] as? String)
        let page = try HeadlessBrowser(link + "&name=web&join=1")
        #expect(page.waitForEvent("joined")?["role"] as? String == "publisher", "\(page.stderr.suffix(3000))")

        // Ten wrong pins from ten addresses lock the room.
        for i in 0..<10 {
            let wrong = String(format: "%06d", (Int(pin)! + 1 + i) % 1_000_000)
            let socket = try RawWebSocket(port: server.port, room: id, from: "127.0.2.\(i + 1)")
            socket.sendText(#"{"type":"join","room":"\#(id)","pin":"\#(wrong)","name":"guesser"}"#)
            #expect(socket.receiveJSON()?["code"] as? String == "wrong-pin")
        }
        let lee = try ConfProcess(["join", id, pin, "--server", server.address, "--as", "lee", "--json", "--no-video", "--audio-source", "tone:440"])
        #expect(lee.waitForEvent("knocking") != nil, "\(lee.stderr)")
        let knock = try #require(page.waitForEvent("knock")?["knock"])
        try page.evaluate("document.querySelector('#knocks button').click()")  // "Let in"
        #expect(lee.waitForEvent("joined") != nil, "\(lee.stderr)")
        #expect(host.waitForEvent("knock-ended") { "\($0["knock"] ?? "")" == "\(knock)" && $0["outcome"] as? String == "admitted" } != nil)

        let second = try HeadlessBrowser(link + "&name=late&join=1")
        #expect(second.waitForEvent("knocking") != nil, "\(second.stderr.suffix(3000))")
        let lateKnock = try #require(host.waitForEvent("knock", timeout: .seconds(10)) { $0["name"] as? String == "late" }?["knock"] as? String)
        host.send("admit \(lateKnock)")
        #expect(second.waitForEvent("joined") != nil, "\(second.stderr.suffix(3000))")
        #expect(host.waitForEvent("peer-connected", timeout: .seconds(15)) { $0["name"] as? String == "late" } != nil)
        lee.signal(SIGTERM)
        host.signal(SIGTERM)
        #expect(lee.waitForExit(timeout: .seconds(15)) == 0 && host.waitForExit(timeout: .seconds(15)) == 0)
        withExtendedLifetime(server) {}
    }

    /// `conf host` as it runs by default, with TLS and its own certificate: the link is https,
    /// the output says what the guest's browser will show, and past that warning the page joins
    /// over wss.
    @Test func aSelfSignedHostGivesAnHTTPSLink() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--no-video", "--audio-source", "tone:440"])
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        #expect(link.hasPrefix("https://127.0.0.1:"), "\(link)")
        let human = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--as", "bea", "--no-video", "--audio-source", "tone:440"])
        #expect(human.waitForOutput(containing: "not private", timeout: .seconds(10))?.contains("docs/DEPLOY.md") == true, "\(human.stdout)")
        human.signal(SIGTERM)
        let browser = try HeadlessBrowser(link + "&name=web&join=1", extra: ["--ignore-certificate-errors"])
        #expect(browser.waitForEvent("joined") != nil, "\(browser.stderr.suffix(3000))")
        #expect(host.waitForEvent("peer-connected", timeout: .seconds(15))?["name"] as? String == "web")
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
        #expect(human.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// The page and its files carry a Content-Security-Policy that lets nothing from elsewhere
    /// load or run; the pin is never in a request (it travels in the fragment).
    @Test func thePageAllowsNothingFromElsewhere() throws {
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--no-video", "--audio-source", "tone:440"])
        let room = try #require(host.waitForEvent("room"), "\(host.stderr)")
        let link = try #require(room["browser_url"] as? String)
        let base = String(link[..<link.range(of: "/#")!.lowerBound])
        for path in ["/", "/call.js", "/call.css"] {
            let (status, headers, body) = try Self.get(base + path)
            #expect(status == 200, "\(path)")
            #expect(headers["content-security-policy"]?.hasPrefix("default-src 'none'; script-src 'self'") == true, "\(headers)")
            #expect(headers["referrer-policy"] == "no-referrer" && headers["x-content-type-options"] == "nosniff")
            #expect(!body.contains("http://") && !body.contains("https://") && !body.contains("<script>"), "\(path) loads or runs something inline")
        }
        #expect(try Self.get(base + "/nothing-here").0 == 404)
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }

    static func size(_ file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// One GET with curl (no proxy): status, headers (lower-cased names) and body.
    static func get(_ url: String) throws -> (Int, [String: String], String) {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "--noproxy", "*", "-D", "-", url]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.components(separatedBy: "\r\n") ?? []
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}

/// The same page in Firefox ESR: it joins, connects, shows conf's picture and reads conf's words,
/// and conf hears it and records its video; through WebDriver BiDi the test reads what the page
/// shows and uses its chat and buttons as a guest would.
@Suite(.serialized, .enabled(if: HeadlessBrowser.firefoxAvailable, "needs Debian's firefox-esr (scripts/install-deps --test)"))
struct FirefoxCallTests {
    @Test func aFirefoxGuestJoinsFromTheLink() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-firefox-rec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let host = try ConfProcess(["host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--record", dir.path,
                                    "--say", "hello fox"] + BrowserCallTests.media)
        let link = try #require(host.waitForEvent("room")?["browser_url"] as? String, "\(host.stderr)")
        let browser = try HeadlessBrowser(link + "&name=fox&join=1", kind: .firefox)
        #expect(browser.waitForEvent("joined", timeout: .seconds(30)) != nil, "\(browser.stderr.suffix(3000))")
        let connected = host.waitForEvent("peer-connected", timeout: .seconds(20))
        #expect(connected?["name"] as? String == "fox", "\(host.stderr)")
        #expect(browser.waitForEvent("picture")?["width"] as? Int == 320)
        let words = browser.waitForEvent("sas")?["words"] as? String
        #expect(words != nil && words == connected?["sas"] as? String, "page \(words ?? "none"), conf \(connected?["sas"] ?? "none")")
        #expect(browser.waitForEvent("chat")?["text"] as? String == "hello fox")
        #expect(try browser.evaluate("document.querySelector('.tile:not([data-peer=me]) .sas').textContent") as? String == words)
        #expect(try browser.evaluate("document.querySelector('.tile:not([data-peer=me]) .label').textContent") as? String == "ann")
        let fox = connected?["peer"] as? String
        try browser.evaluate("document.getElementById('chat-input').value = 'hello from firefox'; document.getElementById('chat-form').requestSubmit()")
        let chat = host.waitForEvent("chat", timeout: .seconds(10))
        #expect(chat?["text"] as? String == "hello from firefox" && chat?["from"] as? String == fox, "\(chat ?? [:])")
        try browser.evaluate("document.getElementById('mute').click()")
        #expect(host.waitForEvent("peer-muted", timeout: .seconds(10), where: { $0["audio"] as? Bool == true })?["peer"] as? String == fox,
                "\(host.stdout)")
        let video = dir.appendingPathComponent("fox.ivf")
        #expect(ConfProcess.waitUntil(timeout: .seconds(15)) { BrowserCallTests.size(video) > 32 + 40 * 12 }, "video \(BrowserCallTests.size(video)) B")
        withExtendedLifetime(browser) {}  // the guest stays in the call until here
        host.signal(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(15)) == 0)
    }
}

/// The call page's script's unit tests (Tests/Web/call.test.js) under Node.js: the link's fragment,
/// text from peers, the layout, and the words, checked against the known answers conf's own tests
/// use.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/node"), "needs Node.js (scripts/install-deps --test)"))
struct CallPageScriptTests {
    @Test func theScriptsUnitTestsPass() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Web")
        let (status, text) = try runToEnd("/usr/bin/node", ["--test", tests.appendingPathComponent("call.test.js").path])
        #expect(status == 0, "\(text)")
        #expect(text.contains("# pass 5"), "\(text)")
    }
}
