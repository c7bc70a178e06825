/// Email-link sign-in, as the SDKs': `accounts:sendOobCode` (EMAIL_SIGNIN) mails a link that
/// carries a code; the app that receives it signs in with the address and the link
/// (`accounts:signInWithEmailLink`), making the account the first time.
extension Auth {
    /// Mails `email` a sign-in link that leads to `settings.url` (an Auth emulator lists it at
    /// `GET /emulator/v1/projects/{project}/oobCodes`).
    /// - Throws: `invalidArgument` for an empty email, settings without `handleCodeInApp`, or a
    ///   continue URL the server refuses (not absolute, domain not authorized); `authInvalidEmail`.
    public func sendSignInLink(toEmail email: String, settings: ActionCodeSettings) throws(StorageError) {
        try runBlocking { done throws(StorageError) in try startSendSignInLink(email, settings, done) }
    }

    public func sendSignInLink(toEmail email: String, settings: ActionCodeSettings,
                               completion: @escaping StorageCompletion<Void>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startSendSignInLink(email, settings, done) }, completion: completion)
    }

    /// Whether `link` is an email sign-in link: `mode=signIn` with an `oobCode`, in the link itself
    /// or in the `link` or `deep_link_id` parameter a Dynamic Link wraps it in.
    public static func isSignInLink(_ link: String) -> Bool { EmailLink.signInCode(link) != nil }

    /// Signs in as the owner of `email` with the link mailed to it (a new account the first
    /// time); the email counts as verified.
    /// - Throws: `invalidArgument` for an empty email or a link that is not a sign-in link;
    ///   `authInvalidActionCode` (used, unknown), `authExpiredActionCode`, `authInvalidEmail`
    ///   (another address than the link's), `authUserDisabled`.
    public func signIn(email: String, link: String) throws(StorageError) -> AuthUser {
        try runBlocking { done throws(StorageError) in try startEmailLinkSignIn(email, link, done) }
    }

    public func signIn(email: String, link: String, completion: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startEmailLinkSignIn(email, link, done) }, completion: completion)
    }

    /// How `email` can sign in (`accounts:createAuthUri`, the SDKs' fetchSignInMethods):
    /// "password", "emailLink" and the identity providers linked to its account; none when there
    /// is no such account, or when the project protects against email enumeration (the default
    /// for new projects), which is why the SDKs deprecate it.
    /// - Throws: `invalidArgument` for an empty email; `authInvalidEmail`.
    public func fetchSignInMethods(forEmail email: String) throws(StorageError) -> [String] {
        try runBlocking { done throws(StorageError) in try startFetchSignInMethods(email, done) }
    }

    public func fetchSignInMethods(forEmail email: String, completion: @escaping StorageCompletion<[String]>) throws(StorageError) {
        try runAsync({ done throws(StorageError) in try startFetchSignInMethods(email, done) }, completion: completion)
    }

    private func startFetchSignInMethods(_ email: String, _ done: @escaping StorageCompletion<[String]>) throws(StorageError) {
        guard !email.isEmpty else { throw .invalidArgument("The email address is empty") }
        // continueUri is required and unused here; the SDKs send their own URL.
        let fields: [(String, JSONValue)] = [("identifier", .string(email)), ("continueUri", .string("http://localhost"))]
        try postAccounts("createAuthUri", fields, call: "fetch sign-in methods") { result in
            done(result.map { answer in answer["signinMethods"]?.arrayValue?.compactMap(\.stringValue) ?? [] })
        }
    }

    private func startSendSignInLink(_ email: String, _ settings: ActionCodeSettings,
                                     _ done: @escaping StorageCompletion<Void>) throws(StorageError) {
        guard !email.isEmpty else { throw .invalidArgument("The email address is empty") }
        guard settings.handleCodeInApp else {
            throw .invalidArgument("Email sign-in links need action code settings with handleCodeInApp true (the app completes the sign-in)")
        }
        let fields: [(String, JSONValue)] = [("requestType", .string("EMAIL_SIGNIN")), ("email", .string(email))]
        try postAccounts("sendOobCode", fields + settings.fields(), call: "send sign-in link") { result in
            done(result.map { _ in () })
        }
    }

    private func startEmailLinkSignIn(_ email: String, _ link: String,
                                      _ done: @escaping StorageCompletion<AuthUser>) throws(StorageError) {
        guard !email.isEmpty else { throw .invalidArgument("The email address is empty") }
        guard let code = EmailLink.signInCode(link) else {
            throw .invalidArgument("The link is not an email sign-in link (it needs mode=signIn and an oobCode)")
        }
        try startSignIn("signInWithEmailLink", [("email", .string(email)), ("oobCode", .string(code))],
                        call: "sign-in (email link)", done)
    }
}

/// The query parameters of an action link.
enum EmailLink {
    /// Links longer than this are not action links (Identity Toolkit's are a few hundred bytes).
    static let maxLength = 16 << 10

    /// The sign-in code of an email sign-in link, nil for any other text.
    static func signInCode(_ link: String) -> String? {
        guard link.utf8.count <= maxLength else { return nil }
        var parameters = query(of: link)
        // A Dynamic Link carries the action link in `link`, or in `deep_link_id` (which may
        // itself be a Dynamic Link carrying `link`): at most these two levels.
        for wrapper in ["deep_link_id", "link"] {
            if let inner = parameters[wrapper] { parameters = query(of: inner) }
        }
        guard parameters["mode"] == "signIn", let code = parameters["oobCode"], !code.isEmpty else { return nil }
        return code
    }

    /// `name=value` pairs of the query (no fragment), percent-decoded; the first of a repeated name.
    static func query(of link: String) -> [String: String] {
        guard let start = link.firstIndex(of: "?") else { return [:] }
        let query = link[link.index(after: start)...].prefix { $0 != "#" }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEscaping.decode(String(parts[0])), parameters[name] == nil,
                  let value = PercentEscaping.decode(parts.count > 1 ? String(parts[1]) : "") else { continue }
            parameters[name] = value
        }
        return parameters
    }
}
