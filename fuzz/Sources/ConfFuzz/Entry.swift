#if canImport(Glibc)
import Glibc
#endif

/// The parser under test, from CONF_FUZZ_TARGET.
let target: @Sendable (UnsafeBufferPointer<UInt8>) -> Void = {
    switch getenv("CONF_FUZZ_TARGET").map({ String(cString: $0) }) {
    case "sdp": return fuzzSDP
    case "packets": return fuzzPackets
    case "feedback": return fuzzFeedback
    case "signaling": return fuzzSignaling
    case "stun": return fuzzSTUN
    case "portmapping": return fuzzPortMapping
    default:
        let message = "set CONF_FUZZ_TARGET to sdp, packets, feedback, signaling, stun or portmapping\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    target(UnsafeBufferPointer(start: data, count: size))
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// SwiftPM links an executable's entry point as `ConfFuzz_main`: hand control to libFuzzer.
@_cdecl("ConfFuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { testOneInput($0, $1) }
}
