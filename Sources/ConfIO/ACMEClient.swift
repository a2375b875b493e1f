internal import CGLib
internal import CConfShims
import ConfCore
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// Runs an `ACMEIssuance` on the event loop: its requests over HTTPS (libsoup, verified against
/// the system's CAs or `caFile`), its pauses on the loop's timers, its challenges put up by the
/// caller. Each answer is read up to `ACMEIssuance.maximumBody` bytes and one more, so that a
/// larger one is known as such without being held whole.
///
/// Threading: made, used and called back on its `EventLoop` thread.
public final class ACMEClient {
    private let loop: EventLoop
    private let session: UnsafeMutablePointer<SoupSession>
    private var issuance: ACMEIssuance?
    private var answer: ((ACMEChallenge) -> Void)?
    private var done: ((Result<(chain: String, account: String), ACMEFailure>) -> Void)?
    private var timer: Timer?

    /// `caFile`: the directory's own CA (a test CA such as pebble's) instead of the system's.
    public init(loop: EventLoop, caFile: String? = nil, timeout: Duration = .seconds(30)) throws(GLibError) {
        self.loop = loop
        let database = try caFile.map { file throws(GLibError) in try withGError { g_tls_file_database_new(RendezvousClient.absolute(file), $0) } }
        session = UnsafeMutablePointer(OpaquePointer(conf_soup_session_new(UInt32(max(1, timeout.nanosecondsClamped / 1_000_000_000)), nil, nil, nil, 0)))
        if let database {
            soup_session_set_tls_database(session, database)
            g_object_unref(database)
        }
    }

    deinit {
        timer?.cancel()
        soup_session_abort(session)
        g_object_unref(session)
    }

    /// Runs `issuance` to its end. `answer` puts a challenge's answer up (synchronously: the CA
    /// may look as soon as it returns); `done` is called once.
    public func run(_ issuance: ACMEIssuance, answer: @escaping (ACMEChallenge) -> Void,
                    done: @escaping (Result<(chain: String, account: String), ACMEFailure>) -> Void) {
        self.issuance = issuance
        self.answer = answer
        self.done = done
        step()
    }

    /// Stops: no request is made and nothing is called back after this.
    public func cancel() {
        timer?.cancel()
        timer = nil
        issuance = nil
        done = nil
        soup_session_abort(session)
    }

    private func step() {
        guard var issuance else { return }
        let next = issuance.next(now: loop.clock.now())
        self.issuance = issuance
        switch next {
        case .send(let request): send(request)
        case .wait(let until):
            timer = loop.schedule(after: until.since(loop.clock.now())) { [weak self] in self?.step() }
        case .answer(let challenge):
            answer?(challenge)
            self.issuance?.challengeAnswered()
            step()
        case .issued(let chain, let account): finish(.success((chain, account)))
        case .failed(let failure): finish(.failure(failure))
        }
    }

    private func finish(_ result: Result<(chain: String, account: String), ACMEFailure>) {
        let done = self.done
        self.done = nil
        issuance = nil
        done?(result)
    }

    private func send(_ request: ACMERequest) {
        guard let message = soup_message_new(request.method.rawValue, request.url) else {
            issuance?.unreachable("\(request.url) is not a URL libsoup takes")
            return step()
        }
        if let body = request.body {
            let bytes = body.withUnsafeBytes { g_bytes_new($0.baseAddress, UInt($0.count)) }
            soup_message_set_request_body_from_bytes(message, ACMERequest.contentType, bytes)
            g_bytes_unref(bytes)
        }
        let box = AsyncBox { [weak self] source, result in
            var error: UnsafeMutablePointer<GError>?
            let stream = soup_session_send_finish(UnsafeMutablePointer(source), result, &error)
            guard let self, self.issuance != nil else {
                if let stream { g_object_unref(stream) }
                if let error { g_error_free(error) }
                g_object_unref(UnsafeMutableRawPointer(message))
                return
            }
            if let error {
                g_object_unref(UnsafeMutableRawPointer(message))
                self.issuance?.unreachable(GLibError(taking: error).message)
                return self.step()
            }
            self.read(stream!, of: message)
        }
        soup_session_send_async(session, message, G_PRIORITY_DEFAULT, nil, onAsyncReady, Unmanaged.passRetained(box).toOpaque())
    }

    /// Reads the body of `message`'s answer, up to the limit and one byte more.
    private func read(_ stream: UnsafeMutablePointer<GInputStream>, of message: OpaquePointer) {
        let capacity = ACMEIssuance.maximumBody + 1
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        let box = AsyncBox { [weak self] source, result in
            var count: gsize = 0
            var error: UnsafeMutablePointer<GError>?
            g_input_stream_read_all_finish(UnsafeMutablePointer(source), result, &count, &error)
            let body = [UInt8](UnsafeRawBufferPointer(start: buffer, count: error == nil ? Int(count) : 0))
            buffer.deallocate()
            g_object_unref(stream)
            defer { g_object_unref(UnsafeMutableRawPointer(message)) }
            guard let self, self.issuance != nil else {
                if let error { g_error_free(error) }
                return
            }
            if let error {
                self.issuance?.unreachable(GLibError(taking: error).message)
                return self.step()
            }
            let headers = soup_message_get_response_headers(message)
            let response = ACMEResponse(status: Int(soup_message_get_status(message).rawValue),
                                        headers: ["Replay-Nonce", "Location", "Retry-After", "Content-Type"].compactMap { name in
                                            soup_message_headers_get_one(headers, name).map { (name, String(cString: $0)) }
                                        },
                                        body: body)
            var unixTime = timespec()
            clock_gettime(CLOCK_REALTIME, &unixTime)
            self.issuance?.received(response, now: self.loop.clock.now(), unixTime: Int64(unixTime.tv_sec))
            self.step()
        }
        g_input_stream_read_all_async(stream, buffer, gsize(capacity), G_PRIORITY_DEFAULT, nil, onAsyncReady, Unmanaged.passRetained(box).toOpaque())
    }
}
