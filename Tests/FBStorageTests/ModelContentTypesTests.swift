@testable import FBStorage
import Testing

@Suite struct ModelContentTypesTests {
    /// firebase-apple-sdk.md §5 #14.
    @Test(arguments: [("txt", "text/plain"), ("png", "image/png"), ("mp3", "audio/mpeg"),
                      ("mov", "video/quicktime"), ("gif", "image/gif")])
    func appleVector14(ext: String, type: String) {
        #expect(ContentTypes.forPath("file." + ext) == type)
    }

    @Test func everyRequiredExtensionIsKnown() {
        let required = ["jpg", "jpeg", "png", "gif", "webp", "svg", "ico", "bmp", "tif", "tiff", "txt", "csv", "md",
                        "html", "htm", "css", "js", "mjs", "json", "xml", "pdf", "zip", "gz", "tgz", "tar", "bz2",
                        "7z", "mp3", "wav", "ogg", "flac", "m4a", "aac", "mp4", "m4v", "mov", "webm", "avi", "mkv",
                        "wasm"]
        for ext in required {
            #expect(ContentTypes.forPath("x." + ext) != ContentTypes.defaultType, "\(ext)")
        }
        #expect(ContentTypes.forPath("x.bin") == "application/octet-stream")
    }

    @Test func specifics() {
        #expect(ContentTypes.forPath("a/b/photo.JPG") == "image/jpeg")
        #expect(ContentTypes.forPath("Photo.JpEg") == "image/jpeg")
        #expect(ContentTypes.forPath("archive.tar.gz") == "application/gzip")
        #expect(ContentTypes.forPath("index.html") == "text/html")
        #expect(ContentTypes.forPath("data.json") == "application/json")
        #expect(ContentTypes.forPath("doc.pdf") == "application/pdf")
        #expect(ContentTypes.forPath("image.svg") == "image/svg+xml")
    }

    @Test(arguments: ["", "noext", ".bashrc", "dir.d/file", "file.", "file.unknownext", "/tmp/", "a.png/b"])
    func unknownIsOctetStream(path: String) {
        #expect(ContentTypes.forPath(path) == "application/octet-stream")
    }
}
