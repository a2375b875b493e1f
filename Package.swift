// swift-tools-version:6.0
// The layers, bottom to top. Dependencies only point down; only ConfIO imports C modules.
//
//   conf            executable: wiring only
//   ConfApp         the commands' behaviour: host, join, rendezvous, completions
//   ConfCLI         the declarative command tree -> parser, --help, completions, man page
//   ConfIO          thin adapters: GLib main loop, libsoup rendezvous server and client, getrandom
//   ConfSession     pure: offer/answer, per-peer negotiation, the mesh (sans-IO)
//   ConfRendezvous  pure: rooms, pins, rate limits, relaying (sans-IO server core)
//   ConfWire        pure: SDP, ICE candidates, the rendezvous protocol's messages and peer signals
//   ConfCore        pure: time, randomness seam, JSON values, errors
//   CGLibSoup       system library (GLib, libsoup 3) + CConfShims for varargs and macros
import PackageDescription

let package = Package(
    name: "conf",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "conf", targets: ["conf"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGLibSoup",
            pkgConfig: "libsoup-3.0",
            providers: [.apt(["libsoup-3.0-dev", "libglib2.0-dev"])]
        ),
        .target(name: "CConfShims", dependencies: ["CGLibSoup"]),

        .target(name: "ConfCore"),
        .target(name: "ConfWire", dependencies: ["ConfCore"]),
        .target(name: "ConfRendezvous", dependencies: ["ConfCore", "ConfWire"]),
        .target(name: "ConfSession", dependencies: ["ConfCore", "ConfWire"]),
        .target(name: "ConfIO", dependencies: ["ConfCore", "ConfWire", "ConfRendezvous", "CGLibSoup", "CConfShims"]),
        .target(name: "ConfCLI", dependencies: ["ConfCore"]),
        .target(name: "ConfApp", dependencies: ["ConfCore", "ConfWire", "ConfRendezvous", "ConfIO", "ConfCLI"]),
        .executableTarget(name: "conf", dependencies: ["ConfApp"]),

        .testTarget(name: "ConfCoreTests", dependencies: ["ConfCore"]),
        .testTarget(name: "ConfWireTests", dependencies: ["ConfWire"]),
        .testTarget(name: "ConfRendezvousTests", dependencies: ["ConfRendezvous"]),
        .testTarget(name: "ConfSessionTests", dependencies: ["ConfSession"]),
        .testTarget(name: "ConfCLITests", dependencies: ["ConfCLI", "ConfApp"]),
        .testTarget(name: "ConfEndToEndTests", dependencies: ["ConfCore"]),
    ]
)
