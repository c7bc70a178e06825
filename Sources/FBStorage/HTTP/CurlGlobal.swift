import CCurl

/// Process-wide libcurl setup: `curl_global_init` exactly once, plus the version check.
enum CurlGlobal {
    /// Oldest libcurl with everything the engine uses: `curl_multi_poll`/`curl_multi_wakeup` (7.68.0),
    /// `CURLOPT_PROTOCOLS_STR` (7.85.0), `CURL_WRITEFUNC_ERROR` (7.87.0).
    static let minimumVersion: UInt32 = 0x07_57_00   // 7.87.0

    /// The library's version string ("7.88.1"), or the reason libcurl is unusable.
    /// A `static let` is initialised once, thread-safely (swift_once), which is what
    /// `curl_global_init` needs: before 7.84.0 it is not thread-safe itself.
    static let version: Result<String, StorageError> = {
        let rc = curl_global_init(Int(CURL_GLOBAL_ALL))
        guard rc == CURLE_OK else {
            return .failure(StorageError(code: .internalError, message: "curl_global_init failed: \(rc.rawValue)"))
        }
        guard let info = ccurl_version_info(), let cVersion = info.pointee.version else {
            return .failure(StorageError(code: .internalError, message: "curl_version_info returned nothing"))
        }
        let version = String(cString: cVersion)
        guard info.pointee.version_num >= minimumVersion else {
            return .failure(StorageError(
                code: .internalError, message: "libcurl \(version) is too old; 7.87.0 or newer is required"))
        }
        return .success(version)
    }()

    /// Whether this libcurl speaks HTTP/2 (built with nghttp2: Debian's is, the wheel's is not).
    static let supportsHTTP2: Bool = {
        guard (try? version.get()) != nil, let info = ccurl_version_info() else { return false }
        return info.pointee.features & Int32(CURL_VERSION_HTTP2) != 0
    }()

    /// Initialises libcurl if needed; throws `.internalError` if it is unusable.
    static func ensureInitialized() throws(StorageError) -> String {
        try version.get()
    }

    /// `fbstorage/<version> libcurl/<version>`.
    static var userAgent: String {
        "fbstorage/\(HTTPEngine.libraryVersion) libcurl/\((try? version.get()) ?? "unknown")"
    }
}
