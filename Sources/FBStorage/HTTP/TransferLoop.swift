import CCurl
import Glibc

/// The transfer thread's state and loop: one curl multi handle (one connection cache, so connections
/// are reused across requests), the live transfers, the timers and a pool of idle easy handles.
/// Every curl call except `curl_multi_wakeup` happens here, on that one thread.
final class TransferLoop {
    let multi: UnsafeMutableRawPointer
    let inbox: Inbox
    private let tuning: EngineTuning
    private let userAgent: String
    private var transfers: [TransferID: EasyTransfer] = [:]
    private var timers = TimerQueue()
    /// Transfers paused to keep to a speed cap, and when to resume them (nanoseconds).
    private var throttled: [TransferID: UInt64] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Transfers whose name lookup failed, by host, until `NameProbe` says whether the name
    /// exists: one probe per host however many transfers wait for it.
    private var awaitingProbe: [String: [(id: TransferID, callbacks: TransferCallbacks, result: TransportError)]] = [:]
    private var stopping = false

    /// Longest poll without a wakeup, timer or curl timeout; only a safety net.
    private static let maxPollMilliseconds: Int32 = 1000

    init(tuning: EngineTuning) throws(StorageError) {
        userAgent = CurlGlobal.userAgent
        guard let multi = curl_multi_init() else {
            throw StorageError(code: .internalError, message: "curl_multi_init failed")
        }
        self.multi = multi
        self.tuning = tuning
        inbox = Inbox(multi: MultiHandle(raw: multi))
    }

    /// Frees the multi handle if the thread never ran (engine init failed after creating the loop).
    func discard() {
        curl_multi_cleanup(multi)
    }

    /// Runs until `.stop`, then cancels what is left and frees every curl handle.
    func run() {
        var running: Int32 = 0
        while !stopping {
            processCommands()
            if stopping { break }
            runDueTimers()
            if stopping { break }
            resumeThrottled()
            if !transfers.isEmpty {
                curl_multi_perform(multi, &running)
                collectCompletions()
            }
            if stopping { break }
            // Queued work goes first: it was posted without a wakeup (from this thread, or while it was busy).
            if inbox.prepareToSleep() {
                curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
                inbox.awoke()
            }
        }
        tearDown()
    }

    // MARK: commands

    private func processCommands() {
        // Commands posted while handling a batch (from performs, timers' work, callbacks) are taken
        // in the same turn, so an on-thread cancel lands before curl or the timers run again.
        for _ in 0..<64 {
            let batch = inbox.take()
            if batch.isEmpty { return }
            for command in batch { handle(command) }
        }
    }

    private func handle(_ command: EngineCommand) {
        switch command {
        case let .start(id, request, callbacks):
            if stopping { callbacks.onComplete(.failure(.cancelled)) } else { begin(id, request, callbacks) }
        case let .cancel(id):
            if let t = transfers[id] { finish(t, code: nil) } else { cancelProbeWait(id) }
        case let .perform(work):
            if !stopping { work() }
        case let .addTimer(id, deadline, work):
            if !stopping { timers.add(id, deadline: deadline, work) }
        case let .cancelTimer(id):
            timers.cancel(id)
        case .stop:
            stopping = true
        }
    }

    /// Called on this thread by `HTTPEngine.cancel`: stop the transfer's callbacks at once; the
    /// queued `.cancel` then removes it and reports `.cancelled`.
    func markCancelled(_ id: TransferID) {
        transfers[id]?.cancelRequested = true
    }

    func cancelTimerNow(_ id: TimerID) {
        timers.cancel(id)
    }

    func addTimerNow(_ id: TimerID, deadline: UInt64, _ work: @escaping @Sendable () -> Void) {
        if !stopping { timers.add(id, deadline: deadline, work) }
    }

    // MARK: transfers

    private func begin(_ id: TransferID, _ request: HTTPRequest, _ callbacks: TransferCallbacks) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            callbacks.onComplete(.failure(.failed(code: Int32(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")))
            return
        }
        let t = EasyTransfer(id: id, easy: easy, request: request, callbacks: callbacks)
        t.onThrottled = { [unowned self] id, resumeAt in throttled[id] = resumeAt }
        do {
            try t.configure(request, tuning: tuning, userAgent: userAgent)
        } catch {
            recycle(t, reusable: false)
            callbacks.onComplete(.failure(error))
            return
        }
        // The retain curl's userdata pointers rely on; released in `finish` after remove_handle.
        _ = Unmanaged.passRetained(t)
        let rc = curl_multi_add_handle(multi, easy)
        guard rc == CURLM_OK else {
            Unmanaged.passUnretained(t).release()
            recycle(t, reusable: false)
            let message = String(cString: curl_multi_strerror(rc))
            callbacks.onComplete(.failure(.rejectedByLibcurl(message: "libcurl refused curl_multi_add_handle: \(message)")))
            return
        }
        transfers[id] = t
    }

    private func collectCompletions() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result   // read before remove_handle invalidates `message`
            var context: UnsafeMutableRawPointer?
            _ = ccurl_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            finish(Unmanaged<EasyTransfer>.fromOpaque(context).takeUnretainedValue(), code: code)
        }
    }

    /// Removes `t` from curl and reports its outcome: curl's `code`, or `.cancelled` when nil.
    private func finish(_ t: EasyTransfer, code: CURLcode?) {
        curl_multi_remove_handle(multi, t.easy)
        transfers[t.id] = nil
        throttled[t.id] = nil
        let result = code.map { t.result(code: $0) } ?? .failure(.cancelled)
        // Only a handle whose transfer ran to its end over HTTP/1.1 goes back to the pool: curl 7.88
        // keeps state of a failed one, and of one that used HTTP/2, past `curl_easy_reset` (its
        // receive buffer, so that setting CURLOPT_BUFFERSIZE on it failed for every later request).
        recycle(t, reusable: code == CURLE_OK && !Self.usedHTTP2(t.easy))
        Unmanaged.passUnretained(t).release()
        if code == CURLE_COULDNT_RESOLVE_HOST, case .failure(let error) = result, let host = Self.host(of: t.url) {
            awaitProbe(of: host, t.id, t.callbacks, error)
        } else {
            t.callbacks.onComplete(result)
        }
    }

    private static func usedHTTP2(_ easy: UnsafeMutableRawPointer) -> Bool {
        var version = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        return version == CURL_HTTP_VERSION_2_0
    }

    /// Returns the easy handle to the pool (reset, so no option or pointer of `t` survives) when
    /// `reusable`, else frees it; frees what curl referenced.
    private func recycle(_ t: EasyTransfer, reusable: Bool) {
        if reusable && idleHandles.count < tuning.easyHandlePoolSize {
            curl_easy_reset(t.easy)
            idleHandles.append(t.easy)
        } else {
            curl_easy_cleanup(t.easy)
        }
        t.releaseResources()
    }

    // MARK: failed name lookups

    /// Holds a transfer whose lookup of `host` failed until `NameProbe` tells a name that does not
    /// exist (reported as `.hostNotFound`, never retried) from a resolver that did not answer
    /// (reported as it failed, with the resolver's reason: retried).
    private func awaitProbe(of host: String, _ id: TransferID, _ callbacks: TransferCallbacks, _ error: TransportError) {
        let probing = awaitingProbe[host] != nil
        awaitingProbe[host, default: []].append((id, callbacks, error))
        guard !probing else { return }
        let loop = LoopReference(self)
        NameProbe.start(host: host) { answer in
            _ = loop.value.inbox.post(.perform { loop.value.probeAnswered(host, answer) })
        }
    }

    private func probeAnswered(_ host: String, _ answer: NameProbe.Answer) {
        for waiting in awaitingProbe.removeValue(forKey: host) ?? [] {
            var error = waiting.result
            switch answer {
            case .doesNotExist: error = .hostNotFound(host: host)
            case .resolverFailed(let reason):
                if case .failed(let code, let message) = error { error = .failed(code: code, message: "\(message) (\(reason))") }
            case .resolves: break
            }
            waiting.callbacks.onComplete(.failure(error))
        }
    }

    private func cancelProbeWait(_ id: TransferID) {
        for (host, waiting) in awaitingProbe {
            guard let index = waiting.firstIndex(where: { $0.id == id }) else { continue }
            let cancelled = waiting[index]
            awaitingProbe[host]!.remove(at: index)   // the probe's answer finds an empty list
            cancelled.callbacks.onComplete(.failure(.cancelled))
            return
        }
    }

    /// The host part of `url` (no brackets around an IPv6 address), by libcurl's URL parser.
    private static func host(of url: String) -> String? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        var host: UnsafeMutablePointer<CChar>?
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK,
              curl_url_get(handle, CURLUPART_HOST, &host, 0) == CURLUE_OK, let host else { return nil }
        defer { curl_free(host) }
        return String(cString: host)
    }

    // MARK: timers

    private func runDueTimers() {
        let now = MonotonicClock.nanoseconds()
        while !stopping, let work = timers.popDue(now: now) {
            work()
            processCommands()   // e.g. a timer's work cancelled a transfer or a later timer
        }
    }

    /// Resumes the transfers whose speed-cap pause is over. A resumed transfer's callbacks may
    /// pause it again at once (they run inside `curl_easy_pause`).
    private func resumeThrottled() {
        guard !throttled.isEmpty else { return }
        let now = MonotonicClock.nanoseconds()
        for (id, resumeAt) in throttled where resumeAt <= now {
            throttled[id] = nil
            if let t = transfers[id] { curl_easy_pause(t.easy, 0) }   // 0: CURLPAUSE_CONT
        }
    }

    private func pollTimeout() -> Int32 {
        let throttledDeadline = throttled.values.min()
        guard let deadline = [timers.nextDeadline(), throttledDeadline].compactMap({ $0 }).min() else {
            return Self.maxPollMilliseconds
        }
        let now = MonotonicClock.nanoseconds()
        guard deadline > now else { return 0 }
        let ms = (deadline - now + 999_999) / 1_000_000
        return Int32(min(ms, UInt64(Self.maxPollMilliseconds)))
    }

    // MARK: shutdown

    private func tearDown() {
        // `.stop` is the last command the closed inbox accepted, so nothing is queued behind it.
        timers.removeAll()
        for t in transfers.values.sorted(by: { $0.id.raw < $1.id.raw }) { finish(t, code: nil) }
        for waiting in awaitingProbe.values.joined() { waiting.callbacks.onComplete(.failure(.cancelled)) }
        awaitingProbe.removeAll()
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
    }
}

/// The loop, handed to a `NameProbe` thread that only posts work back to it through the inbox
/// (which runs it on the transfer thread, or drops it once the loop stopped).
private struct LoopReference: @unchecked Sendable {
    let value: TransferLoop
    init(_ value: TransferLoop) { self.value = value }
}
