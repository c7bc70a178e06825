import FBStorage

/// One page of a listing (or, from `listAll`, every page).
open class StorageListResult {
    /// The "folders" directly below the listed reference.
    public let prefixes: [StorageReference]
    /// The objects directly below the listed reference.
    public let items: [StorageReference]
    /// The token of the next page; nil on the last page (and from `listAll`).
    public let pageToken: String?

    init(storage: Storage, core: FBStorage.StorageListResult) {
        prefixes = core.prefixes.map { StorageReference(storage: storage, core: $0) }
        items = core.items.map { StorageReference(storage: storage, core: $0) }
        pageToken = core.pageToken
    }
}
