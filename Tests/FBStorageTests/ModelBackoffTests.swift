@testable import FBStorage
import Testing

@Suite struct ModelBackoffTests {
    @Test func exponentialWithoutJitterAtTop() {
        // random() = 0.999… → factor just under 1; random() = 0 → factor 0.5.
        var b = Backoff(deadline: 10_000, random: { 0.9999999 })
        let delays = (0..<9).compactMap { _ in b.nextDelay(now: 0, retryAfter: nil) }
        let expected = [0.5, 1, 2, 4, 8, 16, 32, 32, 32]
        #expect(delays.count == expected.count)
        for (d, e) in zip(delays, expected) {
            #expect(d < e && d > e * 0.999)
        }
        var low = Backoff(deadline: 10_000, random: { 0 })
        #expect(low.nextDelay(now: 0, retryAfter: nil) == 0.25)
        #expect(low.nextDelay(now: 0, retryAfter: nil) == 0.5)
        #expect(low.nextDelay(now: 0, retryAfter: nil) == 1)
    }

    @Test func jitterStaysInRange() {
        var b = Backoff(deadline: .infinity, initialDelay: 1, maxDelay: 8)
        for attempt in 0..<200 {
            guard let d = b.nextDelay(now: 0, retryAfter: nil) else {
                Issue.record("nil before the deadline")
                return
            }
            let base = min(Double(1 << min(attempt, 10)), 8)
            #expect(d >= base * 0.5 && d < base)
        }
    }

    @Test func badRandomIsClamped() {
        var high = Backoff(deadline: 100, random: { 5 })
        let d = high.nextDelay(now: 0, retryAfter: nil) ?? -1
        #expect(d < 0.5 && d >= 0.25)
        var nan = Backoff(deadline: 100, random: { .nan })
        #expect(nan.nextDelay(now: 0, retryAfter: nil) == 0.25)
        var negative = Backoff(deadline: 100, random: { -3 })
        #expect(negative.nextDelay(now: 0, retryAfter: nil) == 0.25)
    }

    @Test func retryAfterReplacesTheDelay() {
        var b = Backoff(deadline: 100, random: { 0 })
        #expect(b.nextDelay(now: 0, retryAfter: 7) == 7)
        #expect(b.nextDelay(now: 0, retryAfter: 0) == 0)
        // The exponential sequence still advances while Retry-After is used.
        #expect(b.nextDelay(now: 0, retryAfter: nil) == 1)
        // Nonsense values are ignored.
        #expect(b.nextDelay(now: 0, retryAfter: -1) == 2)
        #expect(b.nextDelay(now: 0, retryAfter: .nan) == 4)
    }

    @Test func lastAttemptIsAtTheDeadline() {
        var b = Backoff(deadline: 10, random: { 0.9999 })
        #expect(b.nextDelay(now: 9, retryAfter: 2) == 1)          // shortened to end at the deadline
        #expect(b.nextDelay(now: 8, retryAfter: 2) == 2)          // exactly at the deadline
        #expect(b.nextDelay(now: 10, retryAfter: nil) == nil)     // the deadline has come
        #expect(b.nextDelay(now: 10.5, retryAfter: nil) == nil)   // already past
        var sequence = Backoff(deadline: 5, random: { 0.9999 })
        var now = 0.0
        var count = 0
        while let d = sequence.nextDelay(now: now, retryAfter: nil) {
            now += d
            count += 1
            #expect(now <= 5)
        }
        #expect(count == 4)  // ~0.5 + ~1 + ~2, then the ~4 s delay shortened to end at 5
        #expect(now == 5)
    }

    @Test(arguments: [("120", 120.0), ("0", 0), (" 5 ", 5), ("\t3", 3), ("007", 7)])
    func parseRetryAfter(header: String, seconds: Double) {
        #expect(Backoff.parseRetryAfter(header) == seconds)
    }

    @Test(arguments: [nil, "", "  ", "Wed, 21 Oct 2015 07:28:00 GMT", "-1", "1.5", "+3", "12abc", "٣"])
    func parseRetryAfterRefuses(header: String?) {
        #expect(Backoff.parseRetryAfter(header) == nil)
    }

    @Test func retryableStatuses() {
        for status in [408, 429, 500, 502, 503, 504, 599] { #expect(Backoff.isRetryable(status: status), "\(status)") }
        for status in [200, 204, 308, 400, 401, 403, 404, 409, 412, 499, 600] { #expect(!Backoff.isRetryable(status: status), "\(status)") }
    }

    @Test func monotonicClockAdvances() async throws {
        // Compared with ContinuousClock rather than a fixed bound: on a loaded machine (or
        // under a sanitizer) the sleep may last seconds.
        let clock = ContinuousClock()
        let start = clock.now
        let a = MonotonicClock.seconds()
        try await Task.sleep(for: .milliseconds(20))
        let b = MonotonicClock.seconds()
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        #expect(b - a >= 0.015)
        #expect(b - a <= seconds + 0.001)   // in seconds, not milli- or nanoseconds
        #expect(a > 0)
    }

    @Test func refusalsOnLoopbackEndAfterTheGrace() {
        var b = Backoff(deadline: 10_000, random: { 0 })
        #expect(b.nextDelay(now: 0, retryAfter: nil, refused: true) == 0.25)
        #expect(b.nothingListening)
        #expect(b.nextDelay(now: 0.3, retryAfter: nil, refused: true) == 0.5)
        #expect(b.nextDelay(now: 0.9, retryAfter: nil, refused: true) == 1)   // 0.9 + 1 - 0 <= 2
        let last = b.nextDelay(now: 1.9, retryAfter: nil, refused: true)        // 1.9 + 2 > 2: shortened
        #expect(last != nil && abs(last! - 0.1) < 1e-9)                         // to the grace's end
        #expect(b.nextDelay(now: 2.0, retryAfter: nil, refused: true) == nil)  // the grace is over
        // Any other failure ends the run of refusals: the usual deadline applies again.
        var c = Backoff(deadline: 10_000, random: { 0 })
        _ = c.nextDelay(now: 0, retryAfter: nil, refused: true)
        #expect(c.nextDelay(now: 5, retryAfter: nil) != nil)
        #expect(!c.nothingListening)
        #expect(c.nextDelay(now: 6, retryAfter: nil, refused: true) != nil)     // a new run starts at 6
    }
}
