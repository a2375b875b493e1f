// swift-tools-version:6.0
// libFuzzer entry points for conf's parsers of network input. Built apart from the main package
// because they need -sanitize=fuzzer; run them with scripts/fuzz, which picks the parser with the
// CONF_FUZZ_TARGET environment variable: sdp, packets, feedback, signaling, stun or portmapping.
import PackageDescription

let package = Package(
    name: "conf-fuzz",
    dependencies: [.package(name: "conf", path: "..")],
    targets: [
        .executableTarget(name: "ConfFuzz", dependencies: [.product(name: "ConfWire", package: "conf")]),
    ]
)
