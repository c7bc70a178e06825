@testable import FBStorage
import FoundationEssentials
import Testing

@Suite struct ModelJSONTests {
    private func parse(_ s: String) -> JSONValue? { JSONValue.parse(Array(s.utf8)) }
    private func text(_ v: JSONValue) -> String { String(decoding: v.serialized(), as: UTF8.self) }

    @Test func parsesScalars() {
        #expect(parse("null") == .null)
        #expect(parse(" true ") == .bool(true))
        #expect(parse("false") == .bool(false))
        #expect(parse("0") == .number("0"))
        #expect(parse("-12.5e+3") == .number("-12.5e+3"))
        #expect(parse("\"a\"") == .string("a"))
        #expect(parse("\u{FEFF}{}") == .object([:]))
    }

    @Test func parsesNested() {
        let v = parse(#"{"a":[1,{"b":null}],"c":{"d":"e"},"a2":[]}"#)
        #expect(v == .object(["a": .array([.number("1"), .object(["b": .null])]),
                              "c": .object(["d": .string("e")]), "a2": .array([])]))
        #expect(v?["c"]?["d"]?.stringValue == "e")
        #expect(v?["missing"] == nil)
        #expect(v?["a"]?["x"] == nil)
    }

    @Test func stringEscapes() {
        #expect(parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(parse(#""\u00e9\u20AC""#) == .string("é€"))
        #expect(parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(parse(#""\ud83d x""#) == .string("\u{FFFD} x"))   // lone high surrogate
        #expect(parse(#""\ude00""#) == .string("\u{FFFD}"))       // lone low surrogate
        #expect(parse("\"raw é 😀\"") == .string("raw é 😀"))
    }

    @Test(arguments: ["", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-",
                      "1e", "+1", "tru", "nul", "\"abc", "\"a\nb\"", "\"\\x\"", "\"\\u12\"", "[1 2]",
                      "{} {}", "NaN", "Infinity", "'a'", "{\"a\":}", "[", "\"\\u00zz\""])
    func refusesInvalid(input: String) {
        #expect(parse(input) == nil)
    }

    @Test func refusesInvalidUTF8Gracefully() {
        // Invalid UTF-8 inside a string becomes U+FFFD rather than failing or trapping.
        let v = JSONValue.parse([0x22, 0xFF, 0x61, 0x22])
        #expect(v == .string("\u{FFFD}a"))
    }

    @Test func deepNestingIsRefusedNotCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(parse(deep) == nil)
        let ok = String(repeating: "[", count: JSONValue.maxDepth) + String(repeating: "]", count: JSONValue.maxDepth)
        #expect(parse(ok) != nil)
        let tooDeep = "[" + ok + "]"
        #expect(parse(tooDeep) == nil)
        let objects = String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(parse(objects) == nil)
    }

    @Test func int64Value() {
        #expect(JSONValue.number("12").int64Value == 12)
        #expect(JSONValue.number("-3").int64Value == -3)
        #expect(JSONValue.number("1.2e1").int64Value == 12)
        #expect(JSONValue.number("1.5").int64Value == nil)
        #expect(JSONValue.number("1e999").int64Value == nil)
        #expect(JSONValue.number("99999999999999999999999").int64Value == nil)
        #expect(JSONValue.number("9223372036854775807").int64Value == Int64.max)
        #expect(JSONValue.number("9.3e18").int64Value == nil)
        #expect(JSONValue.string("1473948546121000").int64Value == 1_473_948_546_121_000)
        #expect(JSONValue.string("12a").int64Value == nil)
        #expect(JSONValue.bool(true).int64Value == nil)
    }

    @Test func serializesCompactSortedUnescapedSlash() {
        let v = JSONValue.object(["b": .number("1"), "a": .array([.null, .bool(true), .string("x/y")]),
                                  "é": .string("😀"), "Z": .object([:])])
        #expect(text(v) == #"{"Z":{},"a":[null,true,"x/y"],"b":1,"é":"😀"}"#)
    }

    @Test func serializesEscapes() {
        #expect(text(.string("\"\\\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F}")) == #""\"\\\n\r\t\b\f\u0001\u001f"# + "\u{7F}\"")
    }

    @Test func roundTrip() {
        let source = #"{"a":[1,-2.5e-3,"s\"q"],"b":{"c":null,"d":false},"e":"\u0000"}"#
        guard let v = parse(source) else {
            Issue.record("did not parse")
            return
        }
        #expect(parse(text(v)) == v)
    }

    @Test func duplicateKeysLastWins() {
        #expect(parse(#"{"a":1,"a":2}"#) == .object(["a": .number("2")]))
    }

    @Test func codableRoundTrip() throws {
        // JSONValue is also Codable, through JSONEncoder/JSONDecoder.
        let v = JSONValue.object(["a": .array([.number("1"), .string("x"), .null, .bool(false)])])
        let data = try JSONEncoder().encode(v)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == v)
    }
}
