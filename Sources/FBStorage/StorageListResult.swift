/// One page (or, from `listAll`, every page) of a listing.
public struct StorageListResult: Sendable {
    /// The objects directly below the listed reference.
    public var items: [StorageReference]
    /// The "folders" directly below it (one trailing `/` removed).
    public var prefixes: [StorageReference]
    /// The token for the next page; nil on the last page.
    public var pageToken: String?
    /// Each item's metadata, in the same order, from `listWithMetadata` (the GCS JSON API);
    /// empty for the Firebase API's listings.
    public var itemMetadata: [StorageMetadata] = []

    /// Builds references from a server page; names a reference cannot hold (over 1024 bytes,
    /// CR/LF) are left out rather than failing the page.
    init(storage: Storage, bucket: String, response: ListResponse) {
        func reference(_ name: Substring) -> StorageReference? {
            (try? StoragePath(bucket: bucket, object: String(name))).map { StorageReference(storage: storage, path: $0) }
        }
        items = response.items.compactMap { reference(Substring($0)) }
        prefixes = response.prefixes.compactMap { reference($0.hasSuffix("/") ? $0.dropLast() : Substring($0)) }
        pageToken = response.nextPageToken
    }

    /// The full paths of `references`, each followed by `"\n"`: a whole listing in one string
    /// (for the C API's `fbs_list_result_*_paths`). Unambiguous because `StoragePath` refuses CR
    /// and LF.
    public static func pathLines(_ references: [StorageReference]) -> String {
        references.map { $0.fullPath + "\n" }.joined()
    }

    init(items: [StorageReference], prefixes: [StorageReference], pageToken: String?) {
        self.items = items
        self.prefixes = prefixes
        self.pageToken = pageToken
    }
}
