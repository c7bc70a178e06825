// Fuzz target "path": URL, bucket and object-path parsing, and percent-escaping.
// The C layer hands the parsers only valid UTF-8, so the input is decoded (repaired) first.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    checkURL(text)
    checkBucket(text)
    checkObjectPath(text)
    checkEscaping(text)
    return 0
}

/// A parsed URL holds a valid path, and both URL forms of that path parse back to it.
private func checkURL(_ text: String) {
    guard let path = try? StoragePath.parse(url: text) else { return }
    checkValid(path)
    invariant((try? StoragePath.parse(url: path.gsURL)) == path, "gs:// round trip of \(path)")
    let http = "https://h/v0/b/\(PercentEscaping.objectName(path.bucket))/o/\(PercentEscaping.objectName(path.object))"
    invariant((try? StoragePath.parse(url: http)) == path, "http round trip of \(path) via \(http)")
}

private func checkBucket(_ text: String) {
    guard let bucket = try? StoragePath.parseBucket(text) else { return }
    invariant(!bucket.isEmpty && !bucket.contains("/"), "bucket '\(bucket)' from '\(text)'")
}

/// A valid object path is normalised, and navigating to the parent and back returns it.
private func checkObjectPath(_ text: String) {
    guard let path = try? StoragePath(bucket: "b", object: text) else { return }
    checkValid(path)
    invariant(StoragePath.normalize(text) == path.object, "normalisation of '\(text)'")
    if let parent = path.parent {
        invariant((try? parent.child(path.name)) == path, "parent/child round trip of \(path)")
    } else {
        invariant(path.isRoot && path.name.isEmpty, "only the root has no parent: \(path)")
    }
}

private func checkValid(_ path: StoragePath) {
    let object = path.object.utf8
    invariant(!path.bucket.isEmpty, "empty bucket in \(path)")
    invariant(object.count <= StoragePath.maxObjectBytes, "object longer than the maximum: \(object.count)")
    invariant(!object.contains(0x0A) && !object.contains(0x0D), "CR or LF in \(path)")
    invariant(StoragePath.normalize(path.object) == path.object, "object not normalised: \(path)")
}

/// Escaping keeps only URL-safe bytes, and decoding undoes it.
private func checkEscaping(_ text: String) {
    for escaped in [PercentEscaping.objectName(text), PercentEscaping.queryValue(text)] {
        invariant(escaped.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"/?#&+ ".utf8.contains($0) },
                  "unsafe byte left in '\(escaped)'")
        invariant(PercentEscaping.decode(escaped) == text, "escape/decode round trip of '\(text)'")
    }
    _ = PercentEscaping.decode(text)
}
