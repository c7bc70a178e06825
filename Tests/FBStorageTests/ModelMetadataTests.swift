@testable import FBStorage
import Testing

@Suite struct ModelMetadataTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    private func decode(_ s: String) throws(StorageError) -> StorageMetadata {
        try StorageMetadata.decode(json: Array(s.utf8))
    }

    static let emulatorResource = #"""
    {"name":"dir/someFile.png","bucket":"b","generation":"1700000000123","metageneration":"2",
     "contentType":"image/png","timeCreated":"2023-11-14T22:13:20.123Z","updated":"2023-11-14T22:13:21.000Z",
     "storageClass":"STANDARD","size":"11","md5Hash":"XrY7u+Ae7tCTyyK7j1rNww==","contentEncoding":"identity",
     "contentDisposition":"inline","crc32c":"3381945770","etag":"abcdefghijklmnopqrstuvwxyz0",
     "downloadTokens":"tok-1,tok-2","metadata":{"foo":"bar","n":42,"t":true,"f":1.5,"gone":null,"o":{"x":1},"a":[1]}}
    """#

    // MARK: decode

    @Test func decodesServerResource() throws {
        let m = try decode(Self.emulatorResource)
        #expect(m.bucket == "b")
        #expect(m.fullPath == "dir/someFile.png")
        #expect(m.name == "someFile.png")
        #expect(m.generation == 1_700_000_000_123)
        #expect(m.metageneration == 2)
        #expect(m.size == 11)
        #expect(m.contentType == .value("image/png"))
        #expect(m.contentEncoding == .value("identity"))
        #expect(m.contentDisposition == .value("inline"))
        #expect(m.cacheControl == .unset)
        #expect(m.contentLanguage == .unset)
        #expect(m.timeCreatedMillis == 1_700_000_000_123)
        #expect(m.updatedMillis == 1_700_000_001_000)
        #expect(m.md5Hash == "XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(m.crc32c == "3381945770")
        #expect(m.etag == "abcdefghijklmnopqrstuvwxyz0")
        #expect(m.downloadTokens == ["tok-1", "tok-2"])
        #expect(m.customMetadata == ["foo": "bar", "n": "42", "t": "true", "f": "1.5"])
        #expect(!m.clearsCustomMetadata)
    }

    /// wire-protocol.md §7 vector 14: the parse of a server resource.
    @Test func vector14_parse() throws {
        let m = try decode(#"{"bucket":"b","generation":"1473948546121000","metageneration":"1","name":"foo/bar/baz.png","size":"1024","timeCreated":"2016-09-15T14:09:06.121Z","updated":"2016-09-15T14:09:06.121Z","md5Hash":"deadbeef","cacheControl":"max-age=60","contentDisposition":"inline","contentEncoding":"gzip","contentLanguage":"en","contentType":"image/png","metadata":{"a":"b"},"downloadTokens":"a,b,c"}"#)
        #expect(m.bucket == "b")
        #expect(m.generation == 1_473_948_546_121_000)
        #expect(m.metageneration == 1)
        #expect(m.fullPath == "foo/bar/baz.png")
        #expect(m.name == "baz.png")
        #expect(m.size == 1024)
        #expect(m.timeCreatedMillis == 1_473_948_546_121)
        #expect(m.updatedMillis == 1_473_948_546_121)
        #expect(m.md5Hash == "deadbeef")
        #expect(m.cacheControl.string == "max-age=60")
        #expect(m.contentDisposition.string == "inline")
        #expect(m.contentEncoding.string == "gzip")
        #expect(m.contentLanguage.string == "en")
        #expect(m.contentType.string == "image/png")
        #expect(m.customMetadata == ["a": "b"])
        #expect(m.downloadTokens.first == "a")
    }

    /// firebase-apple-sdk.md §5 #21: generation "12345", size 1337, name path/to/object.
    @Test func appleVector21_initializeFullMetadata() throws {
        let m = try decode(#"{"generation":"12345","size":1337,"name":"path/to/object","metageneration":7}"#)
        #expect(m.generation == 12345)
        #expect(m.size == 1337)       // a number is accepted as well as a string
        #expect(m.metageneration == 7)
        #expect(m.fullPath == "path/to/object")
        #expect(m.name == "object")
    }

    @Test func decodesRootlessNames() throws {
        #expect(try decode(#"{"name":"top"}"#).name == "top")
        #expect(try decode(#"{"name":""}"#).name == "")
        #expect(try decode(#"{}"#).name == nil)
    }

    @Test func downloadTokensDropEmptyEntries() throws {
        #expect(try decode(#"{"downloadTokens":""}"#).downloadTokens == [])
        #expect(try decode(#"{"downloadTokens":",a,,b,"}"#).downloadTokens == ["a", "b"])
        #expect(try decode(#"{"downloadTokens":7}"#).downloadTokens == [])
    }

    @Test func wrongTypesAreIgnored() throws {
        let m = try decode(#"{"name":5,"bucket":[],"size":"x","generation":{},"metageneration":1.5,"contentType":3,"cacheControl":null,"timeCreated":"yesterday","updated":12,"md5Hash":false,"metadata":"str","etag":null}"#)
        #expect(m == StorageMetadata())
        let huge = try decode(#"{"size":1e400,"generation":"99999999999999999999999","metageneration":-1e999}"#)
        #expect(huge.size == nil && huge.generation == nil && huge.metageneration == nil)
    }

    @Test(arguments: ["", "null", "[]", "\"s\"", "42", "{", "<html>Not Found</html>", "Not Found", "{\"a\":1}x"])
    func invalidJSONIsUnknownError(body: String) {
        do {
            _ = try decode(body)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.code == .unknown)
            #expect(error.message == "The server sent metadata that is not valid JSON")
            #expect(error.serverResponse == (body.isEmpty ? nil : body))
        }
    }

    @Test func garbageNeverCrashes() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]":,0123456789.-eE truefalsnul\"#.utf8) + [0xFF, 0xC3]
        for _ in 0..<3000 {
            let n = Int(rng.next(upperBound: UInt(64)))
            let bytes = (0..<n).map { _ in alphabet[Int(rng.next(upperBound: UInt(alphabet.count)))] }
            _ = try? StorageMetadata.decode(json: bytes)
            _ = try? ListResponse.decode(json: bytes)
        }
        let deep = Array((String(repeating: "{\"metadata\":", count: 50_000) + "1").utf8)
        #expect(throws: StorageError.self) { try StorageMetadata.decode(json: deep) }
    }

    // MARK: custom metadata editing

    @Test func customEditing() {
        var m = StorageMetadata()
        m.setCustom("a", "1")
        m.setCustom("b", nil)
        #expect(m.customMetadata.count == 2)
        #expect(m.custom("a") == "1")
        #expect(m.custom("b") == nil)
        #expect(m.customMetadata["b"] == .some(nil))
        m.removeCustom("b")
        #expect(m.customMetadata["b"] == nil)
        #expect(m.customMetadata.count == 1)
        m.clearCustom()
        #expect(m.customMetadata.isEmpty)
        #expect(m.clearsCustomMetadata)
    }

    @Test func sortedCustomKeysAreInByteOrder() {
        var m = StorageMetadata()
        for k in ["b", "é", "B", "a", "e", "z", "~"] { m.setCustom(k, "v") }
        // Byte order: "B" (0x42) < "a" < "b" < "e" < "z" < "~" < "é" (0xC3…).
        #expect(m.sortedCustomKeys == ["B", "a", "b", "e", "z", "~", "é"])
    }

    /// A known limit of `[String: String?]`: Swift compares strings by canonical equivalence,
    /// so a precomposed and a decomposed spelling are one key.
    @Test func canonicallyEquivalentKeysAreOneKey() {
        var m = StorageMetadata()
        m.setCustom("\u{E9}", "1")
        m.setCustom("e\u{301}", "2")
        #expect(m.customMetadata.count == 1)
        #expect(m.custom("\u{E9}") == "2")
    }

    @Test func fieldValueHelpers() {
        #expect(FieldValue("x") == .value("x"))
        #expect(FieldValue(nil) == .null)
        #expect(FieldValue.value("x").string == "x")
        #expect(FieldValue.null.string == nil)
        #expect(FieldValue.unset.string == nil)
        #expect(!FieldValue.unset.isSet && FieldValue.null.isSet)
    }

    // MARK: upload JSON

    /// wire-protocol.md §7 vectors 7/8: the metadata part of an upload.
    @Test func uploadJSONVector() {
        var m = StorageMetadata()
        m.contentType = .value("application/jason")
        m.setCustom("foo", "bar")
        #expect(text(m.uploadJSON(objectPath: "o")) == #"{"name":"o","contentType":"application/jason","metadata":{"foo":"bar"}}"#)
    }

    @Test func uploadJSONOnlySetValues() {
        var m = StorageMetadata()
        #expect(text(m.uploadJSON(objectPath: "a/b c")) == #"{"name":"a/b c"}"#)
        m.cacheControl = .null                 // null at upload = absent
        m.contentLanguage = .value("fr")
        m.contentDisposition = .value("inline; filename=\"x\"")
        m.contentEncoding = .value("gzip")
        m.setCustom("gone", nil)               // nil at upload = absent
        #expect(text(m.uploadJSON(objectPath: "p")) ==
                #"{"name":"p","contentDisposition":"inline; filename=\"x\"","contentEncoding":"gzip","contentLanguage":"fr"}"#)
        m.setCustom("k2", "v2")
        m.setCustom("k1", "v1")
        #expect(text(m.uploadJSON(objectPath: "p")).hasSuffix(#""contentLanguage":"fr","metadata":{"k1":"v1","k2":"v2"}}"#))
    }

    @Test func uploadJSONNeverSendsReadOnlyFields() throws {
        var m = try decode(Self.emulatorResource)
        m.contentType = .value("text/plain")
        let body = text(m.uploadJSON(objectPath: "x"))
        for key in ["bucket", "size", "generation", "md5Hash", "crc32c", "etag", "downloadTokens", "timeCreated", "updated"] {
            #expect(!body.contains("\"\(key)\""), "\(key) in \(body)")
        }
    }

    // MARK: update JSON

    /// wire-protocol.md §7 vector 5: the PATCH body.
    @Test func updateJSONVector5() {
        var m = StorageMetadata()
        m.contentType = .value("application/jason")
        m.setCustom("foo", "bar")
        #expect(text(m.updateJSON()) == #"{"contentType":"application/jason","metadata":{"foo":"bar"}}"#)
    }

    /// firebase-apple-sdk.md §5 #22 adapted: we send only what changed and never
    /// `"bucket":""` or `"metadata":null` for untouched fields.
    @Test func appleVector22_updatedMetadata() {
        var m = StorageMetadata()
        m.contentLanguage = .value("new")
        m.setCustom("foo", "new")
        #expect(text(m.updateJSON()) == #"{"contentLanguage":"new","metadata":{"foo":"new"}}"#)
    }

    @Test func updateJSONNothingSet() throws {
        #expect(text(StorageMetadata().updateJSON()) == "{}")
        // Metadata fetched from the server and sent back unchanged sends its writable fields only.
        let fetched = try decode(#"{"name":"a","bucket":"b","size":"3","contentType":"x/y","crc32c":"0"}"#)
        #expect(text(fetched.updateJSON()) == #"{"contentType":"x/y"}"#)
    }

    @Test func updateJSONNullsAndDeletes() {
        var m = StorageMetadata()
        m.cacheControl = .null
        m.contentType = .value("text/plain")
        m.setCustom("keep", "v")
        m.setCustom("gone", nil)
        #expect(text(m.updateJSON()) ==
                #"{"cacheControl":null,"contentType":"text/plain","metadata":{"gone":null,"keep":"v"}}"#)
    }

    @Test func updateJSONAllFieldsSortedWithEscapes() {
        var m = StorageMetadata()
        m.contentType = .value("a\"b")
        m.contentLanguage = .null
        m.contentEncoding = .value("gzip")
        m.contentDisposition = .value("x/y")
        m.cacheControl = .value("no-cache")
        #expect(text(m.updateJSON()) ==
                #"{"cacheControl":"no-cache","contentDisposition":"x/y","contentEncoding":"gzip","contentLanguage":null,"contentType":"a\"b"}"#)
    }

    @Test func clearCustom() {
        var m = StorageMetadata()
        m.setCustom("a", "1")
        m.clearCustom()
        #expect(text(m.updateJSON()) == #"{"metadata":null}"#)
        #expect(m.updateJSONSteps().map(text) == [#"{"metadata":null}"#])
        // Clear, then set: one PATCH sends only the keys set; the steps clear first.
        m.setCustom("b", "2")
        m.contentType = .value("t/t")
        #expect(text(m.updateJSON()) == #"{"contentType":"t/t","metadata":{"b":"2"}}"#)
        #expect(m.updateJSONSteps().map(text) == [#"{"contentType":"t/t","metadata":null}"#, #"{"metadata":{"b":"2"}}"#])
        // Removing the keys again brings back the plain clear.
        m.removeCustom("b")
        #expect(text(m.updateJSON()) == #"{"contentType":"t/t","metadata":null}"#)
    }

    @Test func updateJSONStepsWithoutClearIsOneBody() {
        var m = StorageMetadata()
        m.setCustom("a", "1")
        #expect(m.updateJSONSteps() == [m.updateJSON()])
    }

    @Test func updateJSONIsValidJSON() {
        var m = StorageMetadata()
        m.setCustom("ключ\n\"", "значение\u{0}\\")
        m.contentType = .value("😀")
        guard let parsed = JSONValue.parse(m.updateJSON()) else {
            Issue.record("not JSON")
            return
        }
        #expect(parsed["metadata"]?["ключ\n\""]?.stringValue == "значение\u{0}\\")
        #expect(parsed["contentType"]?.stringValue == "😀")
    }
}
