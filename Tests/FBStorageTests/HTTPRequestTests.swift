// Requests as the server sees them: methods, bodies, request headers.
import Testing

import CHeaderConstants
@testable import FBStorage

@Suite("HTTP requests", .serialized)
struct HTTPRequestTests {
    let server = TestServer.shared

    func echo(_ engine: HTTPEngine, _ request: HTTPRequest) async throws -> Echo {
        let response = try await engine.run(request).response()
        #expect(response.status == 200)
        return try Echo.decode(response)
    }

    @Test("every method without a body", arguments: ["GET", "POST", "PUT", "PATCH", "DELETE"])
    func methodWithoutBody(method: String) async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let e = try await echo(engine, HTTPRequest(method: method, url: server.url("/echo?m=\(method)")))
        #expect(e.method == method)
        #expect(e.path == "/echo?m=\(method)")
        #expect(e.length == 0)
        // POST and PUT without a body still say so; nothing adds a content type or Expect.
        if method == "POST" || method == "PUT" { #expect(e.header("Content-Length") == "0") }
        #expect(e.header("Content-Type") == nil)
        #expect(e.header("Expect") == nil)
        #expect(e.header("Transfer-Encoding") == nil)
        #expect(e.header("User-Agent")?.hasPrefix("fbstorage/\(FBS_VERSION_STRING) libcurl/") == true)
    }

    @Test("every method with a BytesBody", arguments: ["POST", "PUT", "PATCH", "DELETE", "GET"])
    func methodWithBytesBody(method: String) async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let bytes = patternBytes(300_000, seed: 7)
        let e = try await echo(engine, HTTPRequest(method: method, url: server.url("/echo"), body: BytesBody(bytes)))
        #expect(e.method == method)
        #expect(e.length == bytes.count)
        #expect(e.header("Content-Length") == "\(bytes.count)")
        #expect(e.crc32 == crc32(bytes))
        #expect(e.header("Content-Type") == nil)   // no application/x-www-form-urlencoded
        #expect(e.header("Expect") == nil)
    }

    @Test("BytesBody range view and empty body")
    func bytesBodyRange() async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let bytes = patternBytes(100_000)
        let e = try await echo(engine, HTTPRequest(
            method: "POST", url: server.url("/echo"), body: BytesBody(bytes, range: 1234..<98765)))
        #expect(e.length == 98765 - 1234)
        #expect(e.crc32 == crc32(bytes[1234..<98765]))
        let empty = try await echo(engine, HTTPRequest(method: "PUT", url: server.url("/echo"), body: BytesBody([])))
        #expect(empty.length == 0 && empty.header("Content-Length") == "0")
    }

    @Test("FileBody with offset ranges", arguments: ["PUT", "POST"])
    func fileBodyRanges(method: String) async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let bytes = patternBytes(3_000_000, seed: 3)
        let file = TempFile(bytes: bytes)
        defer { file.remove() }
        for (offset, length) in [(0, bytes.count), (1, 1_000_000), (2_999_999, 1), (262_144, 2_000_000), (5, 0)] {
            let body = FileBody(fd: file.fd, offset: Int64(offset), length: Int64(length))
            let e = try await echo(engine, HTTPRequest(method: method, url: server.url("/echo"), body: body))
            #expect(e.length == length)
            #expect(e.crc32 == crc32(bytes[offset..<offset + length]))
        }
    }

    @Test("a FileBody past the end of its file fails the transfer")
    func fileBodyShortRead() async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let file = TempFile(size: 1000)
        defer { file.remove() }
        let result = await engine.run(HTTPRequest(
            method: "PUT", url: server.url("/sink"), body: FileBody(fd: file.fd, offset: 500, length: 1000)))
        guard case .failed(let code, let message)? = result.failure else {
            Issue.record("expected .failed, got \(result)")
            return
        }
        #expect(code == 26)   // CURLE_READ_ERROR
        #expect(message.contains("request body read failed"))
    }

    @Test("request headers reach the server; Content-Type and Expect overrides are kept")
    func requestHeaders() async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let e = try await echo(engine, HTTPRequest(
            method: "POST", url: server.url("/echo"),
            headers: [("Content-Type", "application/json; charset=utf-8"), ("X-Goog-Upload-Command", "upload, finalize"),
                      ("Authorization", "Firebase abc"), ("X-Empty", ""), ("User-Agent", "custom/1")],
            body: BytesBody(Array("{}".utf8))))
        #expect(e.header("Content-Type") == "application/json; charset=utf-8")
        #expect(e.header("X-Goog-Upload-Command") == "upload, finalize")
        #expect(e.header("Authorization") == "Firebase abc")
        #expect(e.header("X-Empty") == "")
        #expect(e.header("User-Agent") == "custom/1")
    }

    @Test("header injection is refused without echoing the value")
    func headerInjection() async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let result = await engine.run(HTTPRequest(
            method: "GET", url: server.url("/echo"), headers: [("Authorization", "secret\r\nX-Evil: 1")]))
        guard case .invalidRequest(let message)? = result.failure else {
            Issue.record("expected .invalidRequest, got \(result)")
            return
        }
        #expect(!message.contains("secret"))
    }

    @Test("upload progress is monotonic and reaches the body length")
    func uploadProgress() async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let file = TempFile(size: 20 << 20)
        defer { file.remove() }
        let seen = Locked<[Int64]>([])
        let onThread = Locked(true)
        let result = await engine.run(
            HTTPRequest(method: "PUT", url: server.url("/sink"), body: FileBody(fd: file.fd, offset: 0, length: 20 << 20)),
            onUploadProgress: { n in
                seen.withLock { $0.append(n) }
                if !engine.isTransferThread { onThread.withLock { $0 = false } }
            })
        #expect(try result.response().status == 200)
        let values = seen.value
        #expect(values.count > 1)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        #expect(values.last == 20 << 20)
        #expect(onThread.value)
    }

    @Test("upload progress of a small body and of no body")
    func smallUploadProgress() async throws {
        let engine = try HTTPEngine(name: "t")
        defer { engine.shutdown() }
        let seen = Locked<[Int64]>([])
        _ = try await engine.run(
            HTTPRequest(method: "POST", url: server.url("/echo"), body: BytesBody([1, 2, 3])),
            onUploadProgress: { n in seen.withLock { $0.append(n) } }).response()
        #expect(seen.value == [3])
        let none = Locked<[Int64]>([])
        _ = try await engine.run(
            HTTPRequest(method: "GET", url: server.url("/echo")),
            onUploadProgress: { n in none.withLock { $0.append(n) } }).response()
        #expect(none.value.isEmpty)
    }
}
