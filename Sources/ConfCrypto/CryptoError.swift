internal import COpenSSL

/// A failure in OpenSSL or libsrtp2, with the library's own words.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// `context` followed by OpenSSL's queued error messages (the queue is emptied).
    static func openSSL(_ context: String) -> CryptoError {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(reasons.isEmpty ? context : "\(context): \(reasons.joined(separator: "; "))")
    }
}
