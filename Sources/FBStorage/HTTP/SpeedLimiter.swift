/// Holds one direction of a transfer to the tightest of its speed caps, re-read at every read or
/// write so a change applies at once: a token bucket that may go into debt (curl hands over up to
/// a buffer at a time), after which the transfer pauses until the debt is paid. Transfer thread.
struct SpeedLimiter {
    private let caps: [SpeedCap]
    /// Bytes that may move now; negative: owed.
    private var balance: Double = 0
    private var refilled: UInt64 = 0

    /// Unused allowance is kept for at most this long, so an idle moment is not followed by a burst.
    private static let burstSeconds = 0.05

    init(_ caps: [SpeedCap]) { self.caps = caps }

    /// The cap in force (0: none).
    var cap: Int64 { caps.isEmpty ? 0 : SpeedCap.tightest(caps) }

    /// Nanoseconds to wait before moving more bytes; 0: go on.
    mutating func delay(now: UInt64) -> UInt64 {
        let cap = cap
        guard cap > 0 else {
            balance = 0
            refilled = now
            return 0
        }
        if refilled == 0 { refilled = now }
        let rate = Double(cap)
        balance = min(balance + rate * Double(now &- refilled) / 1e9, rate * Self.burstSeconds)
        refilled = now
        return balance >= 0 ? 0 : UInt64((-balance / rate * 1e9).rounded(.up))
    }

    /// At most this many bytes per read, so one read does not run far ahead of the cap.
    func readSize(_ count: Int) -> Int {
        let cap = cap
        return cap > 0 ? min(count, max(Int(cap / 10), 1024)) : count
    }

    mutating func moved(_ bytes: Int) {
        if cap > 0 { balance -= Double(bytes) }
    }
}
