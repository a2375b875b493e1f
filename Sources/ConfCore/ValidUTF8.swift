extension String {
    /// The text in `bytes` if they are valid UTF-8, else nil: `String(validating:as:)`, with
    /// ASCII (most of what conf reads from the network) on a fast path. The standard initialiser
    /// looks up generic metadata on every call, which was a visible share of the rendezvous's
    /// work per message.
    public init?(validUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        if !bytes.contains(where: { $0 >= 0x80 }) {
            self = String(decoding: bytes, as: UTF8.self)
        } else if let text = String(validating: bytes, as: UTF8.self) {
            self = text
        } else {
            return nil
        }
    }
}
