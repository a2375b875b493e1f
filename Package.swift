// swift-tools-version:6.0
// The layers, top to bottom. Dependencies only point down; only ConfIO, ConfMedia and ConfCrypto import C modules.
//
//   conf            executable: wiring only
//   ConfApp         the commands' behaviour: host, join, rendezvous, devices, completions; options -> a call
//   ConfDriver      drives one participant's engine and rendezvous session with real things (libnice, GLib
//                   timers, usrsctp, the media pipelines); its events to stdout as JSON or text
//   ConfCLI         the declarative command tree -> parser, --help, completions, man page
//   ConfScreen      pure: the call screen (roster, chat, input line, keys) laid out on a canvas of cells,
//                   and the renderer that writes only the cells that changed
//   ConfCallMedia   the call's media between the backends and the engine: audio and video pipelines
//                   (encode once, decode per peer), the recordings; backends taken by protocol, no devices
//   ConfIO          thin adapters: GLib main loop, libsoup rendezvous server and client, libnice,
//                   usrsctp data channels, PulseAudio and V4L2 backends (pulse, v4l2), the SDL2 video window, getrandom
//   ConfMedia       Opus and VP8 encoders/decoders, MJPEG decoding, signal analysis; the media backend seams (AudioSource,
//                   AudioSink, VideoSource), their registry by name and the generated backends; no devices
//   ConfCall        pure: the call engine (one per participant): links, RTP streams, events (sans-IO)
//   ConfCrypto      DTLS (OpenSSL over memory BIOs), SRTP (libsrtp2), SAS words; no sockets
//   ConfSession     pure: offer/answer, per-peer negotiation, the mesh (sans-IO)
//   ConfRendezvous  pure: rooms, pins, rate limits, relaying (sans-IO server core)
//   ConfWire        pure: SDP, ICE candidates, the rendezvous protocol's messages and peer signals
//   ConfCore        pure: time, randomness seam, JSON values, errors
//   C*              system libraries (GLib with libsoup 3 and libnice, OpenSSL, libsrtp2, usrsctp, libopus, libvpx, libturbojpeg, libyuv, libpulse) + shim
//                   targets for varargs, macros and by-value callbacks (CConfShims, CCryptoShims, CSCTPShims, CMediaShims, CV4L2Shims);
//                   CSDLLoader: SDL2 with SDL2_ttf, loaded (dlopen) only when a window opens
import PackageDescription

let package = Package(
    name: "conf",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "conf", targets: ["conf"]),
        // For the fuzz targets in fuzz/.
        .library(name: "ConfWire", targets: ["ConfWire"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGLib",
            pkgConfig: "libsoup-3.0",
            providers: [.apt(["libsoup-3.0-dev", "libglib2.0-dev", "libnice-dev", "libgupnp-igd-1.0-dev"])]
        ),
        .target(name: "CConfShims", dependencies: ["CGLib"]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .target(name: "CCryptoShims", dependencies: ["COpenSSL"]),
        .systemLibrary(name: "CUsrsctp", pkgConfig: "usrsctp", providers: [.apt(["libusrsctp-dev"])]),
        .target(name: "CSCTPShims", dependencies: ["CUsrsctp"]),
        .target(name: "CV4L2Shims"),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CPulse", pkgConfig: "libpulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // libyuv ships no pkg-config file: the module map links it by name.
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .target(name: "CMediaShims", dependencies: ["COpus", "CVPX"]),
        // SDL2 and SDL2_ttf: their headers only; the libraries are loaded when a window opens.
        .target(name: "CSDLLoader"),

        .target(name: "ConfCore"),
        .target(name: "ConfWire", dependencies: ["ConfCore"]),
        .target(name: "ConfRendezvous", dependencies: ["ConfCore", "ConfWire"]),
        .target(name: "ConfSession", dependencies: ["ConfCore", "ConfWire"]),
        .target(name: "ConfCrypto", dependencies: ["ConfCore", "ConfWire", "COpenSSL", "CSRTP", "CCryptoShims"]),
        .target(name: "ConfMedia", dependencies: ["ConfCore", "ConfWire", "COpus", "CVPX", "CMediaShims", "CTurboJPEG", "CYUV"],
                // Its pixel and sample loops run on the event loop for every frame: optimised in debug
                // builds too, or a debug conf under emulation (the vivid camera test) starves its loop.
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "ConfCall", dependencies: ["ConfCore", "ConfWire", "ConfSession", "ConfCrypto"]),
        .target(name: "ConfIO", dependencies: ["ConfCore", "ConfWire", "ConfRendezvous", "CGLib", "CConfShims", "CSCTPShims", "CPulse", "CV4L2Shims", "CSDLLoader", "ConfMedia", "ConfWeb"]),
        .target(name: "ConfCLI", dependencies: ["ConfCore"]),
        .target(name: "ConfWeb", dependencies: ["ConfWire"], exclude: ["page"]),
        .target(name: "ConfScreen", dependencies: ["ConfCore"]),
        .target(name: "ConfCallMedia", dependencies: ["ConfCore", "ConfWire", "ConfCall", "ConfMedia"]),
        .target(name: "ConfDriver", dependencies: ["ConfCore", "ConfWire", "ConfCrypto", "ConfCall", "ConfMedia", "ConfIO", "ConfCallMedia", "ConfScreen"]),
        .target(name: "ConfApp", dependencies: ["ConfCore", "ConfWire", "ConfRendezvous", "ConfSession", "ConfCrypto", "ConfCall", "ConfMedia", "ConfIO",
                                                "ConfCLI", "ConfCallMedia", "ConfDriver", "ConfScreen", "ConfWeb"]),
        .executableTarget(name: "conf", dependencies: ["ConfApp", "ConfCore"]),
        // bench/README: what the call screen's drawing costs.
        .executableTarget(name: "screen-bench", dependencies: ["ConfScreen"], path: "bench/screen-bench"),
        // BENCHMARKS.md: what the rendezvous's JSON costs a relayed message.
        .executableTarget(name: "json-bench", dependencies: ["ConfCore"], path: "bench/json-bench"),

        // What more than one test target needs (a test target cannot share its files).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // OpenSSL's DTLS timer on the simulation's clock (gettimeofday, interposed in the tests only).
        .target(name: "SimulatedWallClock", path: "Tests/SimulatedWallClock"),
        .testTarget(name: "ConfCoreTests", dependencies: ["ConfCore"]),
        .testTarget(name: "ConfWireTests", dependencies: ["ConfWire"]),
        .testTarget(name: "ConfRendezvousTests", dependencies: ["ConfRendezvous", "ConfCrypto"]),
        .testTarget(name: "ConfSessionTests", dependencies: ["ConfSession"]),
        .testTarget(name: "ConfCryptoTests", dependencies: ["ConfCrypto"]),
        .testTarget(name: "ConfCallTests", dependencies: ["ConfCall", "ConfCrypto", "ConfSession", "ConfWire", "SimulatedWallClock"]),
        .testTarget(name: "ConfIOTests", dependencies: ["ConfIO", "ConfCrypto"]),
        .testTarget(name: "ConfScreenTests", dependencies: ["ConfScreen"]),
        .testTarget(name: "ConfMediaTests", dependencies: ["ConfMedia", "ConfWire", "CTurboJPEG", "TestSupport"]),
        .testTarget(name: "ConfCallMediaTests", dependencies: ["ConfCallMedia", "ConfCall", "ConfMedia", "ConfWire", "ConfCore"]),
        .testTarget(name: "ConfCLITests", dependencies: ["ConfCLI", "ConfApp", "ConfDriver", "ConfCall", "ConfWeb", "ConfMedia", "ConfWire", "TestSupport"]),
        .testTarget(name: "ConfEndToEndTests", dependencies: ["ConfCore", "ConfMedia", "TestSupport"]),
    ]
)
