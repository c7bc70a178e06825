extension RetryingRequest.Hooks {
    /// The hooks of a call to a token service (App Check's exchange, an OAuth2 token endpoint):
    /// transport failures, 408, 429 and 5xx are retried as any request's; any other error status
    /// is the service's own answer, `refused(response)`, final at once.
    static func serviceCall(refused: @escaping @Sendable (HTTPResponse) -> StorageError) -> Self {
        var hooks = Self()
        hooks.classify = { result, outcome in
            guard case .success(let response) = result, response.status >= 300, !Backoff.isRetryable(status: response.status) else {
                return outcome
            }
            return .fail(refused(response))
        }
        return hooks
    }
}
