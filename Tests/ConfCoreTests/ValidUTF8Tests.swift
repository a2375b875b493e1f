import ConfCore
import Testing

@Suite struct ValidUTF8Tests {
    @Test(arguments: [
        ([], ""),
        (Array("plain ascii {\"x\":1}".utf8), "plain ascii {\"x\":1}"),
        (Array("é日🙂".utf8), "é日🙂"),
        ([0x61, 0x80], nil),               // a lone continuation byte
        ([0xC0, 0x80], nil),               // an overlong NUL
        ([0xED, 0xA0, 0x80], nil),         // a UTF-16 surrogate
        ([0xF4, 0x90, 0x80, 0x80], nil),   // past U+10FFFF
        ([0xE6, 0x97], nil),               // cut short
    ] as [([UInt8], String?)])
    func acceptsExactlyValidUTF8(_ bytes: [UInt8], _ text: String?) {
        #expect(bytes.withUnsafeBufferPointer(String.init(validUTF8:)) == text)
    }
}
