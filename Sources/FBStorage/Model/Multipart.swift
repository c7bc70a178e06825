/// `multipart/related` upload bodies (metadata part, then content part), in exactly the form
/// of the JS SDK (wire-protocol.md §7 vector 7).
enum Multipart {
    /// A random boundary of 32 lowercase hex digits (128 bits).
    static func makeBoundary() -> String {
        // Two draws, not one per character: each draw is a getrandom() system call, and 32 of
        // them were a visible share of a small upload's CPU.
        var generator = SystemRandomNumberGenerator()
        return [generator.next() as UInt64, generator.next()].map { bits in
            let hex = String(bits, radix: 16)
            return String(repeating: "0", count: 16 - hex.utf8.count) + hex
        }.joined()
    }

    /// `--B\r\nContent-Type: application/json; charset=utf-8\r\n\r\n<json>\r\n--B\r\n`
    /// `Content-Type: <type>\r\n\r\n<data>\r\n--B--` (no trailing CRLF).
    static func body(metadataJSON: [UInt8], contentType: String, payload: UnsafeRawBufferPointer,
                     boundary: String) -> [UInt8] {
        let head = "--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
        let middle = "\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\n\r\n"
        let tail = "\r\n--\(boundary)--"
        var out: [UInt8] = []
        out.reserveCapacity(head.utf8.count + metadataJSON.count + middle.utf8.count
                            + payload.count + tail.utf8.count)
        out.append(contentsOf: head.utf8)
        out.append(contentsOf: metadataJSON)
        out.append(contentsOf: middle.utf8)
        out.append(contentsOf: payload)
        out.append(contentsOf: tail.utf8)
        return out
    }

    /// The request's `Content-Type`: `multipart/related; boundary=B`.
    static func contentTypeHeader(boundary: String) -> String {
        "multipart/related; boundary=\(boundary)"
    }
}
