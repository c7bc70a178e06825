/// What a storage's requests authenticate with: a token source (`AuthTokenSource`) and an App
/// Check token. Headers are only produced for https or loopback endpoints, so tokens never
/// travel in clear text to another host.
struct AuthTokens: Sendable {
    var source: (any AuthTokenSource)?
    var appCheckToken: String?

    var canRefresh: Bool { source?.canRefresh ?? false }

    /// The headers of one request, and the ID token among them.
    typealias Credentials = (headers: [(name: String, value: String)], token: String?)

    /// The credentials in `headers`, to keep out of errors.
    static func secrets(in headers: [(name: String, value: String)]) -> [String] {
        headers.flatMap { header in
            [header.value, header.value.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? ""]
        }
    }

    /// The auth headers for one request to `endpoint`, through `completion` (on any thread,
    /// possibly before returning). `rejected`: the token a 401 refused. A token holding a
    /// control character fails with `invalidArgument`.
    func credentials(for endpoint: Endpoint, rejected: String?,
                     completion: @escaping @Sendable (Result<Credentials, StorageError>) -> Void) {
        guard endpoint.isSecureOrLoopback else { return completion(.success(([], nil))) }
        let appCheckToken = self.appCheckToken
        guard let source else { return completion(.success((Self.headers(token: nil, scheme: .firebase, appCheckToken: appCheckToken), nil))) }
        let scheme = source.scheme
        source.token(rejected: rejected) { result in
            completion(result.flatMap { token in
                do throws(StorageError) {
                    if let token, !token.isEmpty { try HeaderValue.check(token, field: "The auth token") }
                } catch {
                    return .failure(error)
                }
                return .success((Self.headers(token: token, scheme: scheme, appCheckToken: appCheckToken), token))
            })
        }
    }

    private static func headers(token: String?, scheme: AuthScheme, appCheckToken: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let token, !token.isEmpty { headers.append((name: "Authorization", value: "\(scheme.rawValue) \(token)")) }
        if let appCheckToken, !appCheckToken.isEmpty { headers.append((name: "X-Firebase-AppCheck", value: appCheckToken)) }
        return headers
    }
}
