#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exponential backoff with jitter until a deadline.
///
/// The n-th delay (n from 0) is `min(initialDelay × 2ⁿ, maxDelay) × j` with the jitter `j`
/// uniform in [0.5, 1.0); a server's `Retry-After` replaces it. A delay that would pass the
/// deadline is shortened to end at it, so the last attempt is made at the deadline; after that
/// `nextDelay` returns `nil`, so the caller stops and reports `retryLimitExceeded`. Times are seconds on the monotonic clock (`MonotonicClock.seconds()`).
struct Backoff: Sendable {
    /// The absolute time after which no retry starts.
    let deadline: Double
    /// The first delay before jitter.
    let initialDelay: Double
    /// The largest delay before jitter.
    let maxDelay: Double
    private let random: @Sendable () -> Double
    /// How many delays were handed out.
    private(set) var attempts = 0
    /// When the current run of refused connections to a loopback endpoint began (nil: none).
    private var refusedSince: Double?

    /// How long a loopback endpoint may refuse connections before the work fails
    /// (`StorageSettings.loopbackRefusedGrace`).
    let refusedGrace: Double

    /// - Parameters:
    ///   - deadline: absolute, in seconds on the monotonic clock.
    ///   - random: a source of uniform values in [0, 1) (values outside are clamped).
    ///   - refusedGrace: how long refused connections to a loopback endpoint are retried.
    init(deadline: Double, initialDelay: Double = 0.5, maxDelay: Double = 32,
         refusedGrace: Double = StorageSettings.defaultLoopbackRefusedGrace,
         random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.deadline = deadline
        self.refusedGrace = refusedGrace
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.random = random
    }

    /// The delay before the next attempt (shortened to end at the deadline, or at the end of the
    /// loopback grace), or `nil` once that limit has come: the deadline passed, or a loopback
    /// endpoint has refused every connection for `refusedGrace`.
    /// - Parameters:
    ///   - retryAfter: the server's `Retry-After` in seconds, which replaces the computed delay
    ///     (see `parseRetryAfter`).
    ///   - refused: the attempt's connection was refused by a loopback endpoint.
    mutating func nextDelay(now: Double, retryAfter: Double?, refused: Bool = false) -> Double? {
        refusedSince = refused ? (refusedSince ?? now) : nil
        var delay: Double
        if let retryAfter, retryAfter.isFinite, retryAfter >= 0 {
            delay = retryAfter
        } else {
            let exponent = Double(min(attempts, 62))
            let base = min(initialDelay * Double.pow2(exponent), maxDelay)
            var r = random()
            if !(r >= 0) { r = 0 }              // also NaN
            if r >= 1 { r = 1.0.nextDown }
            delay = base * (0.5 + 0.5 * r)
            if delay >= base, base > 0 { delay = base.nextDown } // rounding at r ≈ 1
        }
        attempts += 1
        // The last attempt happens at the limit itself: a delay that would pass it is shortened
        // (an emulator back 1.5 s after a restart is then reached within the 2 s grace).
        var limit = deadline
        if let refusedSince { limit = min(limit, refusedSince + refusedGrace) }
        guard now < limit else { return nil }
        return min(delay, limit - now)
    }

    /// True while the attempts are refused by a loopback endpoint (see `nextDelay`).
    var nothingListening: Bool { refusedSince != nil }

    /// The seconds of a `Retry-After` header in its delta-seconds form (`"120"`); `nil` when
    /// absent, empty, an HTTP date, or anything else.
    static func parseRetryAfter(_ header: String?) -> Double? {
        guard let header else { return nil }
        let trimmed = header.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
        let digits = Array(trimmed.reversed())
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Double(String(decoding: digits, as: UTF8.self))
    }

    /// True for statuses worth retrying: 408, 429 and 500–599.
    static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }
}

private extension Double {
    /// 2 to the power `exponent` (an integral value from 0 to 62).
    static func pow2(_ exponent: Double) -> Double {
        Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
