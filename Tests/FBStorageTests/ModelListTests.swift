@testable import FBStorage
import Testing

@Suite struct ModelListTests {
    private func decode(_ s: String) throws(StorageError) -> ListResponse {
        try ListResponse.decode(json: Array(s.utf8))
    }

    /// wire-protocol.md §7 vector 3.
    @Test func vector3() throws {
        let r = try decode(#"{"prefixes":["a/f/"],"items":[{"name":"a/a","bucket":"b"},{"name":"a/b","bucket":"b"}],"nextPageToken":"YS9mLw=="}"#)
        #expect(r.prefixes == ["a/f/"])
        #expect(r.items == ["a/a", "a/b"])
        #expect(r.nextPageToken == "YS9mLw==")
    }

    @Test func emptyAndMissing() throws {
        #expect(try decode(#"{"prefixes":[],"items":[]}"#) == ListResponse(prefixes: [], items: [], nextPageToken: nil))
        #expect(try decode("{}") == ListResponse(prefixes: [], items: [], nextPageToken: nil))
        #expect(try decode(#"{"nextPageToken":""}"#).nextPageToken == nil)
        #expect(try decode(#"{"nextPageToken":5}"#).nextPageToken == nil)
        #expect(try decode(#"{"nextPageToken":null}"#).nextPageToken == nil)
    }

    @Test func malformedEntriesAreSkipped() throws {
        let r = try decode(#"{"prefixes":["p/",7,null,{"x":1},"q/"],"items":[{"name":"a","size":12,"bucket":null},{"bucket":"b"},"str",{"name":5},null,{"name":"b"}],"nextPageToken":"t"}"#)
        #expect(r.prefixes == ["p/", "q/"])
        #expect(r.items == ["a", "b"])
        #expect(r.nextPageToken == "t")
        let wrong = try decode(#"{"prefixes":"p/","items":{"name":"a"}}"#)
        #expect(wrong.prefixes.isEmpty && wrong.items.isEmpty)
    }

    @Test(arguments: ["", "Not Found", "[]", "null", "{\"items\":["])
    func nonJSONIsUnknown(body: String) {
        do {
            _ = try decode(body)
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.code == .unknown)
            #expect(error.serverResponse == (body.isEmpty ? nil : body))
        }
    }
}
