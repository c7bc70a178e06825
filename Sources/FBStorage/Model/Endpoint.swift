#if canImport(Glibc)
import Glibc
#endif

/// Where requests go (production, or an emulator) and how their URLs are built:
/// `scheme://host:port/v0/b/<bucket>/o[/<escaped object>]`.
public struct Endpoint: Sendable, Equatable {
    /// `https` or `http`.
    public let scheme: String
    /// The host name or IP address; IPv6 addresses are kept without brackets.
    public let host: String
    /// The TCP port (always written in URLs, as the Apple SDK does).
    public let port: Int
    /// `scheme://host:port`, with an IPv6 host in brackets.
    let origin: String
    /// True for `localhost`, an IPv4 address in 127.0.0.0/8 and `::1`.
    let isLoopback: Bool
    /// True when tokens may be sent here: https, or a loopback host.
    let isSecureOrLoopback: Bool

    /// `https://firebasestorage.googleapis.com:443`.
    public static let production = Endpoint(scheme: "https", host: "firebasestorage.googleapis.com", port: 443)

    /// The default port of the Firebase Storage emulator.
    static let defaultEmulatorPort = 9199

    /// An endpoint; surrounding brackets of an IPv6 `host` are removed.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 {
            self.host = String(host.dropFirst().dropLast())
        } else {
            self.host = host
        }
        self.port = port
        // Computed once: every request's URL starts with the origin and asks whether its
        // credentials may go there.
        origin = "\(scheme)://\(self.host.contains(":") ? "[\(self.host)]" : self.host):\(port)"
        isLoopback = Self.isLoopback(host: self.host)
        isSecureOrLoopback = scheme.lowercased() == "https" || isLoopback
    }

    /// An emulator at `http://host:port` (host a name or an IPv4/IPv6 address, IPv6 with or
    /// without brackets).
    /// - Throws: `invalidArgument` for an empty host, a host with whitespace, `/`, `?`, `#`
    ///   or `@`, or a port outside 1...65535.
    static func emulator(host: String, port: Int) throws(StorageError) -> Endpoint {
        let endpoint = Endpoint(scheme: "http", host: host, port: port)
        if endpoint.host.isEmpty {
            throw .invalidArgument("The emulator host is empty.")
        }
        if endpoint.host.unicodeScalars.contains(where: {
            $0.properties.isWhitespace || $0.value < 0x20 || "/?#@[]".unicodeScalars.contains($0)
        }) {
            throw .invalidArgument("The emulator host '\(host)' is not a host name or IP address.")
        }
        if !(1...65535).contains(port) {
            throw .invalidArgument("The emulator port \(port) is not in 1...65535.")
        }
        return endpoint
    }

    /// The emulator an environment variable in `host:port` form names (the Firebase SDKs'
    /// `FIREBASE_*_EMULATOR_HOST`); nil when it is not set.
    /// - Throws: `invalidArgument` naming the variable when its value is malformed.
    static func emulator(environment variable: String, defaultPort: Int = defaultEmulatorPort) throws(StorageError) -> Endpoint? {
        guard let raw = getenv(variable) else { return nil }
        let value = String(cString: raw)
        guard let endpoint = emulator(hostPort: value, defaultPort: defaultPort) else {
            throw .invalidArgument("\(variable) must be host:port, not '\(value)'")
        }
        return endpoint
    }

    /// Any server at `http[s]://host[:port][/]` (a private endpoint, a TLS-terminating proxy, an
    /// emulator over https); the port defaults to the scheme's (80, 443).
    /// - Throws: `invalidArgument` for another scheme, credentials, a path, query or fragment,
    ///   or a host or port `emulator(host:port:)` refuses.
    static func custom(url: String) throws(StorageError) -> Endpoint {
        let invalid = StorageError.invalidArgument("The endpoint '\(url)' is not http[s]://host[:port].")
        guard let separator = url.firstRange(of: "://") else { throw invalid }
        let scheme = url[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw invalid }
        var authority = url[separator.upperBound...]
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.contains(where: { "/?#@".contains($0) }) else { throw invalid }
        let defaultPort = scheme == "https" ? 443 : 80
        // The host:port grammar of FIREBASE_STORAGE_EMULATOR_HOST, then this scheme on it.
        guard !authority.isEmpty, let parsed = emulator(hostPort: String(authority), defaultPort: defaultPort),
              String(authority).trimmingASCIIWhitespace() == String(authority)
        else { throw invalid }
        return Endpoint(scheme: scheme, host: parsed.host, port: parsed.port)
    }

    /// The emulator named by `FIREBASE_STORAGE_EMULATOR_HOST`'s format: `host:port`,
    /// `[ipv6]:port`, or a host alone (`defaultPort`: 9199, the Storage emulator's). `nil` when malformed (a scheme, a bad port,
    /// an unbracketed IPv6 address with a port).
    static func emulator(hostPort: String, defaultPort: Int = defaultEmulatorPort) -> Endpoint? {
        let s = hostPort.trimmingASCIIWhitespace()
        var host = Substring(s)
        var port = defaultPort
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]") else { return nil }
            host = s[s.index(after: s.startIndex)..<close]
            let rest = s[s.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = s.firstIndex(of: ":") {
            if s[s.index(after: colon)...].contains(":") {
                // Several colons: an unbracketed IPv6 address, which cannot carry a port.
                host = Substring(s)
            } else {
                host = s[..<colon]
                guard let p = Int(s[s.index(after: colon)...]) else { return nil }
                port = p
            }
        }
        return try? emulator(host: String(host), port: port)
    }

    /// `origin/v0/b/<escaped bucket>/o`.
    func bucketURL(_ bucket: String) -> String {
        "\(origin)/v0/b/\(PercentEscaping.objectName(bucket))/o"
    }

    /// `bucketURL/<escaped object>`; the bucket URL itself at the root.
    func objectURL(_ path: StoragePath) -> String {
        let base = bucketURL(path.bucket)
        return path.isRoot ? base : "\(base)/\(PercentEscaping.objectName(path.object))"
    }

    /// `bucketURL?prefix=<fullPath>/&delimiter=/[&maxResults=N][&pageToken=T]`; `prefix` is
    /// omitted at the root. Values are escaped as query values.
    func listURL(_ path: StoragePath, maxResults: Int?, pageToken: String?) -> String {
        var query: [String] = []
        if !path.isRoot { query.append("prefix=" + PercentEscaping.queryValue(path.object + "/")) }
        query.append("delimiter=" + PercentEscaping.queryValue("/"))
        if let maxResults { query.append("maxResults=\(maxResults)") }
        if let pageToken { query.append("pageToken=" + PercentEscaping.queryValue(pageToken)) }
        return bucketURL(path.bucket) + "?" + query.joined(separator: "&")
    }

    /// `bucketURL?name=<escaped object>`: where multipart uploads and resumable starts go.
    func uploadURL(_ path: StoragePath) -> String {
        bucketURL(path.bucket) + "?name=" + PercentEscaping.queryValue(path.object)
    }

    /// `objectURL?alt=media&token=<escaped token>`: a download URL.
    func downloadURL(_ path: StoragePath, token: String) -> String {
        objectURL(path) + "?alt=media&token=" + PercentEscaping.queryValue(token)
    }

    /// `objectURL?alt=media`: the URL that downloads the object's bytes with the caller's auth.
    func mediaURL(_ path: StoragePath) -> String {
        objectURL(path) + "?alt=media"
    }

    /// `localhost`, an IPv4 address in 127.0.0.0/8, or `::1`.
    private static func isLoopback(host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
                && (Int(part) ?? 256) <= 255
        }
    }
}
