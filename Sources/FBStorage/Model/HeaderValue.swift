/// Values that travel in HTTP header fields (metadata served as headers, tokens): a control
/// character there can never succeed (curl refuses CR/LF/NUL, servers refuse the rest), so it is
/// refused at once as a caller mistake instead of being retried as a network failure.
enum HeaderValue {
    /// Throws `invalidArgument` when `value` holds a C0 control character (NUL, CR, LF, TAB, …)
    /// or DEL. The message names `field` and the offending byte, never the value (it may be a
    /// credential).
    static func check(_ value: String, field: String) throws(StorageError) {
        var offset = 0
        for byte in value.utf8 {
            if byte < 0x20 || byte == 0x7F {
                let hex = String(byte, radix: 16, uppercase: true)
                throw StorageError(code: .invalidArgument,
                                   message: "\(field) contains a control character (0x\(hex.count == 1 ? "0" + hex : hex) at byte \(offset)); it cannot be sent in an HTTP header")
            }
            offset += 1
        }
    }
}

extension StorageMetadata {
    /// Throws `invalidArgument` when a field served as an HTTP header (content type, cache control,
    /// content disposition, encoding, language) holds a control character.
    public func checkHeaderFields() throws(StorageError) {
        for (name, field) in [("contentType", contentType), ("cacheControl", cacheControl),
                              ("contentDisposition", contentDisposition), ("contentEncoding", contentEncoding),
                              ("contentLanguage", contentLanguage)] {
            if let value = field.string { try HeaderValue.check(value, field: "Metadata field \(name)") }
        }
    }
}
