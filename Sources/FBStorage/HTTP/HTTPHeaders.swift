/// Response header fields in arrival order; repeated fields stay separate entries.
struct HTTPHeaders: Sendable {
    var fields: [(name: String, value: String)]

    init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The value of the first field named `name` (ASCII case-insensitive), or nil.
    func value(_ name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Header names are ASCII tokens (RFC 9110 §5.1), so an ASCII case fold is enough and allocates nothing.
    static func namesEqual(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { foldASCII($0) == foldASCII($1) }
    }

    private static func foldASCII(_ c: UInt8) -> UInt8 {
        c >= 0x41 && c <= 0x5A ? c | 0x20 : c
    }
}
