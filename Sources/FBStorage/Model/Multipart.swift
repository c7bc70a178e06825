import CCrypto

/// `multipart/related` upload bodies (metadata part, then content part), in exactly the form
/// of the JS SDK (wire-protocol.md §7 vector 7).
enum Multipart {
    /// A random boundary of 32 lowercase hex digits (128 bits), from OpenSSL's generator: it is
    /// seeded by the kernel once and then needs no system call, where two getrandom(2) calls (one
    /// per 64-bit draw of Swift's generator) were a visible share of a small upload's CPU.
    static func makeBoundary() -> String {
        var random = [UInt8](repeating: 0, count: 16)
        if RAND_bytes(&random, Int32(random.count)) != 1 {   // never in practice: fall back to the kernel's
            var generator = SystemRandomNumberGenerator()
            random = (0..<16).map { _ in generator.next() }
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        for byte in random {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 15)])
        }
        return String(decoding: hex, as: UTF8.self)
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
