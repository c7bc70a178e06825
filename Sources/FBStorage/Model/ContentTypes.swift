/// Content types inferred from file name extensions.
enum ContentTypes {
    /// The type for `path`'s extension (case-insensitive), or `application/octet-stream`.
    /// Only the last path component is looked at; a name like `.bashrc` has no extension.
    static func forPath(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return defaultType }
        let ext = name[name.index(after: dot)...].lowercased()
        return byExtension[ext] ?? defaultType
    }

    /// The type of content whose type is not known.
    static let defaultType = "application/octet-stream"

    private static let byExtension: [String: String] = [
        // images
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "avif": "image/avif",
        "heic": "image/heic",
        // text
        "txt": "text/plain", "csv": "text/csv", "md": "text/markdown", "html": "text/html",
        "htm": "text/html", "css": "text/css", "js": "text/javascript", "mjs": "text/javascript",
        "json": "application/json", "xml": "application/xml", "yaml": "application/yaml",
        "yml": "application/yaml",
        // documents and archives
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "tgz": "application/gzip", "tar": "application/x-tar", "bz2": "application/x-bzip2",
        "7z": "application/x-7z-compressed", "xz": "application/x-xz",
        // audio
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac",
        "m4a": "audio/mp4", "aac": "audio/aac", "opus": "audio/opus",
        // video
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "webm": "video/webm",
        "avi": "video/x-msvideo", "mkv": "video/x-matroska",
        // binaries
        "wasm": "application/wasm", "bin": "application/octet-stream",
    ]
}
