internal import CConfShims
#if canImport(Glibc)
import Glibc
#endif

/// Random numbers from the kernel's CSPRNG (getrandom(2)): the source of room ids and pins.
public struct KernelRandom: RandomNumberGenerator, Sendable {
    public init() {}

    public mutating func next() -> UInt64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { buffer in
            var filled = 0
            while filled < buffer.count {
                let n = conf_getrandom(buffer.baseAddress! + filled, UInt(buffer.count - filled))
                if n > 0 {
                    filled += Int(n)
                } else if errno != EINTR {
                    fatalError("getrandom failed: errno \(errno)")  // Linux >= 3.17 always has it
                }
            }
        }
        return value
    }
}
