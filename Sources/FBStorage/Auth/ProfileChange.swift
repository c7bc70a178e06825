/// What a profile update does to one field of the user's profile (display name, photo URL):
/// leaves it, sets it, or deletes it (Identity Toolkit's `deleteAttribute`).
public enum ProfileChange: Sendable, Equatable {
    case unchanged
    case set(String)
    case delete

    /// The C and C++ SDKs' convention: nil leaves the field as it is, "" deletes it.
    public init(optional value: String?) {
        switch value {
        case nil: self = .unchanged
        case ""?: self = .delete
        case let value?: self = .set(value)
        }
    }
}
