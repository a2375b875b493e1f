internal import CGLib

/// A failure reported by GLib, GIO or libsoup, with the library's own message.
public struct GLibError: Error, Sendable, CustomStringConvertible {
    public var domain: String
    public var code: Int32
    public var message: String

    /// Takes ownership of `error` and frees it.
    init(taking error: UnsafeMutablePointer<GError>) {
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        code = error.pointee.code
        message = String(cString: error.pointee.message)
        g_error_free(error)
    }

    public var description: String { message }

    /// True for "connection refused" from GIO.
    public var isConnectionRefused: Bool { domain == "g-io-error-quark" && code == Int32(G_IO_ERROR_CONNECTION_REFUSED.rawValue) }

    /// True for a port another socket holds.
    public var isAddressInUse: Bool { domain == "g-io-error-quark" && code == Int32(G_IO_ERROR_ADDRESS_IN_USE.rawValue) }
}

/// Calls a GLib function taking a trailing `GError **` and throws what it set.
func withGError<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws(GLibError) -> T {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error { throw GLibError(taking: error) }
    return result
}
