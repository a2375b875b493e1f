import ConfWire
import Testing

/// The proxy variables as curl reads them, for ws:// and wss:// rendezvous.
@Suite struct RendezvousProxyTests {
    @Test func eachKindOfRendezvousReadsItsOwnVariableThenAllProxy() {
        let environment = ["http_proxy": "http://plain.example:3128", "https_proxy": "http://tls.example:3129",
                           "all_proxy": "socks5://any.example:1080"]
        #expect(RendezvousProxy.from(environment: environment, secure: false)?.url == "http://plain.example:3128")
        #expect(RendezvousProxy.from(environment: environment, secure: true)?.url == "http://tls.example:3129")
        #expect(RendezvousProxy.from(environment: ["all_proxy": "socks5://any.example:1080"], secure: true)?.url
                == "socks5://any.example:1080")
        #expect(RendezvousProxy.from(environment: ["ALL_PROXY": "socks5://any.example:1080"], secure: false)?.url
                == "socks5://any.example:1080")
        #expect(RendezvousProxy.from(environment: ["HTTPS_PROXY": "http://tls.example:3129"], secure: true)?.url
                == "http://tls.example:3129")
    }

    @Test func upperCaseHTTPProxyIsNotReadAndLowerCaseWins() {
        // HTTP_PROXY is what a CGI program finds a client's "Proxy:" header in (httpoxy).
        #expect(RendezvousProxy.from(environment: ["HTTP_PROXY": "http://attacker.example:80"], secure: false) == nil)
        let both = ["https_proxy": "http://lower.example:1", "HTTPS_PROXY": "http://upper.example:2"]
        #expect(RendezvousProxy.from(environment: both, secure: true)?.url == "http://lower.example:1")
    }

    @Test func noneSetOrEmptyMeansDirect() {
        #expect(RendezvousProxy.from(environment: [:], secure: false) == nil)
        #expect(RendezvousProxy.from(environment: ["http_proxy": "  "], secure: false) == nil)
        #expect(RendezvousProxy.from(environment: ["https_proxy": "http://tls.example:3129"], secure: false) == nil)
    }

    @Test func aProxyWithoutSchemeIsHTTPAndSocks5hIsSocks5() {
        #expect(RendezvousProxy.from(environment: ["http_proxy": "proxy.example:3128"], secure: false)?.url
                == "http://proxy.example:3128")
        // `ssh -D 1080` users write socks5h:// for curl; GIO knows socks5://, which resolves at the proxy.
        #expect(RendezvousProxy.from(environment: ["all_proxy": "socks5h://127.0.0.1:1080"], secure: true)?.url
                == "socks5://127.0.0.1:1080")
    }

    @Test func noProxyListsDirectHostsAfterLoopbackAndStarTurnsTheProxyOff() throws {
        let proxy = try #require(RendezvousProxy.from(
            environment: ["http_proxy": "http://p.example:3128", "no_proxy": " example.org,,10.0.0.0/8 , localhost"], secure: false))
        #expect(proxy.directHosts == ["localhost", "127.0.0.0/8", "::1", "example.org", "10.0.0.0/8"])
        #expect(RendezvousProxy.from(environment: ["http_proxy": "http://p.example:3128"], secure: false)?.directHosts
                == ["localhost", "127.0.0.0/8", "::1"])
        #expect(RendezvousProxy.from(environment: ["http_proxy": "http://p.example:3128", "NO_PROXY": " * "], secure: false) == nil)
        // As curl: a "*" among other entries is not the wildcard; it matches nothing.
        #expect(RendezvousProxy.from(environment: ["http_proxy": "http://p.example:3128", "NO_PROXY": "a.example, *"],
                                     secure: false)?.directHosts == ["localhost", "127.0.0.0/8", "::1", "a.example"])
    }
}
