/// Percent-encoding of URL parts, working on UTF-8 bytes.
enum PercentEscaping {
    /// Escapes an object name (or bucket) for one URL path segment, as the Apple SDK's
    /// `GCSEscapedString`: every UTF-8 byte except `A-Za-z0-9-._~!$'()*,=:@` is encoded, so
    /// `/` → `%2F`, `+` → `%2B`, space → `%20`, `&` → `%26`, `;` → `%3B`, `?` → `%3F`,
    /// `#` → `%23`, `%` → `%25`.
    static func objectName(_ s: String) -> String {
        encode(s, keeping: objectNameKept)
    }

    /// Escapes a query-string value like JavaScript's `encodeURIComponent`: keeps
    /// `A-Za-z0-9-_.!~*'()` and encodes every other UTF-8 byte (so `+` → `%2B`, space → `%20`).
    static func queryValue(_ s: String) -> String {
        encode(s, keeping: queryValueKept)
    }

    /// Escapes a V4-signing path (Python's `quote(name, safe="/~")`): keeps `A-Za-z0-9-._~/`.
    static func signedPath(_ s: String) -> String {
        encode(s, keeping: signedPathKept)
    }

    /// Escapes a V4-signing query name or value (Python's `quote(value, safe="~")`): keeps
    /// `A-Za-z0-9-._~` only.
    static func signedQuery(_ s: String) -> String {
        encode(s, keeping: signedQueryKept)
    }

    /// Decodes `%XY` escapes once (`+` stays `+`). `nil` when a `%` is not followed by two
    /// hex digits or the decoded bytes are not valid UTF-8.
    static func decode(_ s: String) -> String? {
        let utf8 = s.utf8
        if !utf8.contains(UInt8(ascii: "%")) { return s }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var it = utf8.makeIterator()
        while let byte = it.next() {
            if byte != UInt8(ascii: "%") {
                out.append(byte)
                continue
            }
            guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else {
                return nil
            }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    // MARK: Implementation

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A 256-entry table: `true` for bytes kept as they are.
    private static func keptTable(_ extra: String) -> [Bool] {
        var table = [Bool](repeating: false, count: 256)
        for c in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(c)] = true }
        for c in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(c)] = true }
        for c in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(c)] = true }
        for c in extra.utf8 { table[Int(c)] = true }
        return table
    }

    private static let objectNameKept = keptTable("-._~!$'()*,=:@")
    private static let queryValueKept = keptTable("-_.!~*'()")
    private static let signedPathKept = keptTable("-._~/")
    private static let signedQueryKept = keptTable("-._~")

    private static func encode(_ s: String, keeping kept: [Bool]) -> String {
        let utf8 = s.utf8
        if utf8.allSatisfy({ kept[Int($0)] }) { return s }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if kept[Int(byte)] {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
