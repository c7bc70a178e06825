/// One page of a list request, as the server sent it.
struct ListResponse: Sendable, Equatable {
    /// Folder names ("prefixes"), as sent (usually with a trailing `/`).
    var prefixes: [String]
    /// Full paths of the objects ("items").
    var items: [String]
    /// The token for the next page; `nil` on the last page (an empty token counts as none).
    var nextPageToken: String?

    /// Decodes `{"prefixes": [...], "items": [{"name": ...}, ...], "nextPageToken": ...}`.
    /// Malformed entries (a prefix that is not a string, an item without a string `name`) are
    /// skipped rather than failing the page; missing arrays are empty.
    /// - Throws: `unknown` when the body is not a JSON object; `serverResponse` holds it.
    static func decode(json: [UInt8]) throws(StorageError) -> ListResponse {
        guard let object = JSONValue.parse(json)?.objectValue else {
            throw StorageError(code: .unknown, message: "The server sent a list response that is not valid JSON",
                               serverResponse: StorageError.serverResponse(json))
        }
        let prefixes = (object["prefixes"]?.arrayValue ?? []).compactMap(\.stringValue)
        let items = (object["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        var token = object["nextPageToken"]?.stringValue
        if token?.isEmpty == true { token = nil }
        return ListResponse(prefixes: prefixes, items: items, nextPageToken: token)
    }
}
