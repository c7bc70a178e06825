/// A JSON document as a value, with a small strict parser and a deterministic serializer.
///
/// FoundationEssentials has no `JSONSerialization`, and `JSONDecoder` loses the text of numbers
/// (a 64-bit integer would round through `Double`), so fbstorage reads and writes server JSON
/// through this type:
/// - numbers keep their exact JSON text (`.number("1473948546121000")`);
/// - `parse(_:)` never traps: invalid input, nesting deeper than `maxDepth` and trailing garbage
///   all return `nil`;
/// - `serialized()` writes compact JSON with object keys sorted by UTF-8 bytes and `/` unescaped.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as its JSON text (validated by the parser; produced by `number(_:)`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The deepest nesting of arrays and objects `parse` accepts.
    static let maxDepth = 128

    /// A number value for an integer.
    static func number(_ value: Int64) -> JSONValue { .number(String(value)) }

    // MARK: Accessors

    /// The string, if this is a string.
    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object's members, if this is an object.
    var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, if this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The value as a 64-bit integer: a JSON number with an integral value in range (`12`,
    /// `1.2e1`), or a string holding a decimal integer (`"12"`). `nil` otherwise.
    var int64Value: Int64? {
        switch self {
        case .number(let text):
            if let v = Int64(text) { return v }
            guard let d = Double(text), d.isFinite, d == d.rounded(),
                  d >= -9_223_372_036_854_775_808.0, d < 9_223_372_036_854_775_808.0
            else { return nil }
            return Int64(d)
        case .string(let s):
            return Int64(s)
        default:
            return nil
        }
    }

    /// Member lookup; `nil` when this is not an object or has no such key.
    subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    // MARK: Parsing

    /// Parses a complete JSON text (RFC 8259; a leading UTF-8 BOM is skipped). Returns `nil` for
    /// anything that is not exactly one valid JSON value surrounded by whitespace.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            return parser.parseDocument()
        }
    }

    /// Parses a complete JSON text that must be one object, handing its members to `member` in
    /// document order without building a dictionary (metadata decoding: the dictionary cost as
    /// much as the parse). A repeated key comes again, so assigning each member in turn keeps the
    /// last, as `parse` does. False for anything `parse` refuses, or a value that is no object.
    static func forEachMember(ofObject bytes: [UInt8], _ member: (String, JSONValue) -> Void) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            return parser.parseObjectDocument(member)
        }
    }

    // MARK: Serialising

    /// Compact JSON text of this value (keys sorted by UTF-8 bytes).
    func serialized() -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    /// Appends the compact JSON text of this value to `out`.
    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            let ordered = members.keys.sorted(by: utf8Precedes).map { ($0, members[$0] ?? .null) }
            JSONValue.writeObject(ordered, into: &out)
        }
    }

    /// Writes an object whose members are in the given order (for bodies whose key order is
    /// fixed by the protocol, such as upload metadata).
    static func writeObject(_ members: [(String, JSONValue)], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, (key, value)) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            value.write(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Writes a JSON string literal: `"` and `\` escaped, control characters as short escapes
    /// or `\u00XX`, everything else (including `/` and non-ASCII) as raw UTF-8.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30,
                                        hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Orders strings by their UTF-8 bytes (the "byte order" of the C API), not by Swift's
/// Unicode-aware `<`.
func utf8Precedes(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
}

extension JSONValue: Codable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .number(String(i))
        } else if let d = try? container.decode(Double.self) {
            self = .number(d.isFinite ? "\(d)" : "0")
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let text):
            if let i = Int64(text) {
                try container.encode(i)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes. Every path that meets unexpected input
/// returns `nil`; nothing traps. Besides building `JSONValue`s, it reads pull-style (`read…`,
/// `skipValue`) for decoders that want a few members of large documents without building the
/// rest (a list page: building each item's dictionary was half of a listing's CPU).
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() -> JSONValue? {
        skipByteOrderMark()
        guard let value = parseValue() else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    /// A document that is one object, its members handed to `member`.
    mutating func parseObjectDocument(_ member: (String, JSONValue) -> Void) -> Bool {
        skipByteOrderMark()
        skipWhitespace()
        guard current == UInt8(ascii: "{"), parseMembers(member) else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    /// Reads `bytes`, a document that must be exactly one value, with `read` (which must consume
    /// that value); false on invalid input.
    static func read(_ bytes: [UInt8], _ read: (inout JSONParser) -> Bool) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            parser.skipByteOrderMark()
            guard read(&parser) else { return false }
            parser.skipWhitespace()
            return parser.index == buffer.count
        }
    }

    /// The first byte of the next value (after whitespace), to tell its kind; nil at the end.
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return current
    }

    /// The object that comes next: `member` gets each key with the parser at its value, and must
    /// read or skip that value. False on invalid input, or when the next value is no object.
    mutating func readObject(_ member: (inout JSONParser, String) -> Bool) -> Bool {
        guard peek() == UInt8(ascii: "{") else { return false }
        return readMembers(member)
    }

    /// The array that comes next: `element` reads or skips each element. False on invalid input,
    /// or when the next value is no array.
    mutating func readArray(_ element: (inout JSONParser) -> Bool) -> Bool {
        guard peek() == UInt8(ascii: "[") else { return false }
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONValue.maxDepth else { return false }
        index += 1 // [
        if peek() == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            guard element(&self) else { return false }
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return true
            default: return false
            }
        }
    }

    /// The elements of the array that comes next, as `readArray`; any other value is skipped
    /// (a decoder's tolerance of a member of the wrong type).
    mutating func readElementsOrSkip(_ element: (inout JSONParser) -> Bool) -> Bool {
        peek() == UInt8(ascii: "[") ? readArray(element) : skipValue()
    }

    /// The string that comes next; nil (having read nothing) when the next value is no string.
    mutating func readString() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        return parseString()
    }

    /// Reads past the next value, checking it, building nothing larger than a scalar.
    mutating func skipValue() -> Bool {
        switch peek() {
        case UInt8(ascii: "{"): return readObject { parser, _ in parser.skipValue() }
        case UInt8(ascii: "["): return readArray { parser in parser.skipValue() }
        default: return parseValue() != nil
        }
    }

    private mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let matches = literal.withUTF8Buffer { lit in
            (0..<count).allSatisfy { bytes[index + $0] == lit[$0] }
        }
        if matches { index += count }
        return matches
    }

    private mutating func parseValue() -> JSONValue? {
        skipWhitespace()
        guard let c = current else { return nil }
        switch c {
        case UInt8(ascii: "{"): return parseObject()
        case UInt8(ascii: "["): return parseArray()
        case UInt8(ascii: "\""): return parseString().map(JSONValue.string)
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseNumber()
        default: return nil
        }
    }

    private mutating func parseObject() -> JSONValue? {
        var members = [String: JSONValue](minimumCapacity: 16)  // an object's metadata has ~15 fields: no regrowth
        // The last duplicate wins, as in JavaScript.
        return parseMembers { key, value in members[key] = value } ? .object(members) : nil
    }

    /// The object at `index` (its `{`), each member handed to `member`; false on invalid input.
    private mutating func parseMembers(_ member: (String, JSONValue) -> Void) -> Bool {
        readMembers { parser, key in
            guard let value = parser.parseValue() else { return false }
            member(key, value)
            return true
        }
    }

    /// The object at `index` (its `{`): `member` gets each key with the parser at its value,
    /// which it consumes; false on invalid input.
    private mutating func readMembers(_ member: (inout JSONParser, String) -> Bool) -> Bool {
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONValue.maxDepth else { return false }
        index += 1 // {
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = parseString() else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            guard member(&self, key) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return true
            default: return false
            }
        }
    }

    private mutating func parseArray() -> JSONValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth <= JSONValue.maxDepth else { return nil }
        index += 1 // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let value = parseValue() else { return nil }
            elements.append(value)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: return nil
            }
        }
    }

    private mutating func parseNumber() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { return nil }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let c = current, isDigit(c) else { return nil }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let c = current, isDigit(c) else { return nil }
            skipDigits()
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]),
                              as: UTF8.self))
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private mutating func skipDigits() {
        while let c = current, isDigit(c) { index += 1 }
    }

    /// Parses a string literal at `"`. Lone surrogates in `\u` escapes and invalid UTF-8
    /// become U+FFFD; raw control characters are rejected.
    private mutating func parseString() -> String? {
        index += 1 // opening quote
        var out: [UInt8] = []
        var runStart = index
        while true {
            guard let c = current else { return nil }
            if c == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if out.isEmpty { return String(decoding: run, as: UTF8.self) }  // no escapes: one copy
                out.append(contentsOf: run)
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { return nil }
            if c != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            index += 1
            guard let escape = current else { return nil }
            index += 1
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = parseUnicodeEscape() else { return nil }
                out.append(contentsOf: String(Character(scalar)).utf8)
            default: return nil
            }
            runStart = index
        }
    }

    /// After `\u`: four hex digits, and a following `\uDC00`-`\uDFFF` escape for a high
    /// surrogate. Unpaired surrogates give U+FFFD.
    private mutating func parseUnicodeEscape() -> Unicode.Scalar? {
        guard let high = parseHex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            let save = index
            if consume("\\u"), let low = parseHex4(), (0xDC00...0xDFFF).contains(low) {
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                return Unicode.Scalar(value) ?? "\u{FFFD}"
            }
            index = save
            return "\u{FFFD}"
        }
        return Unicode.Scalar(high) ?? "\u{FFFD}"
    }

    private mutating func parseHex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - 0x41 + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
