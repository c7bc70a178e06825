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

    @Test func repeatedKeysKeepTheLast() throws {
        let r = try decode(#"{"items":[{"name":"x"}],"items":[{"name":"a","name":"b"},{"name":"c","name":1}],"prefixes":["p/"],"prefixes":[],"nextPageToken":"t","nextPageToken":2}"#)
        #expect(r == ListResponse(prefixes: [], items: ["b"], nextPageToken: nil))
    }

    /// The pull-style decoder against the dictionary one it replaced (the oracle below), on
    /// documents built from list-shaped fragments: the same page, or the same refusal.
    @Test func agreesWithDecodingTheWholeTree() {
        func oracle(_ json: [UInt8]) -> ListResponse? {
            guard let object = JSONValue.parse(json)?.objectValue else { return nil }
            var token = object["nextPageToken"]?.stringValue
            if token?.isEmpty == true { token = nil }
            return ListResponse(prefixes: (object["prefixes"]?.arrayValue ?? []).compactMap(\.stringValue),
                                items: (object["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue },
                                nextPageToken: token)
        }
        let fragments = [#"{"#, #"}"#, #"["#, #"]"#, "\"", ",", ":", #""items""#, #""prefixes""#, #""name""#,
                         #""nextPageToken""#, #""a/b""#, #""\u00e9\n""#, "1", "null", "true", " ", #"{"name":"n"}"#]
        var rng = SplitMix64(seed: 0x5EED)   // the same documents every run
        var agreed = 0
        for _ in 0..<20_000 {
            let count = Int(rng.next(upperBound: UInt(14))) + 1
            let text = "{" + (0..<count).map { _ in fragments[Int(rng.next(upperBound: UInt(fragments.count)))] }.joined()
            let json = Array(text.utf8)
            let expected = oracle(json)
            let got = try? ListResponse.decode(json: json)
            #expect(got == expected, "\(text)")
            if expected != nil { agreed += 1 }
        }
        #expect(agreed > 50)   // enough valid pages among the random ones to mean something
    }
}

/// A seeded generator (SplitMix64), so a randomized test draws the same cases every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
