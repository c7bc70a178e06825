/// The state of one writable metadata field: never set, set to null (delete it on update), or
/// set to a value.
public enum FieldValue: Sendable, Equatable {
    /// Never set: not sent.
    case unset
    /// Set to null: sent as JSON `null` on update, which deletes the field on the server.
    case null
    /// Set to a value.
    case value(String)

    /// `.value(s)` for a string, `.null` for `nil` (as the C setters take `NULL`).
    public init(_ value: String?) {
        self = value.map(FieldValue.value) ?? .null
    }

    /// The value when set to one; `nil` when unset or null.
    public var string: String? {
        if case .value(let s) = self { return s }
        return nil
    }

    /// True unless `.unset`.
    public var isSet: Bool { self != .unset }
}
