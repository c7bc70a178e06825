/// Where App Check's token exchange goes: Google's host, or an emulator that serves it as a path
/// prefix (`http://host:port/firebaseappcheck.googleapis.com/v1/…`), as the emulator serves
/// Auth. No Firebase SDK has an App Check emulator setting; ours is `useEmulator` or
/// `FIREBASE_APP_CHECK_EMULATOR_HOST=host:port` (docs/app-check.md).
struct AppCheckEndpoints: Sendable, Equatable {
    /// nil: production.
    var emulator: Endpoint?

    static let host = "firebaseappcheck.googleapis.com"
    static let emulatorVariable = "FIREBASE_APP_CHECK_EMULATOR_HOST"

    /// The URL of `projects/{project}/apps/{app}:{method}` (v1, as the Apple SDK) and its endpoint.
    func exchange(_ method: String, projectID: String, appID: String) -> (url: String, endpoint: Endpoint) {
        let path = "/v1/projects/\(projectID)/apps/\(appID):\(method)"
        if let emulator { return ("\(emulator.origin)/\(Self.host)\(path)", emulator) }
        return ("https://\(Self.host)\(path)", Endpoint(scheme: "https", host: Self.host, port: 443))
    }
}
