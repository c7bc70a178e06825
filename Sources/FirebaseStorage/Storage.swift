import FBStorage
import FirebaseCore
import Foundation

/// Cloud Storage for one bucket of a Firebase app, as in the Apple SDK, over the fbstorage core.
///
/// `Storage.storage()` and its variants return one shared instance per app and bucket, so a
/// setting made once (`useEmulator`, `callbackQueue`, retry times) holds for later calls.
open class Storage {
    /// The app this storage belongs to.
    public let app: FirebaseApp
    let core: FBStorage.Storage

    private let lock = NSLock()
    private var queue = DispatchQueue(label: "com.google.firebase.storage.callbacks")
    private var chunkSize: Int64 = .max

    // MARK: Instances

    /// The storage of the default app's bucket (`FirebaseOptions.storageBucket`).
    open class func storage() -> Storage {
        storage(app: defaultApp())
    }

    /// The storage of the bucket `url` (`gs://bucket`) for the default app.
    open class func storage(url: String) -> Storage {
        storage(app: defaultApp(), url: url)
    }

    /// The storage of `app`'s default bucket. No bucket in the options stops the program; an
    /// empty one gives a storage without a bucket, as in the Apple SDK (see `storage(app:url:)`).
    open class func storage(app: FirebaseApp) -> Storage {
        guard let bucket = app.options.storageBucket else {
            fatalError("No default Storage bucket found. Did you configure Firebase Storage properly?")
        }
        return instance(app: app, bucket: bucket)
    }

    /// The storage of the bucket `url` (`gs://bucket`, no object path) for `app`. An empty `url`
    /// gives a storage without a bucket, as in the Apple SDK: its references work (their bucket is
    /// ""), and every operation fails with `bucketNotFound`.
    open class func storage(app: FirebaseApp, url: String) -> Storage {
        guard !url.isEmpty else { return instance(app: app, bucket: "") }
        let path: StoragePath
        do {
            path = try StoragePath.parse(url: url)
        } catch {
            fatalError("The Storage URL '\(url)' is not valid: \(error.message)")
        }
        guard path.isRoot else { fatalError("Internal Error: Storage bucket cannot be initialized with a path") }
        return instance(app: app, bucket: path.bucket)
    }

    private static let instancesLock = NSLock()
    nonisolated(unsafe) private static var instances: [String: Storage] = [:]

    private static func instance(app: FirebaseApp, bucket: String) -> Storage {
        instancesLock.withLock {
            let key = "\(app.name)|\(bucket)"
            if let existing = instances[key] { return existing }
            let created = Storage(app: app, bucket: bucket)
            instances[key] = created
            return created
        }
    }

    private static func defaultApp() -> FirebaseApp {
        guard let app = FirebaseApp.app() else {
            fatalError("The default FirebaseApp instance must be configured before the default Storage "
                       + "instance can be initialized. Call FirebaseApp.configure() first.")
        }
        return app
    }

    /// The core storage honours `FIREBASE_STORAGE_EMULATOR_HOST=host:port`; its requests carry the
    /// ID token of the app's Auth user, if any, and a token of the app's App Check, if any.
    init(app: FirebaseApp, bucket: String) {
        self.app = app
        do {
            core = try bucket.isEmpty ? FBStorage.Storage.withoutBucket() : FBStorage.Storage(bucket: bucket)
        } catch {
            fatalError("Cannot create the storage for bucket '\(bucket)': \(error.message)")
        }
        core.use(tokenSource: AppAuthTokenSource(app: app))
        core.use(appCheck: AppAppCheckTokenSource(app: app))
    }

    // MARK: Settings

    /// How long an upload keeps retrying (seconds). Defaults to 600.
    public var maxUploadRetryTime: TimeInterval {
        get { core.settings.maxUploadRetryTime }
        set { change { $0.maxUploadRetryTime = newValue } }
    }

    /// How long a download keeps retrying (seconds). Defaults to 600.
    public var maxDownloadRetryTime: TimeInterval {
        get { core.settings.maxDownloadRetryTime }
        set { change { $0.maxDownloadRetryTime = newValue } }
    }

    /// How long other operations keep retrying (seconds). Defaults to 120.
    public var maxOperationRetryTime: TimeInterval {
        get { core.settings.maxOperationRetryTime }
        set { change { $0.maxOperationRetryTime = newValue } }
    }

    /// The size of each resumable-upload request, as set. The default, `Int64.max`, leaves the
    /// core's 128 MiB requests; a value set is used clamped to 256 KiB...1 GiB. Uploads of up to
    /// 256 KiB go in one request whatever the value.
    public var uploadChunkSizeBytes: Int64 {
        get { lock.withLock { chunkSize } }
        set {
            lock.withLock { chunkSize = newValue }
            let range = StorageSettings.chunkSizeRange
            change { $0.uploadChunkSize = min(max(newValue, range.lowerBound), range.upperBound) }
        }
    }

    /// The queue every completion handler and observer runs on. On Linux it defaults to a serial
    /// background queue, not `.main`: a command-line program rarely services the main queue, and
    /// one that waits on the main thread for a callback would deadlock. Apps with a main run
    /// loop may set `.main`.
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { queue } }
        set { lock.withLock { queue = newValue } }
    }

    /// Sends every request to the Cloud Storage emulator at `http://host:port`.
    /// An empty host or a port outside 1...65535 stops the program, as in the Apple SDK.
    open func useEmulator(withHost host: String, port: Int) {
        do {
            try core.useEmulator(host: host, port: port)
        } catch {
            fatalError("Invalid emulator address \(host):\(port): \(error.message)")
        }
    }

    private func change(_ update: (inout StorageSettings) -> Void) {
        // The closure cannot throw, so neither can updateSettings here.
        try! core.updateSettings { settings in update(&settings) }
    }

    // MARK: References

    /// The root of the bucket.
    open func reference() -> StorageReference {
        reference(withPath: "")
    }

    /// The reference a `gs://bucket/path` or `http(s)://…/v0/b/bucket/o/path` URL names; the
    /// bucket must be this storage's. A bad URL stops the program, as in the Apple SDK; see
    /// `reference(for:)` for a throwing form.
    open func reference(forURL url: String) -> StorageReference {
        do {
            return StorageReference(storage: self, core: try core.reference(forURL: url))
        } catch {
            fatalError(error.message)
        }
    }

    /// The reference a `gs://` or `http(s)://` URL names.
    /// - Throws: `StorageError.pathError` or `.bucketMismatch`.
    open func reference(for url: URL) throws -> StorageReference {
        do {
            return StorageReference(storage: self, core: try core.reference(forURL: url.absoluteString))
        } catch {
            throw StorageError(error, bucket: core.bucket, object: "")
        }
    }

    /// The reference to `path` below the root (`reference().child(path)`).
    open func reference(withPath path: String) -> StorageReference {
        do {
            return StorageReference(storage: self, core: try core.reference(path))
        } catch {
            fatalError(error.message)
        }
    }
}
