import ConfCore
import Testing
@testable import ConfCall

@Suite struct IceCredentialsTests {
    @Test func credentialsFollowRFC8839() {
        var random = SeededRandom(seed: 7)
        let iceChars = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var seen = Set<String>()
        for _ in 0..<200 {
            let credentials = IceCredentials(using: &random)
            #expect((4...256).contains(credentials.ufrag.count))
            #expect((22...256).contains(credentials.pwd.count))
            #expect(credentials.ufrag.allSatisfy(iceChars.contains) && credentials.pwd.allSatisfy(iceChars.contains))
            seen.insert(credentials.ufrag)
        }
        #expect(seen.count == 200, "every link gets its own ufrag")
    }
}
