import ConfWire

/// The call page the rendezvous serves to a browser guest (`/`, `/call.js`, `/call.css`, and the
/// words of the short authentication string, `/sas-words.json`, from `SASWords`): written
/// for this project, in `page/`, and compiled into the binary (`CallPageSources.swift`, generated
/// from `page/` by GeneratedFilesTests), so that a rendezvous is one file and the page can never
/// differ from the program that serves it.
///
/// Its Content-Security-Policy allows nothing but the page's own files and its own WebSocket: no
/// third-party resource of any kind can load, and no inline script can run.
public enum CallPage {
    public struct Asset: Sendable {
        public let contentType: String
        public let body: String
    }

    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "img-src 'self'; media-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Sent with every file of the page. No Referer leaves it; the browser guesses no type.
    public static let headers: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-cache"),
    ]

    /// The file served at `path`, or nil.
    public static func asset(at path: String) -> Asset? {
        switch path {
        case "/", "/index.html": Asset(contentType: "text/html; charset=utf-8", body: sources["index.html"] ?? "")
        case "/call.js": Asset(contentType: "text/javascript; charset=utf-8", body: sources["call.js"] ?? "")
        case "/call.css": Asset(contentType: "text/css; charset=utf-8", body: sources["call.css"] ?? "")
        case "/sas-words.json": Asset(contentType: "application/json", body: wordsJSON)
        default: nil
        }
    }

    private static let wordsJSON = "[" + SASWords.list.map { "\"\($0)\"" }.joined(separator: ",") + "]"

    /// The link a guest opens: the page at `base` ("https://host:port"), the room and pin in the
    /// fragment, which a browser never sends to the server (not in a request line, a log or a
    /// Referer).
    public static func link(base: String, room: String, pin: String) -> String {
        "\(base)/#room=\(room)&pin=\(pin)"
    }
}
