// The shared "one renewal in flight, the others wait" state of Auth, service accounts and App Check.
import Testing

@testable import FBStorage

@Suite struct RenewalInFlightTests {
    @Test("the first caller starts the renewal, the others wait, all hear its one answer")
    func oneRenewalManyWaiters() {
        var renewal = RenewalInFlight<String?>()
        let heard = Locked<[String]>([])
        #expect(!renewal.isRunning)
        func record(_ name: String) -> RenewalInFlight<String?>.Waiter {
            { result in heard.withLock { $0.append("\(name):\(((try? result.get()) ?? nil) ?? "nil")") } }
        }
        #expect(renewal.join(record("a")) == true)
        #expect(renewal.isRunning)
        #expect(renewal.join(record("b")) == false)
        #expect(renewal.join(record("c")) == false)
        let waiters = renewal.end()
        #expect(!renewal.isRunning && waiters.count == 3)
        waiters.answer(.success("token-1"))
        #expect(heard.value == ["a:token-1", "b:token-1", "c:token-1"])
        // The next caller starts a new renewal.
        #expect(renewal.join { _ in } == true)
    }

    @Test("an error reaches every waiter")
    func errorsReachEveryWaiter() {
        var renewal = RenewalInFlight<String?>()
        let codes = Locked<[StorageErrorCode]>([])
        for _ in 0..<4 {
            _ = renewal.join { result in
                if case .failure(let error) = result { codes.withLock { $0.append(error.code) } }
            }
        }
        renewal.end().answer(.failure(StorageError(code: .authUserTokenExpired, message: "revoked")))
        #expect(codes.value == Array(repeating: .authUserTokenExpired, count: 4))
    }

    @Test("under its owner's lock, 1,000 concurrent callers start exactly one renewal")
    func concurrentCallersStartOne() async {
        let renewal = Locked(RenewalInFlight<Int>())
        let answered = Locked(0)
        let starters = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask { renewal.withLock { $0.join { _ in answered.withLock { $0 += 1 } } } }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(starters == 1)
        renewal.withLock { $0.end() }.answer(.success(7))
        #expect(answered.value == 1000)
    }
}
