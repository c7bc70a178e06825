#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC: deadlines and timers must not jump with the wall clock.
enum MonotonicClock {
    static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds: the clock of `TransferEngine.now()`, `Backoff` and `ConditionLock.wait(until:)`.
    static func seconds() -> Double {
        Double(nanoseconds()) / 1_000_000_000
    }

    /// `seconds` from now; negative, NaN and huge values are clamped.
    static func deadline(after seconds: Double) -> UInt64 {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 1e9)
        return nanoseconds() &+ UInt64(clamped * 1e9)
    }
}
