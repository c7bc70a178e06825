/// What a storage's requests authenticate with: a token source (`AuthTokenSource`) and App Check
/// (a source, `AppCheckTokenSource`, or a fixed token). Headers are only produced for https or
/// loopback endpoints, so tokens never travel in clear text to another host.
struct AuthTokens: Sendable {
    var source: (any AuthTokenSource)?
    var appCheckToken: String?
    var appCheck: (any AppCheckTokenSource)?

    var canRefresh: Bool { source?.canRefresh ?? false }
    /// Whether asking again after App Check's 401 may give another App Check token.
    var canRefreshAppCheck: Bool { appCheck != nil }

    /// The headers of one request, and the ID token and App Check token among them.
    struct Credentials: Sendable {
        var headers: [(name: String, value: String)] = []
        var token: String?
        var appCheckToken: String?
    }

    /// What a 401 refused, for the next attempt's credentials to replace.
    struct Rejected: Sendable {
        var token: String?
        var appCheckToken: String?
    }

    /// The credentials in `headers`, to keep out of errors.
    static func secrets(in headers: [(name: String, value: String)]) -> [String] {
        headers.flatMap { header in
            [header.value, header.value.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? ""]
        }
    }

    /// The auth headers for one request to `endpoint`, through `completion` (on any thread,
    /// possibly before returning): the App Check token always, the user's token when `user`
    /// (a resumable session's URL is its own credential). A token holding a control character
    /// fails with `invalidArgument`.
    func credentials(for endpoint: Endpoint, rejected: Rejected, user: Bool,
                     completion: @escaping @Sendable (Result<Credentials, StorageError>) -> Void) {
        guard endpoint.isSecureOrLoopback else { return completion(.success(Credentials())) }
        let source = user ? self.source : nil
        withAppCheckToken(rejected: rejected.appCheckToken) { appCheckResult in
            guard case .success(let appCheckToken) = appCheckResult else {
                return completion(appCheckResult.map { _ in Credentials() })
            }
            guard let source else { return completion(.success(Self.credentials(token: nil, scheme: .firebase, appCheckToken: appCheckToken))) }
            let scheme = source.scheme
            source.token(rejected: rejected.token) { result in
                completion(result.flatMap { token in
                    do throws(StorageError) {
                        if let token, !token.isEmpty { try HeaderValue.check(token, field: "The auth token") }
                    } catch {
                        return .failure(error)
                    }
                    return .success(Self.credentials(token: token, scheme: scheme, appCheckToken: appCheckToken))
                })
            }
        }
    }

    /// The App Check token of one request: the source's, else the fixed one.
    private func withAppCheckToken(rejected: String?, _ completion: @escaping @Sendable (Result<String?, StorageError>) -> Void) {
        guard let appCheck else { return completion(.success(appCheckToken)) }
        appCheck.appCheckToken(rejected: rejected) { result in
            completion(result.flatMap { token in
                do throws(StorageError) {
                    if let token, !token.isEmpty { try HeaderValue.check(token, field: "The App Check token") }
                } catch {
                    return .failure(error)
                }
                return .success(token)
            })
        }
    }

    private static func credentials(token: String?, scheme: AuthScheme, appCheckToken: String?) -> Credentials {
        var credentials = Credentials()
        if let token, !token.isEmpty {
            credentials.headers.append((name: "Authorization", value: "\(scheme.rawValue) \(token)"))
            credentials.token = token
        }
        if let appCheckToken, !appCheckToken.isEmpty {
            credentials.headers.append((name: "X-Firebase-AppCheck", value: appCheckToken))
            credentials.appCheckToken = appCheckToken
        }
        return credentials
    }
}
