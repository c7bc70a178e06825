/// A signed-in user at one moment: profile and tokens. A value; `Auth.currentUser` gives a new
/// one after every change.
public struct AuthUser: Sendable, Equatable {
    public let uid: String
    public private(set) var email: String?
    /// Whether the email address is verified: as of the ID token, or of the last `Auth.reload()`
    /// or profile change.
    public private(set) var isEmailVerified: Bool
    public private(set) var displayName: String?
    public private(set) var photoURL: String?
    /// The account's sign-in methods and dates, as of the sign-in (which reads the account), the
    /// last `Auth.fetchAccount()`, `reload()` or account change (empty and nil for a restored
    /// session saved without them).
    public private(set) var providers: [AuthProviderInfo]
    /// When the account was created and last signed in, in seconds since the Unix epoch.
    public private(set) var creationTime: Double?
    public private(set) var lastSignInTime: Double?
    /// The ID token's `firebase.sign_in_provider`: "anonymous", "password", "custom", …
    public let signInProvider: String?
    /// The current ID token; nil for a restored session until its first refresh.
    public let idToken: String?
    public let refreshToken: String
    /// The ID token's payload as a JSON object ("{}" without an ID token).
    public let claimsJSON: String
    /// The ID token's `exp`, `iat` and `auth_time`, in seconds since the Unix epoch.
    public let expiration: Double?
    public let issuedAt: Double?
    public let authTime: Double?

    public var isAnonymous: Bool { signInProvider == "anonymous" }
    /// What the sign-in, reauthentication or provider's link that answered this user said beyond
    /// it; nil on any other user.
    public internal(set) var additionalUserInfo: AdditionalUserInfo?

    public static func == (a: AuthUser, b: AuthUser) -> Bool {
        a.uid == b.uid && a.idToken == b.idToken && a.refreshToken == b.refreshToken && a.email == b.email
            && a.isEmailVerified == b.isEmailVerified
    }

    /// A user from a fresh ID token; the profile fields the token lacks come from `profile`.
    init(idToken: IDToken, refreshToken: String, profile: Profile) {
        uid = idToken.userID ?? profile.uid
        email = idToken.email ?? profile.email
        isEmailVerified = idToken.emailVerified ?? profile.isEmailVerified
        displayName = idToken.name ?? profile.displayName
        photoURL = idToken.picture ?? profile.photoURL
        signInProvider = idToken.signInProvider ?? profile.signInProvider
        providers = profile.providers
        creationTime = profile.creationTime
        lastSignInTime = profile.lastSignInTime
        self.idToken = idToken.token
        self.refreshToken = refreshToken
        claimsJSON = String(decoding: JSONValue.object(idToken.claims).serialized(), as: UTF8.self)
        expiration = idToken.expiration
        issuedAt = idToken.issuedAt
        authTime = idToken.authTime
    }

    /// A restored session: profile and refresh token, no ID token yet.
    init(restoring profile: Profile, refreshToken: String) {
        uid = profile.uid
        email = profile.email
        isEmailVerified = profile.isEmailVerified
        displayName = profile.displayName
        photoURL = profile.photoURL
        signInProvider = profile.signInProvider
        providers = profile.providers
        creationTime = profile.creationTime
        lastSignInTime = profile.lastSignInTime
        idToken = nil
        self.refreshToken = refreshToken
        claimsJSON = "{}"
        expiration = nil
        issuedAt = nil
        authTime = nil
    }

    /// This user (tokens as they are) with another profile: the profile wins over the ID token's
    /// claims, which are as old as the token.
    /// This user as a sign-in, link or reauthentication answers it.
    func with(_ additionalUserInfo: AdditionalUserInfo) -> AuthUser {
        var answered = self
        answered.additionalUserInfo = additionalUserInfo
        return answered
    }

    func with(profile: Profile) -> AuthUser {
        var user = self
        user.displayName = profile.displayName
        user.photoURL = profile.photoURL
        user.email = profile.email
        user.isEmailVerified = profile.isEmailVerified
        user.providers = profile.providers
        user.creationTime = profile.creationTime
        user.lastSignInTime = profile.lastSignInTime
        return user
    }

    /// This user with what an account answer says (`accounts:lookup`'s user, an account call's
    /// answer): profile, verification, providers and dates; an ID token it brings replaces the
    /// tokens.
    func updated(withAccount answer: [String: JSONValue]) -> AuthUser {
        var verified = isEmailVerified
        if case .bool(let answered)? = answer["emailVerified"] { verified = answered }
        let profile = Profile(uid: uid, email: answer["email"]?.stringValue ?? email,
                              displayName: answer["displayName"]?.stringValue, photoURL: answer["photoUrl"]?.stringValue,
                              signInProvider: signInProvider, isEmailVerified: verified, providers: providers,
                              creationTime: creationTime, lastSignInTime: lastSignInTime)
            .with(accountOf: answer)
        return answer["idToken"]?.stringValue.flatMap(IDToken.init).map {
            AuthUser(idToken: $0, refreshToken: answer["refreshToken"]?.stringValue ?? refreshToken, profile: profile)
        } ?? with(profile: profile)
    }

    /// The fields kept across sessions (persistence) and refreshes.
    struct Profile: Sendable {
        var uid: String
        var email: String?
        var displayName: String?
        var photoURL: String?
        var signInProvider: String?
        var isEmailVerified = false
        var providers: [AuthProviderInfo] = []
        var creationTime: Double?
        var lastSignInTime: Double?

        /// This profile with the account details an answer brings (`accounts:lookup`'s
        /// `providerUserInfo`, `createdAt`, `lastLoginAt`, in milliseconds); the others stay.
        func with(accountOf answer: [String: JSONValue]) -> Profile {
            var profile = self
            profile.providers = AuthProviderInfo.list(answer["providerUserInfo"]) ?? providers
            profile.creationTime = answer["createdAt"]?.int64Value.map { Double($0) / 1000 } ?? creationTime
            profile.lastSignInTime = answer["lastLoginAt"]?.int64Value.map { Double($0) / 1000 } ?? lastSignInTime
            return profile
        }
    }

    var profile: Profile {
        Profile(uid: uid, email: email, displayName: displayName, photoURL: photoURL, signInProvider: signInProvider,
                isEmailVerified: isEmailVerified, providers: providers, creationTime: creationTime, lastSignInTime: lastSignInTime)
    }

    /// The identity providers the ID token lists (`firebase.identities`: "google.com", "email", …).
    var identityProviders: Set<String> {
        guard let idToken, let identities = IDToken(idToken)?.claims["firebase"]?["identities"]?.objectValue else { return [] }
        return Set(identities.keys)
    }

    /// Whether the account has a sign-in of this provider ("password", "google.com", …): its
    /// sign-in methods as last read (as the Apple SDK's `providerData`; an unlink removes one),
    /// else, for a session that has not read its account, the ID token's (which an unlink's
    /// refresh does not change for the provider the session signed in with).
    func hasSignIn(of providerID: String) -> Bool {
        if creationTime != nil { return providers.contains { $0.providerID == providerID } }
        return providerID == "password" ? signInProvider == "password" : identityProviders.contains(providerID)
    }

    /// Whether the ID token can be sent as it is at `now` (seconds since the epoch).
    func hasFreshToken(at now: Double) -> Bool {
        guard let idToken, let token = IDToken(idToken) else { return false }
        return token.isFresh(at: now)
    }
}
