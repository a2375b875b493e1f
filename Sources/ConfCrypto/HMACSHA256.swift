internal import COpenSSL

/// HMAC-SHA256 (RFC 2104, FIPS 180-4) with OpenSSL, under one key: the rendezvous's secret for
/// resume tokens and derived pins. Stateless apart from the key, so it may be called from any thread.
public struct HMACSHA256: Sendable {
    private let key: [UInt8]

    /// `key` should be 32 random bytes.
    public init(key: [UInt8]) { self.key = key }

    /// The 32-byte MAC of `message`.
    public func authenticate(_ message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.bindMemory(to: UInt8.self).baseAddress, m.count, &out, &length)
            }
        }
        // HMAC fails only when OpenSSL cannot allocate; a MAC of zeros would verify nothing.
        precondition(result != nil && length == 32, "OpenSSL HMAC-SHA256 failed")
        return Array(out.prefix(32))
    }
}
