@testable import FBStorage
import Testing

@Suite struct ModelEndpointTests {
    let root = try! StoragePath(bucket: "bucket", object: "")
    let prod = Endpoint.production

    /// firebase-apple-sdk.md §5 #15–#17.
    @Test func appleVectors15to17() throws {
        #expect(prod.objectURL(try root.child("path/to/object")) ==
                "https://firebasestorage.googleapis.com:443/v0/b/bucket/o/path%2Fto%2Fobject")
        #expect(prod.objectURL(root) == "https://firebasestorage.googleapis.com:443/v0/b/bucket/o")
        #expect(prod.objectURL(try root.child("object")) == "https://firebasestorage.googleapis.com:443/v0/b/bucket/o/object")
    }

    /// firebase-apple-sdk.md §5 #20: the download URL from the first token.
    @Test func appleVector20() throws {
        let m = try StorageMetadata.decode(json: Array(#"{"bucket":"bucket","downloadTokens":"12345,ignored","name":"path/to/object"}"#.utf8))
        let path = try StoragePath(bucket: m.bucket ?? "", object: m.fullPath ?? "")
        #expect(prod.downloadURL(path, token: m.downloadTokens[0]) ==
                "https://firebasestorage.googleapis.com:443/v0/b/bucket/o/path%2Fto%2Fobject?alt=media&token=12345")
    }

    /// wire-protocol.md §7 vector 1 and 4 (our URLs include the port).
    @Test func jsVectorsWithEscapedBucketAndObject() throws {
        let e = try StoragePath(bucket: "b", object: "o?")
        #expect(prod.objectURL(e) == "https://firebasestorage.googleapis.com:443/v0/b/b/o/o%3F")
        #expect(prod.bucketURL("b/") == "https://firebasestorage.googleapis.com:443/v0/b/b%2F/o")
        let baz = try StoragePath(bucket: "b", object: "foo/bar/baz.png")
        #expect(prod.downloadURL(baz, token: "a") == "https://firebasestorage.googleapis.com:443/v0/b/b/o/foo%2Fbar%2Fbaz.png?alt=media&token=a")
    }

    @Test func listURL() throws {
        #expect(prod.listURL(root, maxResults: nil, pageToken: nil) ==
                "https://firebasestorage.googleapis.com:443/v0/b/bucket/o?delimiter=%2F")
        let o = try root.child("o")
        #expect(prod.listURL(o, maxResults: 13, pageToken: "pageToken-afeafeagef") ==
                "https://firebasestorage.googleapis.com:443/v0/b/bucket/o?prefix=o%2F&delimiter=%2F&maxResults=13&pageToken=pageToken-afeafeagef")
        #expect(prod.listURL(try root.child("a b/c+d"), maxResults: nil, pageToken: "YS9mLw==") ==
                "https://firebasestorage.googleapis.com:443/v0/b/bucket/o?prefix=a%20b%2Fc%2Bd%2F&delimiter=%2F&pageToken=YS9mLw%3D%3D")
    }

    @Test func uploadAndMediaURLs() throws {
        let o = try StoragePath(bucket: "b", object: "dir/a+b c.txt")
        #expect(prod.uploadURL(o) == "https://firebasestorage.googleapis.com:443/v0/b/b/o?name=dir%2Fa%2Bb%20c.txt")
        #expect(prod.mediaURL(o) == "https://firebasestorage.googleapis.com:443/v0/b/b/o/dir%2Fa%2Bb%20c.txt?alt=media")
        #expect(prod.downloadURL(o, token: "t&k=v") == "https://firebasestorage.googleapis.com:443/v0/b/b/o/dir%2Fa%2Bb%20c.txt?alt=media&token=t%26k%3Dv")
    }

    @Test func origins() {
        #expect(prod.origin == "https://firebasestorage.googleapis.com:443")
        #expect(Endpoint(scheme: "http", host: "127.0.0.1", port: 9199).origin == "http://127.0.0.1:9199")
        #expect(Endpoint(scheme: "http", host: "::1", port: 9199).origin == "http://[::1]:9199")
        #expect(Endpoint(scheme: "http", host: "[::1]", port: 9199).origin == "http://[::1]:9199")
        #expect(Endpoint(scheme: "http", host: "[::1]", port: 9199).host == "::1")
        #expect(Endpoint(scheme: "http", host: "fe80::1", port: 80).bucketURL("b") == "http://[fe80::1]:80/v0/b/b/o")
    }

    @Test func emulatorValidation() throws {
        #expect(try Endpoint.emulator(host: "localhost", port: 9199).origin == "http://localhost:9199")
        #expect(try Endpoint.emulator(host: "[::1]", port: 1).origin == "http://[::1]:1")
        #expect(try Endpoint.emulator(host: "::1", port: 65535).origin == "http://[::1]:65535")
        for (host, port) in [("", 9199), ("[]", 9199), ("h", 0), ("h", 65536), ("h", -1), ("a b", 80), ("h/x", 80), ("u@h", 80)] {
            do {
                _ = try Endpoint.emulator(host: host, port: port)
                Issue.record("accepted \(host):\(port)")
            } catch {
                #expect(error.code == .invalidArgument)
            }
        }
    }

    @Test func emulatorHostPort() {
        #expect(Endpoint.emulator(hostPort: "localhost:9199")?.origin == "http://localhost:9199")
        #expect(Endpoint.emulator(hostPort: "127.0.0.1:1234")?.origin == "http://127.0.0.1:1234")
        #expect(Endpoint.emulator(hostPort: "[::1]:9199")?.origin == "http://[::1]:9199")
        #expect(Endpoint.emulator(hostPort: "[::1]")?.origin == "http://[::1]:9199")
        #expect(Endpoint.emulator(hostPort: "myhost")?.origin == "http://myhost:9199")
        #expect(Endpoint.emulator(hostPort: "::1")?.origin == "http://[::1]:9199")
        for bad in ["", "http://localhost:9199", "host:", "host:abc", "host:0", "host:70000", "[::1", "[::1]x", ":9199"] {
            #expect(Endpoint.emulator(hostPort: bad) == nil, "\(bad)")
        }
    }

    @Test func secureOrLoopback() {
        let yes = [("https", "example.com"), ("HTTPS", "x"), ("http", "localhost"), ("http", "LOCALHOST"),
                   ("http", "127.0.0.1"), ("http", "127.255.0.9"), ("http", "::1"), ("http", "[::1]")]
        for (scheme, host) in yes {
            #expect(Endpoint(scheme: scheme, host: host, port: 1).isSecureOrLoopback, "\(scheme)://\(host)")
        }
        let no = [("http", "example.com"), ("http", "127.evil.com"), ("http", "127.0.0.1.evil.com"),
                  ("http", "128.0.0.1"), ("http", "127.0.0.256"), ("http", "127.0.0"), ("http", "10.0.0.2"),
                  ("http", "localhost.evil.com"), ("http", "::2"), ("http", "0.0.0.0"), ("http", "127..0.1")]
        for (scheme, host) in no {
            #expect(!Endpoint(scheme: scheme, host: host, port: 1).isSecureOrLoopback, "\(scheme)://\(host)")
        }
    }
}
