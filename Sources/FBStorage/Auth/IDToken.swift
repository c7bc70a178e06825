#if canImport(Glibc)
import Glibc
#endif

/// What a client reads from a Firebase ID token: its payload's claims, decoded without checking
/// the signature (the servers check it; the client only needs the times and profile).
struct IDToken: Sendable {
    let token: String
    /// The payload, all claims (custom claims included).
    let claims: [String: JSONValue]

    /// nil when `token` is not a JWS compact serialization with a JSON object payload.
    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
              let object = JSONValue.parse(payload)?.objectValue else { return nil }
        self.token = token
        claims = object
    }

    var userID: String? { claims["user_id"]?.stringValue ?? claims["sub"]?.stringValue }
    var email: String? { claims["email"]?.stringValue }
    var emailVerified: Bool? {
        guard case .bool(let verified)? = claims["email_verified"] else { return nil }
        return verified
    }
    var name: String? { claims["name"]?.stringValue }
    var picture: String? { claims["picture"]?.stringValue }
    var signInProvider: String? { claims["firebase"]?["sign_in_provider"]?.stringValue }
    /// Seconds since the Unix epoch.
    var expiration: Double? { seconds("exp") }
    var issuedAt: Double? { seconds("iat") }
    var authTime: Double? { seconds("auth_time") }

    private func seconds(_ claim: String) -> Double? {
        guard case .number(let text)? = claims[claim] else { return nil }
        return Double(text)
    }

    /// Whether the token still has more than its refresh margin left at `now` (seconds since
    /// the epoch): min(5 minutes, a twelfth of its lifetime), so 5 minutes for the usual hour
    /// as in the Apple SDK, and proportionally less for short-lived test tokens.
    func isFresh(at now: Double) -> Bool {
        guard let expiration else { return false }
        let lifetime = expiration - (issuedAt ?? (expiration - 3600))
        return now < expiration - min(300, max(lifetime, 0) / 12)
    }

    /// The wall clock, in seconds since the Unix epoch (token times are wall-clock times).
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Base64url without padding (RFC 4648 §5), as JWTs use it.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        String(Base64.encode(bytes).compactMap { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 == "=" ? nil : $0 })
    }

    static func decode(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard.append("=") }
        return Base64.decode(standard)
    }
}
