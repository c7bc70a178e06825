// Fuzz target "metadata": the JSON parser and every JSON document decoded outside listing:
// object metadata from the server, and the upload session string of put_file_resuming.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    checkJSON(bytes)
    checkMetadata(bytes)
    checkUploadSession(bytes)
    return 0
}

/// Whatever parses serialises to JSON that parses back to the same value.
private func checkJSON(_ bytes: [UInt8]) {
    guard let value = JSONValue.parse(bytes) else { return }
    invariant(JSONValue.parse(value.serialized()) == value, "JSON round trip")
}

/// Decoded metadata re-encodes as request bodies that are valid JSON, and an upload body
/// decodes back to the same writable fields and custom metadata.
private func checkMetadata(_ bytes: [UInt8]) {
    guard let metadata = try? StorageMetadata.decode(json: bytes) else { return }
    for body in metadata.updateJSONSteps() {
        invariant(JSONValue.parse(body)?.objectValue != nil, "update body is not a JSON object")
    }
    let upload = metadata.uploadJSON(objectPath: metadata.fullPath ?? "object")
    guard let again = try? StorageMetadata.decode(json: upload) else {
        return invariant(false, "upload body does not decode")
    }
    invariant(again.cacheControl == metadata.cacheControl && again.contentDisposition == metadata.contentDisposition
              && again.contentEncoding == metadata.contentEncoding
              && again.contentLanguage == metadata.contentLanguage && again.contentType == metadata.contentType,
              "writable fields changed through an upload body")
    invariant(again.customMetadata == metadata.customMetadata, "custom metadata changed through an upload body")
}

/// A session string that decodes is valid and encodes back to an equal session.
private func checkUploadSession(_ bytes: [UInt8]) {
    guard let session = try? UploadSession.decode(String(decoding: bytes, as: UTF8.self)) else { return }
    invariant(session.totalBytes >= 0 && !session.bucket.isEmpty && !session.object.isEmpty, "invalid session accepted")
    invariant((try? UploadSession.decode(session.encode())) == session, "session round trip")
}
