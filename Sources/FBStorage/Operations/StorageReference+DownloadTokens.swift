// Download tokens: the capability of `…/o/<object>?alt=media&token=<token>` URLs. Reading them
// is any reader's (`StorageMetadata.downloadTokens`); creating and revoking them takes admin
// access (a service account or an access token), through the Firebase API's `create_token` and
// `delete_token`, as the Firebase console does.
extension StorageReference {

    /// Adds a download token to the object and returns it. Production lists a new token first,
    /// the official emulator last: the token returned is the one the object did not have before
    /// (read first, one request more).
    public func createDownloadToken() throws(StorageError) -> String {
        try storage.runBlocking(startCreateDownloadToken)
    }

    public func createDownloadToken(completion: @escaping StorageCompletion<String>) throws(StorageError) {
        try storage.runAsync(startCreateDownloadToken, completion: completion)
    }

    func startCreateDownloadToken(_ done: @escaping StorageCompletion<String>) throws(StorageError) {
        let path = self.path
        try startGetMetadata { [self] before in
            guard case .success(let before) = before else { return done(before.map { _ in "" }) }
            do throws(StorageError) {
                try startObjectRequest(method: "POST", query: "?create_token=true") { result in
                    done(result.decoding(StorageMetadata.decode).flatMap { metadata in
                        guard let token = metadata.downloadTokens.first(where: { !before.downloadTokens.contains($0) }) else {
                            return .failure(StorageError(code: .unknown, message: "\(path.gsURL): the server created no download token"))
                        }
                        return .success(token)
                    })
                }
            } catch {
                done(.failure(error))
            }
        }
    }

    /// Removes `token` from the object's download tokens (its URLs stop working) and returns the
    /// metadata after the change. The server replaces the last token with a new one.
    public func revokeDownloadToken(_ token: String) throws(StorageError) -> StorageMetadata {
        try storage.runBlocking { done throws(StorageError) in try startRevokeDownloadToken(token, done) }
    }

    public func revokeDownloadToken(_ token: String, completion: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        try storage.runAsync({ done throws(StorageError) in try startRevokeDownloadToken(token, done) }, completion: completion)
    }

    func startRevokeDownloadToken(_ token: String, _ done: @escaping StorageCompletion<StorageMetadata>) throws(StorageError) {
        guard !token.isEmpty else { throw .invalidArgument("The download token is empty") }
        try startObjectRequest(method: "POST", query: "?delete_token=" + PercentEscaping.queryValue(token)) {
            done($0.decoding(StorageMetadata.decode))
        }
    }

    /// The download URL that `token` opens (built here, nothing is sent).
    public func downloadURL(token: String) throws(StorageError) -> String {
        try requireObject()
        guard !token.isEmpty else { throw .invalidArgument("The download token is empty") }
        return storage.settings.endpoint.downloadURL(path, token: token)
    }
}
