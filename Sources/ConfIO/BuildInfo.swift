internal import CConfShims

/// Facts fixed when the binary was built.
public enum BuildInfo {
    /// The git commit of a packaged build (scripts/package-deb passes it to the C compiler); nil for
    /// a development build.
    public static var commit: String? {
        let text = String(cString: conf_build_commit())
        return text.isEmpty ? nil : text
    }
}
