internal import CGLib
import ConfCore
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// Answers an ACME CA's tls-alpn-01 validation (RFC 8737) on the rendezvous's own TLS listener
/// while a challenge is up: a new TLS connection's ClientHello is peeked (left in the socket
/// for the TLS library to read), and one that offers only `acme-tls/1` is shown the challenge's
/// certificate instead of the rendezvous's, with that protocol negotiated. Every other
/// connection goes on as before, at most `patience` later.
///
/// Threading: made and used on the server's loop thread.
final class ACMEChallengeResponder {
    /// The challenge's certificate (a GTlsCertificate) while one is up.
    private(set) var certificate: OpaquePointer?
    /// Connections whose ClientHello is awaited, by descriptor.
    private var waiting: [Int32: Timer] = [:]
    private let loop: EventLoop
    /// How long a connection's ClientHello is awaited; a validator sends it at once.
    static let patience: Duration = .seconds(2)
    /// Connections awaited at once; past it, a connection goes on without being looked at.
    static let maximumWaiting = 64

    init(loop: EventLoop) { self.loop = loop }

    deinit {
        if let certificate { g_object_unref(UnsafeMutableRawPointer(certificate)) }
        // Connections still awaited were never handed to anyone: they end here.
        for (fd, timer) in waiting {
            timer.cancel()
            close(fd)
        }
    }

    /// Puts up (or, with nil, takes down) the challenge certificate, from PEM text holding the
    /// certificate and its key.
    func setCertificate(pem: String?) throws(GLibError) {
        if let certificate { g_object_unref(UnsafeMutableRawPointer(certificate)) }
        certificate = nil
        guard let pem else { return }
        certificate = try withGError { g_tls_certificate_new_from_pem(pem, -1, $0) }.map(OpaquePointer.init)
    }

    /// Whether `fd` (a new TLS connection) is to be looked at first; if so `decided` is called
    /// later with whether it is the validator's.
    func inspect(_ fd: Int32, decided: @escaping (_ validator: Bool) -> Void) -> Bool {
        guard certificate != nil, waiting.count < Self.maximumWaiting else { return false }
        let deadline = loop.clock.now() + Self.patience
        var finished = false
        let finish = { [weak self] (validator: Bool) in
            guard !finished else { return }
            finished = true
            self?.waiting.removeValue(forKey: fd)?.cancel()
            decided(validator)
        }
        // Polled every 20 ms rather than watched: a ClientHello that came in part leaves the
        // socket readable, and a watch would spin on it.
        waiting[fd] = loop.schedule(every: .milliseconds(20)) { [weak self] in
            guard let self else { return false }
            var bytes = [UInt8](repeating: 0, count: 16_384 + 5)
            let count = recv(fd, &bytes, bytes.count, Int32(MSG_PEEK | MSG_DONTWAIT))
            let reading = count > 0 ? TLSClientHello.read(Array(bytes.prefix(count))) : .incomplete
            if case .protocols(let offered) = reading {
                finish(offered == [TLSClientHello.acmeProtocol] && self.certificate != nil)
                return false
            }
            if reading == .notClientHello || count == 0 || (count < 0 && errno != EAGAIN) || self.loop.clock.now() >= deadline {
                finish(false)
                return false
            }
            return true
        }
        return true
    }
}
