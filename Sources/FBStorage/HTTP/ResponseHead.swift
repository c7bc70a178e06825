/// Collects the head of the final response from curl's header lines. curl reports every response it
/// reads: interim 1xx responses, then the final one, then any chunked trailers; a status line starts
/// a new head, so only the final response's fields are kept.
struct ResponseHead {
    private(set) var status = 0
    private(set) var fields: [(name: String, value: String)] = []
    /// The blank line after a final (non-1xx) status line has been seen.
    private(set) var isComplete = false

    /// Consumes one header line (with or without its CRLF). Returns true when this line completed the
    /// final head.
    mutating func consume(_ line: UnsafeRawBufferPointer) -> Bool {
        if isComplete { return false }   // trailers after a chunked body
        var end = line.count
        while end > 0 && (line[end - 1] == 0x0A || line[end - 1] == 0x0D) { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if text.isEmpty {
            guard status >= 200 else { return false }   // end of a 1xx head: the real one follows
            isComplete = true
            return true
        }
        if text.starts(with: "HTTP/".utf8) {
            status = Self.parseStatus(text)
            fields.removeAll(keepingCapacity: true)
        } else if text[0] == 0x20 || text[0] == 0x09 {
            // Obsolete line folding (RFC 9112 §5.2): continue the previous value.
            guard !fields.isEmpty else { return false }
            fields[fields.count - 1].value += " " + Self.trimmed(text[...])
        } else if let colon = text.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: text[..<colon], as: UTF8.self)
            fields.append((name: name, value: Self.trimmed(text[(colon + 1)...])))
        }
        return false
    }

    /// "HTTP/1.1 200 OK" -> 200; 0 if the line has no 3-digit code.
    private static func parseStatus(_ line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0, digits = 0
        for byte in line[(space + 1)...] {
            guard byte >= 0x30 && byte <= 0x39 else { break }
            code = code * 10 + Int(byte - 0x30)
            digits += 1
            if digits > 3 { return 0 }
        }
        return digits == 3 ? code : 0
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        var lo = bytes.startIndex, hi = bytes.endIndex
        while lo < hi && (bytes[lo] == 0x20 || bytes[lo] == 0x09) { lo += 1 }
        while hi > lo && (bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09) { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }
}
