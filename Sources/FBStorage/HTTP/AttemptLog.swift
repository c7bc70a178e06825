import Synchronization

/// One debug log line per HTTP attempt: method, redacted URL, the resumable command and offset,
/// then the status or transport error and how many body bytes went out. No header value other
/// than those two non-secret upload headers is ever logged.
extension TransferCallbacks {
    /// These callbacks, also logging `request`'s outcome when it completes.
    func logging(_ request: HTTPRequest) -> TransferCallbacks {
        guard LogHook.isEnabled else { return self }
        let sent = Atomic<Int64>(0)   // only touched on the transfer thread; Atomic makes it Sendable
        let describe = AttemptDescription(request)
        var logged = self
        let progress = onUploadProgress
        logged.onUploadProgress = { bytes in
            sent.store(bytes, ordering: .relaxed)
            progress?(bytes)
        }
        let complete = onComplete
        logged.onComplete = { result in
            LogHook.log(.debug, describe.line(result, sent: sent.load(ordering: .relaxed)))
            complete(result)
        }
        return logged
    }
}

private struct AttemptDescription: Sendable {
    let head: String
    let bodyLength: Int64?

    init(_ request: HTTPRequest) {
        var head = "\(request.method) \(LogRedaction.url(request.url))"
        let command = request.headers.first { HTTPHeaders.namesEqual($0.name, "X-Goog-Upload-Command") }?.value
        let offset = request.headers.first { HTTPHeaders.namesEqual($0.name, "X-Goog-Upload-Offset") }?.value
        if let command { head += " [\(command)\(offset.map { " at \($0)" } ?? "")]" }
        self.head = head
        bodyLength = request.body?.length
    }

    func line(_ result: Result<HTTPResponse, TransportError>, sent: Int64) -> String {
        let outcome: String
        switch result {
        case .success(let response):
            outcome = "HTTP \(response.status)"
                + (response.headers.value("X-Goog-Upload-Size-Received").map { ", server has \($0)" } ?? "")
        case .failure(let error):
            outcome = error.description
        }
        let body = bodyLength.map { ", sent \(sent) of \($0) body bytes" } ?? ""
        return "\(head) -> \(outcome)\(body)"
    }
}
