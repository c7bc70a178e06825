/// A storage's tunable settings. Operations copy them when they start, so a change applies to
/// operations started afterwards.
public struct StorageSettings: Sendable {
    /// Where requests go: production, or an emulator.
    public var endpoint: Endpoint = .production {
        didSet { endpointFromEnvironment = false }
    }
    /// The endpoint came from `FIREBASE_STORAGE_EMULATOR_HOST` (named in errors about it).
    var endpointFromEnvironment = false
    /// How long an upload keeps retrying without progress (seconds).
    public var maxUploadRetryTime: Double = 600
    /// How long a download keeps retrying without progress (seconds).
    public var maxDownloadRetryTime: Double = 600
    /// How long any other operation keeps retrying (seconds).
    public var maxOperationRetryTime: Double = 120
    /// Bytes per resumable-upload request. 128 MiB: each request's turnaround costs client CPU
    /// and idle time. Against the bundled emulator a 1 GiB upload spent ~1.8× curl's client CPU
    /// at 8 MiB, ~1.4× at 32 MiB and ~1.0× at 128 MiB (benchmarks/README.md, chunk sweep), and
    /// over a WAN every request also idles one round trip (google-cloud-storage's Python client
    /// uses 100 MiB). Memory stays flat at any size (chunks stream from disk); a failed request
    /// re-sends at most one chunk, less where the server keeps what it received.
    public var uploadChunkSize: Int64 = 128 << 20
    /// TCP/TLS connect timeout (seconds). It also bounds the name lookup.
    public var connectTimeout: Double = 30
    /// How long a loopback endpoint (127.0.0.0/8, ::1, localhost) may refuse connections before
    /// the work fails (seconds; 0: at the first refusal). Nothing listening on this machine is
    /// usually an emulator not started or a wrong port, and minutes of retries would only hide
    /// that; the grace lets an emulator that is restarting come back. Other endpoints are retried
    /// until the retry deadline.
    public var loopbackRefusedGrace: Double = StorageSettings.defaultLoopbackRefusedGrace
    public static let defaultLoopbackRefusedGrace = 2.0
    /// Also verify uploads against the server's `md5Hash` (CRC32C is always verified).
    public var verifyMD5 = false
    /// A PEM CA bundle replacing the system store for https.
    public var caFile: String?
    /// The proxy; nil: libcurl's environment variables decide.
    public var proxy: ProxySettings?
    /// Caps on each request's upload and download speed. Unlike the other settings, every copy
    /// shares them: a change applies at once, to requests running too. A task's own cap
    /// (`StorageTask.speedCap`) tightens them.
    public let uploadSpeedCap = SpeedCap()
    public let downloadSpeedCap = SpeedCap()

    /// Uploads up to this size go in one multipart request; larger ones use the resumable protocol.
    public static let multipartThreshold: Int64 = 256 << 10
    /// Accepted range for `uploadChunkSize`.
    public static let chunkSizeRange: ClosedRange<Int64> = (256 << 10)...(1 << 30)

    public init() {}
}

extension StorageSettings {
    /// Why a loopback endpoint refused: no server listens there.
    var nothingListeningMessage: String {
        let address = "\(endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host):\(endpoint.port)"
        let source = endpointFromEnvironment ? " (the address comes from FIREBASE_STORAGE_EMULATOR_HOST)" : ""
        return "Nothing is listening on \(address)\(source): the connection was refused. Is the emulator running?"
    }
}
