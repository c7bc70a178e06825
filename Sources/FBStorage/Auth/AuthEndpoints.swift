/// Where Auth requests go: Google's hosts, or an Auth emulator that serves them as path prefixes
/// (`http://host:port/identitytoolkit.googleapis.com/v1/…`), as the Firebase SDKs address it.
struct AuthEndpoints: Sendable, Equatable {
    /// nil: production.
    var emulator: Endpoint?

    static let identityToolkitHost = "identitytoolkit.googleapis.com"
    static let secureTokenHost = "securetoken.googleapis.com"
    /// The Auth emulator's default port (firebase-tools).
    static let defaultEmulatorPort = 9099

    /// The URL of Identity Toolkit's `accounts:<method>` and the endpoint it is on.
    func accounts(_ method: String, apiKey: String) -> (url: String, endpoint: Endpoint) {
        url(host: Self.identityToolkitHost, path: "/v1/accounts:\(method)", apiKey: apiKey)
    }

    /// The URL of Secure Token's token exchange and the endpoint it is on.
    func token(apiKey: String) -> (url: String, endpoint: Endpoint) {
        url(host: Self.secureTokenHost, path: "/v1/token", apiKey: apiKey)
    }

    private func url(host: String, path: String, apiKey: String) -> (url: String, endpoint: Endpoint) {
        let query = "?key=\(PercentEscaping.queryValue(apiKey))"
        if let emulator { return ("\(emulator.origin)/\(host)\(path)\(query)", emulator) }
        let endpoint = Endpoint(scheme: "https", host: host, port: 443)
        return ("https://\(host)\(path)\(query)", endpoint)
    }
}
