/// What may appear in a log line. URLs keep their path and query keys, but the values of
/// credential-like query parameters are replaced: download tokens (`token`, `delete_token`, …) and
/// resumable `upload_id`s, which alone authorise writing to the session.
enum LogRedaction {
    static let placeholder = "REDACTED"

    /// `url` with the values of `upload_id` and of every query key containing "token" replaced.
    static func url(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = query.map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let key = pair[..<equals].lowercased()
            return isSecret(key: key) ? "\(pair[..<equals])=\(placeholder)" : String(pair)
        }
        return url[..<question] + "?" + redacted.joined(separator: "&")
    }

    private static func isSecret(key: String) -> Bool {
        key == "upload_id" || key.contains("token")
    }
}
