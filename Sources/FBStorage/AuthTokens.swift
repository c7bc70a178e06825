/// Where a storage's credentials come from: a fixed Auth ID token or a provider, and an App Check
/// token. Headers are only produced for https or loopback endpoints, so tokens never travel in
/// clear text to another host.
struct AuthTokens: Sendable {
    /// Returns the current ID token (or nil), refreshing it when `forceRefresh` is true.
    typealias Provider = @Sendable (_ forceRefresh: Bool) -> String?

    var fixedToken: String?
    var provider: Provider?
    var appCheckToken: String?

    var canRefresh: Bool { provider != nil }

    /// The credentials in `headers` (from `headers(for:forceRefresh:)`), to keep out of errors.
    static func secrets(in headers: [(name: String, value: String)]) -> [String] {
        headers.flatMap { header in
            [header.value, header.value.hasPrefix("Firebase ") ? String(header.value.dropFirst(9)) : ""]
        }
    }

    /// The auth headers for one request to `endpoint`. Throws `invalidArgument` when the token
    /// the provider returned holds a control character (fixed tokens are checked when set).
    func headers(for endpoint: Endpoint, forceRefresh: Bool) throws(StorageError) -> [(name: String, value: String)] {
        guard endpoint.isSecureOrLoopback else { return [] }
        var headers: [(name: String, value: String)] = []
        if let token = provider.map({ $0(forceRefresh) }) ?? fixedToken, !token.isEmpty {
            try HeaderValue.check(token, field: "The auth token")
            headers.append((name: "Authorization", value: "Firebase \(token)"))
        }
        if let appCheckToken, !appCheckToken.isEmpty {
            headers.append((name: "X-Firebase-AppCheck", value: appCheckToken))
        }
        return headers
    }
}
