import Synchronization

/// A speed cap in bytes per second (0: none) that running transfers re-read: a storage's or a
/// task's, changeable while they run (`SpeedLimiter` applies it at the transfer's next read or
/// write, or when its pause ends).
public final class SpeedCap: Sendable {
    private let value = Atomic<Int64>(0)

    public init() {}

    public var bytesPerSecond: Int64 {
        get { value.load(ordering: .relaxed) }
        set { value.store(max(0, newValue), ordering: .relaxed) }
    }

    /// The tightest of `caps`, where 0 means none.
    static func tightest(_ caps: [SpeedCap]) -> Int64 {
        var result: Int64 = 0
        for cap in caps {
            let value = cap.bytesPerSecond
            if value > 0 && (result == 0 || value < result) { result = value }
        }
        return result
    }
}
