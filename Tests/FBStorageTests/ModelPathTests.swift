@testable import FBStorage
import Testing

/// Throws-or-returns helper: the error code of a throwing path call, or nil on success.
private func pathErrorCode(_ body: () throws(StorageError) -> StoragePath) -> StorageErrorCode? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.code
    }
}

@Suite struct ModelPathTests {
    let root = try! StoragePath(bucket: "bucket", object: "")

    // MARK: Apple SDK vectors (firebase-apple-sdk.md §5)

    @Test func v1_gsURI() throws {
        let p = try StoragePath.parse(url: "gs://bucket/path/to/object")
        #expect(p.bucket == "bucket")
        #expect(p.object == "path/to/object")
    }

    @Test func v2_httpURL() throws {
        let p = try StoragePath.parse(url: "http://firebasestorage.googleapis.com/v0/b/bucket/o/path/to/object?token=x")
        #expect(p.bucket == "bucket")
        #expect(p.object == "path/to/object")
    }

    @Test func v3_emulatorURL() throws {
        let p = try StoragePath.parse(url: "http://localhost:8070/v0/b/bucket")
        #expect(p.bucket == "bucket")
        #expect(p.isRoot)
    }

    @Test(arguments: ["gs://bucket/", "gs://bucket"])
    func v4_gsURINoPath(url: String) throws {
        let p = try StoragePath.parse(url: url)
        #expect(p.bucket == "bucket")
        #expect(p.object == "")
    }

    @Test(arguments: ["gs://", "gs:///", "gs:///object"])
    func v5_gsWithoutBucketThrows(url: String) {
        #expect(pathErrorCode { () throws(StorageError) in try StoragePath.parse(url: url) } == .pathError)
    }

    @Test func v6_childToRoot() throws {
        #expect(try root.child("object").gsURL == "gs://bucket/object")
    }

    @Test(arguments: ["/object", "object/", "/object/"])
    func v7_childTrimsSlashes(child: String) throws {
        #expect(try root.child(child).gsURL == "gs://bucket/object")
    }

    @Test func v8_childCollapsesSlashes() throws {
        #expect(try root.child("/path///to////object////////").gsURL == "gs://bucket/path/to/object")
    }

    @Test func v9_parentAtRoot() throws {
        #expect(root.parent == nil)
        #expect(try root.child("/////").parent == nil)
        #expect(try StoragePath(bucket: "bucket", object: "/////").isRoot)
    }

    @Test func v10_parent() throws {
        #expect(try root.child("path/to/object").parent?.gsURL == "gs://bucket/path/to")
        #expect(try root.child("path/to////").parent?.gsURL == "gs://bucket/path")
        #expect(try root.child("object").parent == root)
    }

    @Test func v11_referenceProperties() throws {
        let p = try StoragePath.parse(url: "gs://bucket/path/to/object/")
        #expect(p.name == "object")
        #expect(p.fullPath == "path/to/object")
        #expect(p.bucket == "bucket")
    }

    @Test func v12_rootProperties() {
        #expect(root.name == "")
        #expect(root.fullPath == "")
        #expect(root.isRoot)
        #expect(root.gsURL == "gs://bucket/")
    }

    // MARK: Limits

    @Test func limit1024BytesAccepted() throws {
        let p = try StoragePath(bucket: "b", object: String(repeating: "a", count: 1024))
        #expect(p.object.utf8.count == 1024)
    }

    @Test func limit1025BytesRefused() {
        #expect(pathErrorCode { () throws(StorageError) in
            try StoragePath(bucket: "b", object: String(repeating: "a", count: 1025))
        } == .pathError)
    }

    @Test func limitCountsNormalisedPath() throws {
        // 1024 bytes once the extra slashes are gone.
        let p = try StoragePath(bucket: "b", object: "///" + String(repeating: "a", count: 1024) + "//")
        #expect(p.object.utf8.count == 1024)
        let child = try StoragePath(bucket: "b", object: String(repeating: "a", count: 1000))
        #expect(pathErrorCode { () throws(StorageError) in try child.child(String(repeating: "b", count: 24)) } == .pathError)
        #expect(try child.child(String(repeating: "b", count: 23)).object.utf8.count == 1024)
    }

    @Test func limitCountsUTF8Bytes() throws {
        // "é" is 2 bytes, "€" 3, "😀" 4: 512 × "é" = 1024 bytes (512 characters).
        _ = try StoragePath(bucket: "b", object: String(repeating: "é", count: 512))
        #expect(pathErrorCode { () throws(StorageError) in
            try StoragePath(bucket: "b", object: String(repeating: "é", count: 512) + "a")
        } == .pathError)
        #expect(pathErrorCode { () throws(StorageError) in
            try StoragePath(bucket: "b", object: String(repeating: "😀", count: 257))
        } == .pathError)
        _ = try StoragePath(bucket: "b", object: String(repeating: "😀", count: 256))
    }

    @Test(arguments: ["a\nb", "a\rb", "\n", "a/b\r\n", "x\r"])
    func crlfRefused(object: String) {
        #expect(pathErrorCode { () throws(StorageError) in try StoragePath(bucket: "b", object: object) } == .pathError)
        #expect(pathErrorCode { () throws(StorageError) in try root.child(object) } == .pathError)
    }

    @Test func errorMessagesNameTheProblem() {
        do {
            _ = try StoragePath(bucket: "b", object: String(repeating: "a", count: 2000))
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("2000"))
            #expect(error.message.contains("1024"))
        }
    }

    // MARK: Navigation

    @Test func dotsAreOrdinary() throws {
        let p = try root.child("a/./b/../c")
        #expect(p.object == "a/./b/../c")
        #expect(p.name == "c")
        #expect(p.parent?.object == "a/./b/..")
    }

    @Test func childOfChild() throws {
        let a = try root.child("a")
        #expect(try a.child("b/c").object == "a/b/c")
        #expect(try a.child("").object == "a")
        #expect(try a.child("/").object == "a")
        #expect(try a.child("b").root == root)
        #expect(try a.child("b").bucket == "bucket")
    }

    @Test func nameAndParentWithUnicode() throws {
        let p = try root.child("dossier/résumé 😀.txt")
        #expect(p.name == "résumé 😀.txt")
        #expect(p.parent?.object == "dossier")
        #expect(p.parent?.parent == root)
    }

    @Test func hashableAndEquatable() throws {
        let a = try StoragePath(bucket: "b", object: "x//y/")
        let b = try StoragePath(bucket: "b", object: "/x/y")
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(try StoragePath(bucket: "c", object: "x/y") != a)
    }

    /// Found by the path fuzz target: names that differ only in Unicode normalisation are
    /// different objects, so they are different paths (and both survive listAll's dedup).
    @Test func equalityComparesBytesNotCanonicalEquivalence() throws {
        let precomposed = try StoragePath(bucket: "b", object: "caf\u{E9}")
        let decomposed = try StoragePath(bucket: "b", object: "cafe\u{301}")
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
    }

    /// Found by the path fuzz target: a "/" followed by a combining mark is one Character, but
    /// still separates the bucket from the object.
    @Test(arguments: ["gs://b/\u{301}x", "https://h/v0/b/b/o/\u{301}x", "https://h/v0/b/b/o/%CC%81x"])
    func separatorBeforeACombiningMark(url: String) throws {
        let p = try StoragePath.parse(url: url)
        #expect(p.bucket == "b")
        #expect(Array(p.object.utf8) == Array("\u{301}x".utf8))
        #expect(try StoragePath.parse(url: p.gsURL) == p)
    }

    @Test func normalize() {
        #expect(StoragePath.normalize("") == "")
        #expect(StoragePath.normalize("/") == "")
        #expect(StoragePath.normalize("a") == "a")
        #expect(StoragePath.normalize("//a//b//") == "a/b")
        #expect(StoragePath.normalize("a/b/c") == "a/b/c")
    }

    // MARK: Buckets

    @Test(arguments: [("b", "b"), ("gs://b", "b"), ("gs://b/", "b"), ("my-app.appspot.com", "my-app.appspot.com"),
                      ("gs://my-app.appspot.com", "my-app.appspot.com"), ("GS://b", "b"), ("gs://b//", "b")])
    func parseBucket(input: String, expected: String) throws {
        #expect(try StoragePath.parseBucket(input) == expected)
    }

    @Test(arguments: ["", "gs://", "gs:///", "gs://b/path", "gs://b/p/q", "b/c", "a b", " b", "b\n",
                      "b\t", "http://b", "gs:// b", "/", "gs://b/ x"])
    func parseBucketRefuses(input: String) {
        do {
            _ = try StoragePath.parseBucket(input)
            Issue.record("'\(input)' was accepted")
        } catch {
            #expect(error.code == .pathError)
            #expect(!error.message.isEmpty)
        }
    }

    // MARK: URL parsing

    @Test(arguments: [
        ("gs://b/a%2Fb", "b", "a%2Fb"),                                       // no decoding for gs://
        ("gs://b//a///b/", "b", "a/b"),
        ("https://firebasestorage.googleapis.com/v0/b/b/o/a%2Fb%20c", "b", "a/b c"),
        ("https://firebasestorage.googleapis.com:443/v0/b/b/o/a%2Fb?alt=media&token=t", "b", "a/b"),
        ("http://127.0.0.1:9199/v0/b/b/o/x#frag", "b", "x"),
        ("http://[::1]:9199/v0/b/b/o/x%3Fy%23z", "b", "x?y#z"),
        ("HTTPS://host/v0/b/b/o/x", "b", "x"),
        ("http://h/v0/b/b/o", "b", ""),
        ("http://h/v0/b/b/o/", "b", ""),
        ("http://h/v0/b/b/", "b", ""),
        ("http://h/v0/b/b?x=1", "b", ""),
        ("http://h/v0/b/my%2Dbucket/o/a+b", "my-bucket", "a+b"),              // + stays +
        ("http://h/v0/b/b/o/%F0%9F%98%80", "b", "😀"),
        ("http://h/v0/b/b/o/a%252F", "b", "a%2F"),                            // decoded once
    ])
    func parseURL(url: String, bucket: String, object: String) throws {
        let p = try StoragePath.parse(url: url)
        #expect(p.bucket == bucket)
        #expect(p.object == object)
    }

    @Test(arguments: [
        "", "gs:", "gs:/b", "ftp://b/x", "b/x", "http://", "http:///v0/b/b", "http://x/v0/b/",
        "http://x/v0/b", "http://x/v1/b/b/o/x", "http://x/v0/b/b/x/y", "http://x/v0/b/b/oo/x",
        "http://x/", "http://x", "https://x/v0/b/b/o/%zz", "https://x/v0/b/b/o/%", "https://x/v0/b/b/o/%F0",
        "http://x/v0/b/%/o", "http://x/v0/b/a%20b/o/x", "http://x/v0/b/b/o/a%0Ab", "gs://a b/c",
        "https://x/v0/b/b/o/" + String(repeating: "a", count: 1025),
    ])
    func parseURLRefuses(url: String) {
        do {
            let p = try StoragePath.parse(url: url)
            Issue.record("'\(url)' parsed as \(p)")
        } catch {
            #expect(error.code == .pathError)
            #expect(!error.message.isEmpty)
        }
    }

    @Test func parseURLRoundTripsEndpointURLs() throws {
        let names = ["a", "a/b/c", "sp ace/+plus/&amp;/?q/#h/%pct/ünï/😀", "x=y:z@w,(1)*!$'~"]
        for name in names {
            let p = try root.child(name)
            let parsed = try StoragePath.parse(url: Endpoint.production.objectURL(p))
            #expect(parsed == p, "\(name)")
        }
    }
}
