/// The local ICE username fragment and password of one link, chosen by the engine (not by the ICE
/// agent) so that the offer or answer can be written before any agent exists.
///
/// RFC 8839 §5.4: ice-char is ALPHA / DIGIT / "+" / "/"; the ufrag carries at least 24 bits of
/// randomness (4 to 256 characters), the password at least 128 bits (22 to 256 characters).
public struct IceCredentials: Equatable, Sendable {
    public let ufrag: String
    public let pwd: String

    /// 64 ice-chars: each one carries six bits.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    public init<R: RandomNumberGenerator>(using random: inout R) {
        ufrag = Self.randomText(count: 8, using: &random)  // 48 bits
        pwd = Self.randomText(count: 24, using: &random)  // 144 bits
    }

    private static func randomText<R: RandomNumberGenerator>(count: Int, using random: inout R) -> String {
        String((0..<count).map { _ in alphabet[Int(random.next() & 63)] })
    }
}
