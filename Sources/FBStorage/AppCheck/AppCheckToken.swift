/// An App Check token and when it expires, as the exchange answers it or a custom provider gives it.
public struct AppCheckToken: Sendable, Equatable {
    /// The token (a JWT), sent as `X-Firebase-AppCheck`.
    public let token: String
    /// When it expires, in seconds since the Unix epoch.
    public let expiresAt: Double
    /// When this process received it (the start of its lifetime, as far as the client knows).
    let receivedAt: Double

    public init(token: String, expiresAt: Double) {
        self.init(token: token, expiresAt: expiresAt, receivedAt: IDToken.now())
    }

    init(token: String, expiresAt: Double, receivedAt: Double) {
        self.token = token
        self.expiresAt = expiresAt
        self.receivedAt = receivedAt
    }

    /// A token the exchange answered with `ttl` (a protobuf Duration: `"3600s"`, `"3.5s"`).
    init?(token: String, ttl: String, now: Double = IDToken.now()) {
        guard ttl.hasSuffix("s"), let seconds = Double(ttl.dropLast()), seconds.isFinite, seconds >= 0 else { return nil }
        self.init(token: token, expiresAt: now + seconds, receivedAt: now)
    }

    /// Whether it still has more than its refresh margin left at `now`: min(5 minutes, half its
    /// lifetime), so it is renewed well before it expires whatever its TTL (production's hour,
    /// an emulator's seconds), as the Apple SDK's refresher renews halfway.
    func isFresh(at now: Double) -> Bool {
        now < expiresAt - min(300, max(expiresAt - receivedAt, 0) / 2)
    }
}
