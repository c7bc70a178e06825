#if canImport(Glibc)
import Glibc
#endif

/// A V4 signed URL request (GCS's XML API: `GOOG4-RSA-SHA256`): who may do what to which object
/// until when, without credentials of their own. Built exactly as google-cloud-storage's
/// `generate_signed_url(version="v4")` builds it, so both give the same URL for the same inputs
/// and time.
public struct SignedURLRequest: Sendable {
    public enum Style: Sendable, Equatable {
        /// `<endpoint>/<bucket>/<object>`.
        case path
        /// `<scheme>://<bucket>.<endpoint host>/<object>`.
        case virtualHosted
        /// `<scheme>://<hostname>/<object>`: a CNAME bound to the bucket; `hostname` may be a URL.
        case bucketBoundHostname(String)
    }

    /// GET, HEAD, PUT, DELETE, or POST (a resumable upload's start, with `x-goog-resumable: start`).
    public var method: String
    public var bucket: String
    /// nil: the bucket itself (a listing).
    public var object: String?
    /// Seconds the URL stays valid: 1 to 604800 (7 days).
    public var expiresIn: Int64
    /// Headers the request must send with these values (signed).
    public var headers: [(name: String, value: String)] = []
    /// Query parameters signed into the URL (`response-content-disposition`, `generation`, …).
    public var queryParameters: [(name: String, value: String)] = []
    /// The API access endpoint (google-cloud-storage's `api_access_endpoint`); an emulator's URL.
    public var endpoint = "https://storage.googleapis.com"
    public var style = Style.path
    /// The signing time in seconds since the epoch; nil: now.
    public var timestamp: Int64?

    public static let maxExpiration: Int64 = 604800
    static let methods = ["GET", "HEAD", "PUT", "DELETE", "POST"]

    public init(method: String, bucket: String, object: String?, expiresIn: Int64) {
        self.method = method
        self.bucket = bucket
        self.object = object
        self.expiresIn = expiresIn
    }
}

/// The pieces of a signature, kept apart for the conformance tests.
struct V4Signature {
    let canonicalRequest: String
    let stringToSign: String
    /// The URL without its `X-Goog-Signature`.
    let unsignedURL: String
}

extension ServiceAccountKey {
    /// The signed URL for `request`, computed here (nothing is sent).
    /// - Throws: `invalidArgument` for a method other than GET/HEAD/PUT/DELETE/POST, an
    ///   expiration outside 1...604800 s, an empty bucket, an endpoint that is not an http(s)
    ///   URL, or a header or parameter holding a control character.
    public func signedURL(_ request: SignedURLRequest) throws(StorageError) -> String {
        let signature = try v4Signature(request)
        let signed = try privateKey.sign(Array(signature.stringToSign.utf8))
        return signature.unsignedURL + "&X-Goog-Signature=" + Hex.lowercase(signed)
    }

    func v4Signature(_ request: SignedURLRequest) throws(StorageError) -> V4Signature {
        guard SignedURLRequest.methods.contains(request.method) else {
            throw .invalidArgument("The signed URL's method must be one of \(SignedURLRequest.methods.joined(separator: ", ")), not '\(request.method)'")
        }
        guard (1...SignedURLRequest.maxExpiration).contains(request.expiresIn) else {
            throw .invalidArgument("A signed URL's expiration must be 1 to 604800 seconds (7 days), not \(request.expiresIn)")
        }
        guard !request.bucket.isEmpty else { throw .invalidArgument("The bucket is empty") }
        for (name, value) in request.queryParameters {
            try HeaderValue.check(name, field: "A signed parameter name")
            try HeaderValue.check(value, field: "The signed parameter '\(name)'")
        }
        let (base, resource) = try Self.baseAndResource(request)
        let (stamp, day) = Self.timestamps(request.timestamp ?? Int64(IDToken.now()))
        let scope = "\(day)/auto/storage/goog4_request"

        var headers = request.headers
        if !headers.contains(where: { $0.name.lowercased() == "host" }) {
            headers.append((name: "Host", value: Self.authority(of: base)))
        }
        let canonicalHeaders = Self.canonicalHeaders(headers)
        for (name, value) in canonicalHeaders {   // whitespace is folded: other control characters cannot be sent
            try HeaderValue.check(name, field: "A signed header name")
            try HeaderValue.check(value, field: "The signed header '\(name)'")
        }
        let signedHeaders = canonicalHeaders.map(\.name).joined(separator: ";")

        var query = request.queryParameters
        query += [("X-Goog-Algorithm", "GOOG4-RSA-SHA256"), ("X-Goog-Credential", "\(clientEmail)/\(scope)"),
                  ("X-Goog-Date", stamp), ("X-Goog-Expires", String(request.expiresIn)), ("X-Goog-SignedHeaders", signedHeaders)]
        // Later values of a name win, as in the Python dictionary google-cloud-storage builds.
        var byName: [String: String] = [:]
        for (name, value) in query { byName[name] = value }
        let canonicalQuery = byName.map { "\(PercentEscaping.signedQuery($0.key))=\(PercentEscaping.signedQuery($0.value))" }
            .sorted(by: utf8Precedes).joined(separator: "&")

        let payload = canonicalHeaders.first { $0.name == "x-goog-content-sha256" }?.value ?? "UNSIGNED-PAYLOAD"
        let canonicalRequest = [
            request.method, resource, canonicalQuery,
            canonicalHeaders.map { "\($0.name):\($0.value)" }.joined(separator: "\n") + "\n",
            signedHeaders, payload,
        ].joined(separator: "\n")
        let stringToSign = ["GOOG4-RSA-SHA256", stamp, scope, SHA256.hex(Array(canonicalRequest.utf8))].joined(separator: "\n")
        return V4Signature(canonicalRequest: canonicalRequest, stringToSign: stringToSign,
                           unsignedURL: "\(base)\(resource)?\(canonicalQuery)")
    }

    /// The URL's base (`scheme://authority`, no trailing slash) and the escaped resource path.
    private static func baseAndResource(_ request: SignedURLRequest) throws(StorageError) -> (String, String) {
        let name = request.object.map { "/" + PercentEscaping.signedPath($0) } ?? ""
        var endpoint = request.endpoint
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        guard let scheme = ["https", "http"].first(where: { endpoint.hasPrefix("\($0)://") }),
              !authority(of: endpoint).isEmpty else {
            throw .invalidArgument("The signed URL's endpoint must be an http(s) URL, not '\(request.endpoint)'")
        }
        switch request.style {
        case .path:
            return (endpoint, "/\(request.bucket)\(name)")
        case .virtualHosted:
            return ("\(scheme)://\(request.bucket).\(authority(of: endpoint))", name)
        case .bucketBoundHostname(let hostname):
            guard !hostname.isEmpty else { throw .invalidArgument("The bucket-bound hostname is empty") }
            return (hostname.contains("://") ? hostname : "\(scheme)://\(hostname)", name)
        }
    }

    /// `host[:port]` of a URL (Python's `urlparse(url).netloc`).
    static func authority(of url: String) -> String {
        guard let scheme = ["https://", "http://"].first(where: { url.hasPrefix($0) }) else { return "" }
        return String(url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// Names lowercased and trimmed, values' whitespace runs made one space, a repeated name's
    /// values joined with commas, sorted by name.
    private static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            let key = String(name.lowercased().trimmingASCIIWhitespace())
            let folded = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" })
                .joined(separator: " ")
            if values[key] == nil { order.append(key) }
            values[key, default: []].append(folded)
        }
        return order.sorted(by: utf8Precedes).map { (name: $0, value: values[$0]!.joined(separator: ",")) }
    }

    /// `YYYYMMDDTHHMMSSZ` and `YYYYMMDD` in UTC.
    private static func timestamps(_ seconds: Int64) -> (String, String) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
        return ("\(day)T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z", day)
    }
}
