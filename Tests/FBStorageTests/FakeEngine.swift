// A deterministic TransferEngine for the state machines: nothing happens until the test says so,
// time is virtual, and the thread that made the engine is its transfer thread (as swift-nio's
// EmbeddedEventLoop is the thread that runs it).
import Glibc
import Testing

@testable import FBStorage

final class FakeEngine: TransferEngine, @unchecked Sendable {
    /// A transfer the state machine started and the test has not answered yet.
    struct Transfer {
        let id: TransferID
        let request: HTTPRequest
        let callbacks: TransferCallbacks

        func header(_ name: String) -> String? {
            HTTPHeaders(request.headers).value(name)
        }

        /// The request's whole body (empty without one).
        var bodyBytes: [UInt8] {
            guard let body = request.body else { return [] }
            var bytes = [UInt8](repeating: 0, count: Int(body.length))
            _ = bytes.withUnsafeMutableBytes { body.read(into: $0, at: 0) }
            return bytes
        }
    }

    /// In start order.
    private(set) var inFlight: [Transfer] = []
    private(set) var started = 0
    private var posted: [@Sendable () -> Void] = []
    private var timers: [(id: TimerID, due: Double, work: @Sendable () -> Void)] = []
    private var nextID: UInt64 = 1
    private var clock = 1000.0
    private let owner = pthread_self()

    // MARK: TransferEngine

    func start(_ request: HTTPRequest, _ callbacks: TransferCallbacks) -> TransferID {
        let id = TransferID(raw: mint())
        inFlight.append(Transfer(id: id, request: request, callbacks: callbacks))
        started += 1
        return id
    }

    /// As the real engine: the cancelled transfer completes soon, not inside this call.
    func cancel(_ id: TransferID) {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else { return }
        let transfer = inFlight.remove(at: index)
        posted.append { transfer.callbacks.onComplete(.failure(.cancelled)) }
    }

    func perform(_ work: @escaping @Sendable () -> Void) {
        posted.append(work)
    }

    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) -> TimerID {
        let id = TimerID(raw: mint())
        timers.append((id, clock + max(seconds, 0), work))
        return id
    }

    func cancelTimer(_ id: TimerID) {
        timers.removeAll { $0.id == id }
    }

    func now() -> Double { clock }

    var isTransferThread: Bool { pthread_equal(pthread_self(), owner) != 0 }

    func shutdown() {}

    // MARK: Driving

    /// Runs posted work until none is left.
    func runPosted() {
        while !posted.isEmpty { posted.removeFirst()() }
    }

    /// Moves the clock on, running the timers that fall due in order, then posted work.
    func advance(by seconds: Double) {
        let end = clock + seconds
        while let next = timers.enumerated().filter({ $0.element.due <= end }).min(by: { $0.element.due < $1.element.due }) {
            timers.remove(at: next.offset)
            clock = next.element.due
            next.element.work()
            runPosted()
        }
        clock = end
        runPosted()
    }

    /// When the earliest timer falls due, in seconds from now; nil when none is set.
    var nextTimerDelay: Double? {
        timers.map(\.due).min().map { $0 - clock }
    }

    /// The oldest unanswered transfer.
    var oldest: Transfer {
        get throws { try #require(inFlight.first, "no transfer in flight") }
    }

    /// Pretends curl sent `bytes` of the oldest transfer's body.
    func sendBody(upTo bytes: Int64) throws {
        try oldest.callbacks.onUploadProgress?(bytes)
    }

    /// Answers the oldest transfer: its whole body is sent, then the head, the body (streamed or
    /// buffered, as the transfer asked), and the completion.
    func respond(_ status: Int, _ headers: [(String, String)] = [], body: [UInt8] = []) throws {
        let transfer = try oldest
        inFlight.removeFirst()
        if let length = transfer.request.body?.length { transfer.callbacks.onUploadProgress?(length) }
        let head = HTTPHeaders(headers.map { (name: $0.0, value: $0.1) })
        guard transfer.callbacks.onResponseHead?(status, head) ?? true else {
            return complete(transfer, .failure(.aborted))
        }
        if let stream = transfer.callbacks.onBodyData, !body.isEmpty {
            let accepted = body.withUnsafeBytes { stream($0) }
            guard accepted else { return complete(transfer, .failure(.aborted)) }
        }
        let buffered = transfer.callbacks.onBodyData == nil ? body : []
        complete(transfer, .success(HTTPResponse(status: status, headers: head, body: buffered)))
    }

    /// Answers the account read that follows every sign-in (`accounts:lookup`, with the new ID
    /// token) with `account`'s fields.
    func respondToAccountRead(idToken: String, account: String) throws {
        let read = try oldest
        #expect(read.request.url.hasSuffix("/v1/accounts:lookup?key=key"))
        #expect(String(decoding: read.bodyBytes, as: UTF8.self) == #"{"idToken":"\#(idToken)"}"#)
        try respond(200, body: Array(#"{"users":[{\#(account)}]}"#.utf8))
    }

    /// Fails the oldest transfer as libcurl would.
    func fail(_ error: TransportError) throws {
        let transfer = try oldest
        inFlight.removeFirst()
        complete(transfer, .failure(error))
    }

    private func complete(_ transfer: Transfer, _ result: Result<HTTPResponse, TransportError>) {
        transfer.callbacks.onComplete(result)
        runPosted()
    }

    private func mint() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }
}
