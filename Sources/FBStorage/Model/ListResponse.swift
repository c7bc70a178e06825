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
        var page = ListResponse(prefixes: [], items: [], nextPageToken: nil)
        // Read pull-style: only the names are built, not a dictionary per item.
        let valid = JSONParser.read(json) { parser in
            parser.readObject { parser, key in
                switch key {
                case "prefixes":   // a repeated key: the last wins, as in JSONValue.parse
                    page.prefixes = []
                    return parser.readElementsOrSkip { parser in
                        guard let prefix = parser.readString() else { return parser.skipValue() }
                        page.prefixes.append(prefix)
                        return true
                    }
                case "items":
                    page.items = []
                    return parser.readElementsOrSkip { parser in
                        guard parser.peek() == UInt8(ascii: "{") else { return parser.skipValue() }
                        var name: String?
                        let read = parser.readObject { parser, key in
                            guard key == "name" else { return parser.skipValue() }
                            name = parser.readString()
                            return name != nil || parser.skipValue()
                        }
                        if let name { page.items.append(name) }
                        return read
                    }
                case "nextPageToken":
                    page.nextPageToken = parser.readString()
                    return page.nextPageToken != nil || parser.skipValue()
                default:
                    return parser.skipValue()
                }
            }
        }
        guard valid else {
            throw StorageError(code: .unknown, message: "The server sent a list response that is not valid JSON",
                               serverResponse: StorageError.serverResponse(json))
        }
        if page.nextPageToken?.isEmpty == true { page.nextPageToken = nil }
        return page
    }
}
