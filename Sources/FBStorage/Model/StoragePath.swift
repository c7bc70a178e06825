/// A bucket and a normalised object path (`""` is the bucket's root).
///
/// Normalisation follows the Apple SDK: runs of `/` collapse to one `/`, and leading and
/// trailing `/` are trimmed; `.` and `..` are ordinary characters. Unlike the Apple SDK, an
/// object path longer than 1024 UTF-8 bytes, or containing CR or LF, is refused with
/// `pathError` (Cloud Storage refuses such names).
public struct StoragePath: Hashable, Sendable, CustomStringConvertible {
    /// The bucket name, without `gs://`.
    public let bucket: String
    /// The normalised object path; `""` at the root.
    public let object: String

    /// The most UTF-8 bytes an object path may have.
    public static let maxObjectBytes = 1024

    /// Creates a path, normalising `object`.
    /// - Throws: `pathError` when the normalised object is longer than 1024 UTF-8 bytes or
    ///   contains CR or LF.
    public init(bucket: String, object: String) throws(StorageError) {
        var normalized = StoragePath.normalize(object)
        let byteCount = normalized.utf8.count
        if byteCount > StoragePath.maxObjectBytes {
            throw .path("The object path is \(byteCount) bytes long; the maximum is \(StoragePath.maxObjectBytes) bytes of UTF-8.")
        }
        // Over the raw bytes: a `contains(where:)` on the UTF8View cost more than the rest of init.
        if normalized.withUTF8({ $0.contains { $0 == 0x0A || $0 == 0x0D } }) {
            throw .path("The object path contains a carriage return or line feed, which Cloud Storage does not allow.")
        }
        self.bucket = bucket
        self.object = normalized
    }

    /// Creates a path from parts already known to be valid and normalised.
    private init(validBucket: String, normalizedObject: String) {
        bucket = validBucket
        object = normalizedObject
    }

    // MARK: Identity

    /// Cloud Storage names are byte strings: "é" and "e\u{301}" name two objects, so paths
    /// compare by UTF-8 bytes rather than by Swift's canonical equivalence.
    public static func == (a: StoragePath, b: StoragePath) -> Bool {
        a.bucket.utf8.elementsEqual(b.bucket.utf8) && a.object.utf8.elementsEqual(b.object.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        Self.combineBytes(of: bucket, into: &hasher)
        Self.combineBytes(of: object, into: &hasher)
    }

    private static func combineBytes(of part: String, into hasher: inout Hasher) {
        var part = part
        part.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8)   // never in UTF-8: ends the part
    }

    // MARK: Navigation

    /// True at the bucket's root.
    public var isRoot: Bool { object.isEmpty }

    /// The object path (`""` at the root); the same as `object`.
    public var fullPath: String { object }

    /// The last path component; `""` at the root.
    public var name: String {
        guard let slash = object.utf8.lastIndex(of: UInt8(ascii: "/")) else { return object }
        return String(object[object.utf8.index(after: slash)...])
    }

    /// The parent path; `nil` at the root.
    public var parent: StoragePath? {
        if isRoot { return nil }
        guard let slash = object.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            return StoragePath(validBucket: bucket, normalizedObject: "")
        }
        return StoragePath(validBucket: bucket, normalizedObject: String(object[..<slash]))
    }

    /// The bucket's root.
    public var root: StoragePath { StoragePath(validBucket: bucket, normalizedObject: "") }

    /// The path `path` below this one (normalised); `""` gives this path.
    /// - Throws: `pathError` as `init(bucket:object:)`.
    public func child(_ path: String) throws(StorageError) -> StoragePath {
        if path.isEmpty { return self }
        return try StoragePath(bucket: bucket, object: isRoot ? path : object + "/" + path)
    }

    /// `gs://bucket/object` (`gs://bucket/` at the root).
    public var gsURL: String { "gs://\(bucket)/\(object)" }

    /// The same as `gsURL`.
    public var description: String { gsURL }

    // MARK: Parsing

    /// Parses a bucket given as `"b"`, `"gs://b"` or `"gs://b/"`.
    /// - Throws: `pathError` when it is empty, has a path after the bucket, or contains
    ///   whitespace, control characters or `/`.
    public static func parseBucket(_ s: String) throws(StorageError) -> String {
        var name = Substring(s)
        if let rest = dropScheme("gs", from: s) {
            let (bucket, after) = split(rest, at: "/")
            if let after, !normalize(String(after)).isEmpty {
                throw .path("A storage is for a bucket: '\(s)' has a path after the bucket.")
            }
            name = bucket
        }
        try validateBucket(name, in: s)
        return String(name)
    }

    /// Parses `gs://bucket[/path]` (the path is normalised, not percent-decoded) or
    /// `http(s)://host[:port]/v0/b/<bucket>[/o[/<escaped path>]]` (bucket and path are
    /// percent-decoded once; the host, query string and fragment are ignored).
    /// - Throws: `pathError` naming the problem for anything else.
    public static func parse(url: String) throws(StorageError) -> StoragePath {
        if let rest = dropScheme("gs", from: url) {
            let (bucket, object) = split(rest, at: "/")
            if bucket.isEmpty {
                throw .path("The URL '\(url)' has no bucket after gs://.")
            }
            try validateBucket(bucket, in: url)
            return try StoragePath(bucket: String(bucket), object: String(object ?? ""))
        }
        if let rest = dropScheme("https", from: url) ?? dropScheme("http", from: url) {
            return try parseHTTP(afterScheme: rest, url: url)
        }
        throw .path("The URL '\(url)' is neither a gs:// URL nor an http(s):// Firebase Storage URL.")
    }

    /// The `token` query parameter of an `http(s)` download URL (percent-decoded once), nil
    /// when there is none; a `gs://` URL has none.
    /// - Throws: `pathError` for a token with a bad percent-encoding or a control character.
    static func downloadToken(inURL url: String) throws(StorageError) -> String? {
        guard dropScheme("gs", from: url) == nil else { return nil }
        guard let query = split(split(Substring(url), at: "#").before, at: "?").after else { return nil }
        for parameter in query.split(separator: "&") {
            guard let escaped = dropPrefix("token=", from: parameter) else { continue }
            guard let token = PercentEscaping.decode(String(escaped)),
                  !token.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .path("The URL '\(url)' has an invalid token.")
            }
            return token.isEmpty ? nil : token
        }
        return nil
    }

    /// The `http(s)` form, after `scheme://`.
    private static func parseHTTP(afterScheme rest: Substring, url: String) throws(StorageError) -> StoragePath {
        // Cut the fragment, then the query string.
        let target = split(split(rest, at: "#").before, at: "?").before
        let (host, afterHost) = split(target, at: "/")
        if host.isEmpty {
            throw .path("The URL '\(url)' has no host.")
        }
        guard let afterB = afterHost.flatMap({ dropPrefix("v0/b/", from: $0) }) else {
            throw .path("The URL '\(url)' is not a Firebase Storage URL: its path does not start with /v0/b/<bucket>.")
        }
        let (escapedBucket, afterBucket) = split(afterB, at: "/")   // afterBucket: nil, "", "o", "o/<object>"
        guard let bucket = PercentEscaping.decode(String(escapedBucket)), !bucket.isEmpty else {
            throw .path(escapedBucket.isEmpty
                        ? "The URL '\(url)' has no bucket after /v0/b/."
                        : "The URL '\(url)' has an invalid percent-encoding in its bucket.")
        }
        try validateBucket(Substring(bucket), in: url)
        guard let remainder = afterBucket, !remainder.isEmpty else {
            return try StoragePath(bucket: bucket, object: "")
        }
        guard let escapedObject = remainder.utf8.elementsEqual("o".utf8) ? "" : dropPrefix("o/", from: remainder) else {
            throw .path("The URL '\(url)' is not a Firebase Storage URL: expected /o after the bucket.")
        }
        guard let object = PercentEscaping.decode(String(escapedObject)) else {
            throw .path("The URL '\(url)' has an invalid percent-encoding in its object path.")
        }
        return try StoragePath(bucket: bucket, object: object)
    }

    // The helpers below work on UTF-8 bytes, not Characters: a "/" followed by a combining
    // mark is one Character, yet still a separator in a URL.

    /// The parts before and after the first `separator` (an ASCII character); `after` is nil
    /// when there is none.
    private static func split(_ s: Substring, at separator: Unicode.Scalar) -> (before: Substring, after: Substring?) {
        guard let index = s.utf8.firstIndex(of: UInt8(ascii: separator)) else { return (s, nil) }
        return (s[..<index], s[s.utf8.index(after: index)...])
    }

    /// `s` after `prefix` (compared byte for byte) when it starts with it.
    private static func dropPrefix(_ prefix: String, from s: Substring) -> Substring? {
        s.utf8.starts(with: prefix.utf8) ? Substring(s.utf8.dropFirst(prefix.utf8.count)) : nil
    }

    /// `s` after `scheme://` when it starts with it (the scheme compared case-insensitively).
    private static func dropScheme(_ scheme: String, from s: String) -> Substring? {
        let separator = scheme + "://"
        let head = s.utf8.prefix(separator.utf8.count)
        guard head.count == separator.utf8.count,
              zip(head, separator.utf8).allSatisfy({ asciiLower($0) == $1 })
        else { return nil }
        return Substring(s.utf8.dropFirst(separator.utf8.count))
    }

    private static func asciiLower(_ c: UInt8) -> UInt8 {
        (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c
    }

    /// Refuses an empty bucket, or one containing `/`, whitespace or control characters.
    private static func validateBucket(_ bucket: Substring, in input: String) throws(StorageError) {
        if bucket.isEmpty {
            throw .path("The bucket name is empty in '\(input)'.")
        }
        for scalar in bucket.unicodeScalars {
            if scalar == "/" {
                throw .path("The bucket name '\(bucket)' contains '/'.")
            }
            if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                throw .path("The bucket name in '\(input)' contains whitespace or a control character.")
            }
        }
    }

    /// Collapses runs of `/` and trims leading and trailing `/`.
    static func normalize(_ path: String) -> String {
        let slash = UInt8(ascii: "/")
        var path = path
        // Fast path (every name of a listing): already normalised.
        let isNormalized = path.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return true }
            if first == slash || last == slash { return false }
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == slash && previous == slash { return false }
                previous = byte
            }
            return true
        }
        if isNormalized { return path }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        var pendingSlash = false
        for byte in path.utf8 {
            if byte == slash {
                pendingSlash = !out.isEmpty
            } else {
                if pendingSlash { out.append(slash) }
                pendingSlash = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
