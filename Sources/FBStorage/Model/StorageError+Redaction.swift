extension StorageError {
    /// This error with each of `secrets` replaced by "REDACTED" in its message and server
    /// response: a server may echo the credentials it was sent in its error body.
    func redacting(_ secrets: [String]) -> StorageError {
        var error = self
        for secret in secrets where !secret.isEmpty {
            error.message = error.message.replacing(secret, with: "REDACTED")
            error.serverResponse = error.serverResponse?.replacing(secret, with: "REDACTED")
        }
        return error
    }
}
