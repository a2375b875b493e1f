import ConfCore
import ConfCrypto
import ConfWire
import Foundation
import Testing

/// ACME's cryptography over OpenSSL: ES256 signatures that the key's own JWK verifies (checked by
/// the `openssl` command, which knows nothing of our code), CSRs and tls-alpn-01 certificates as
/// RFC 8737 describes them.
struct ACMEKeyTests {
    /// Runs `openssl` with `arguments`; its standard output, or throws with its error output.
    static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestError(message: "openssl \(arguments.joined(separator: " ")): \(failure)") }
        return text
    }

    struct TestError: Error { var message: String }

    static func temporary(_ name: String, _ bytes: [UInt8]) throws -> String {
        // Unique: the parametrized cases run at the same time.
        let path = NSTemporaryDirectory() + "conf-acme-\(getpid())-\(UUID().uuidString)-\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The JWK's point as a SubjectPublicKeyInfo PEM (RFC 5480's P-256 prefix, then 04 x y).
    static func publicKeyPEM(fromJWK jwk: String) throws -> String {
        let value = try JSONValue.parse(jwk)
        let x = try #require(Base64.decodeURLSafe(value["x"]?.stringValue ?? "")), y = try #require(Base64.decodeURLSafe(value["y"]?.stringValue ?? ""))
        #expect(x.count == 32 && y.count == 32)
        let prefix: [UInt8] = [0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE,
                               0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04]
        return "-----BEGIN PUBLIC KEY-----\n\(Base64.encode(prefix + x + y))\n-----END PUBLIC KEY-----\n"
    }

    /// r and s as DER's ECDSA-Sig-Value, which `openssl dgst -verify` reads.
    static func der(_ signature: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(signature[0..<32]) + integer(signature[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    @Test func aSignatureVerifiesWithTheJWKAlone() throws {
        let key = try ACMEKey()
        let input = Array("eyJhbGciOiJFUzI1NiJ9.eyJ0ZXJtc09mU2VydmljZUFncmVlZCI6dHJ1ZX0".utf8)
        let signature = try key.sign(input)
        #expect(signature.count == 64)
        let publicKey = try Self.temporary("pub.pem", Array(try Self.publicKeyPEM(fromJWK: key.jwk).utf8))
        let data = try Self.temporary("data", input), sig = try Self.temporary("sig", Self.der(signature))
        defer { for path in [publicKey, data, sig] { unlink(path) } }
        #expect(try Self.openssl(["dgst", "-sha256", "-verify", publicKey, "-signature", sig, data]).contains("Verified OK"))
        // Another input does not verify with that signature.
        let other = try Self.temporary("other", input + [0x2E])
        defer { unlink(other) }
        #expect(throws: TestError.self) { try Self.openssl(["dgst", "-sha256", "-verify", publicKey, "-signature", sig, other]) }
    }

    @Test func theJWKIsInRFC7638OrderAndTheThumbprintIsItsSHA256() throws {
        let key = try ACMEKey()
        #expect(key.jwk.hasPrefix(#"{"crv":"P-256","kty":"EC","x":""#) && !key.jwk.contains(" "))
        #expect(key.thumbprint == Base64.encode(ACMEKey.sha256(Array(key.jwk.utf8)), urlSafe: true) && key.thumbprint.count == 43)
        // SHA-256 itself, against FIPS 180-2's "abc".
        #expect(Hex.string(ACMEKey.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func aKeyReadsBackFromItsPEMAndOtherTextIsRefused() throws {
        let key = try ACMEKey()
        #expect(try ACMEKey(pem: key.pem).jwk == key.jwk)
        #expect(throws: CryptoError.self) { try ACMEKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(throws: CryptoError.self) { try ACMEKey(pem: "") }
        let rsa = try Self.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        #expect(throws: CryptoError.self) { try ACMEKey(pem: rsa) }
    }

    @Test(arguments: [(ACMEIdentifier.ip("11.0.0.2"), "IP Address:11.0.0.2"), (.ip("2001:db8::7"), "IP Address:2001:DB8:0:0:0:0:0:7"),
                      (.dns("call.example.org"), "DNS:call.example.org")])
    func aCSRNamesTheIdentifierAndIsSignedByTheCertificatesKey(identifier: ACMEIdentifier, printed: String) throws {
        let key = try ACMEKey()
        let path = try Self.temporary("csr.der", try key.certificateRequest(for: identifier))
        defer { unlink(path) }
        let text = try Self.openssl(["req", "-inform", "DER", "-in", path, "-noout", "-text", "-verify"])
        #expect(text.contains(printed), "\(text)")
        #expect(text.contains("ecdsa-with-SHA256"))
    }

    @Test(arguments: [ACMEIdentifier.ip("1.2.3.4,DNS:evil.example"), .ip("::1\n"), .dns("a b"), .dns("x,IP:1.2.3.4"), .dns("")])
    func anIdentifierThatCouldSmuggleAnotherNameIsRefused(identifier: ACMEIdentifier) throws {
        let key = try ACMEKey()
        #expect(throws: CryptoError.self) { try key.certificateRequest(for: identifier) }
    }

    @Test func theChallengeCertificateCarriesTheKeyAuthorizationsDigestInACriticalExtension() throws {
        let key = try ACMEKey()
        let challenge = ACMEChallenge(kind: .tlsALPN01, identifier: .ip("11.0.0.2"), token: "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA",
                                      keyAuthorization: "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA.\(key.thumbprint)")
        let pem = try key.challengeCertificate(for: challenge)
        #expect(pem.contains("-----BEGIN CERTIFICATE-----") && pem.contains("PRIVATE KEY-----"))
        let path = try Self.temporary("challenge.pem", Array(pem.utf8))
        defer { unlink(path) }
        #expect(try Self.openssl(["x509", "-in", path, "-noout", "-text"]).contains("IP Address:11.0.0.2"))
        // RFC 8737 section 3: id-pe-acmeIdentifier, critical (BOOLEAN 255), an OCTET STRING that
        // holds the DER OCTET STRING of SHA-256 of the key authorization (04 20, the 32 bytes).
        let der = try Self.temporary("challenge.der", [])
        defer { unlink(der) }
        _ = try Self.openssl(["x509", "-in", path, "-outform", "DER", "-out", der])
        let structure = try Self.openssl(["asn1parse", "-inform", "DER", "-in", der]).split(separator: "\n")
        let oid = try #require(structure.firstIndex { $0.hasSuffix(":1.3.6.1.5.5.7.1.31") }, "\(structure)")
        let digest = ACMEKey.sha256(Array(challenge.keyAuthorization.utf8))
        #expect(structure[oid + 1].contains("BOOLEAN") && structure[oid + 1].hasSuffix(":255"))
        #expect(structure[oid + 2].hasSuffix("[HEX DUMP]:0420" + Hex.string(digest).uppercased()), "\(structure[oid + 2])")
    }

    @Test func aChainsValidityIsRead() throws {
        let key = try ACMEKey()
        let challenge = ACMEChallenge(kind: .tlsALPN01, identifier: .ip("11.0.0.2"), token: "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ", keyAuthorization: "k")
        let summary = try #require(CertificateChainSummary(pem: try key.challengeCertificate(for: challenge)))
        let now = Int64(Date().timeIntervalSince1970)
        #expect(abs(summary.notBefore - (now - 3600)) < 120 && abs(summary.notAfter - (now + 7 * 86_400)) < 120)
        #expect(CertificateChainSummary(pem: "no certificate") == nil)
    }
}
