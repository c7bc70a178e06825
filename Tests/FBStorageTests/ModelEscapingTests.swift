@testable import FBStorage
import Testing

@Suite struct ModelEscapingTests {
    @Test func objectNameExamples() {
        #expect(PercentEscaping.objectName("path/to/object") == "path%2Fto%2Fobject")
        #expect(PercentEscaping.objectName("a+b c&d;e?f#g%h") == "a%2Bb%20c%26d%3Be%3Ff%23g%25h")
        #expect(PercentEscaping.objectName("o?") == "o%3F")
        #expect(PercentEscaping.objectName("b/") == "b%2F")
        #expect(PercentEscaping.objectName("foo/bar/baz.png") == "foo%2Fbar%2Fbaz.png")
        #expect(PercentEscaping.objectName("") == "")
        #expect(PercentEscaping.objectName("é😀") == "%C3%A9%F0%9F%98%80")
    }

    @Test func objectNameKeepsExactlyTheAllowedSet() {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,=:@".utf8)
        for byte in UInt8(0)...UInt8(127) {
            let s = String(UnicodeScalar(byte))
            let escaped = PercentEscaping.objectName(s)
            if kept.contains(byte) {
                #expect(escaped == s)
            } else {
                #expect(escaped == "%" + hex(byte), "byte \(byte)")
            }
        }
    }

    @Test func queryValueKeepsExactlyEncodeURIComponentSet() {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()".utf8)
        for byte in UInt8(0)...UInt8(127) {
            let s = String(UnicodeScalar(byte))
            let escaped = PercentEscaping.queryValue(s)
            if kept.contains(byte) {
                #expect(escaped == s)
            } else {
                #expect(escaped == "%" + hex(byte), "byte \(byte)")
            }
        }
        #expect(PercentEscaping.queryValue("o/") == "o%2F")
        #expect(PercentEscaping.queryValue("a+b c") == "a%2Bb%20c")
        #expect(PercentEscaping.queryValue("YS9mLw==") == "YS9mLw%3D%3D")
        #expect(PercentEscaping.queryValue("ü") == "%C3%BC")
    }

    @Test func decode() {
        #expect(PercentEscaping.decode("a%2Fb%20c") == "a/b c")
        #expect(PercentEscaping.decode("plain") == "plain")
        #expect(PercentEscaping.decode("a+b") == "a+b")
        #expect(PercentEscaping.decode("%c3%a9") == "é")
        #expect(PercentEscaping.decode("%252F") == "%2F")
        #expect(PercentEscaping.decode("") == "")
    }

    @Test(arguments: ["%", "%2", "%zz", "a%g0", "%F0%9F", "%FF", "%C3", "%ED%A0%80"])
    func decodeRefusesInvalid(input: String) {
        #expect(PercentEscaping.decode(input) == nil)
    }

    @Test func roundTripOfAllBytesAndUnicode() {
        var s = ""
        for v in 1...0x2FF { if let u = UnicodeScalar(v) { s.unicodeScalars.append(u) } }
        s += "😀👩‍👩‍👧中文"
        #expect(PercentEscaping.decode(PercentEscaping.objectName(s)) == s)
        #expect(PercentEscaping.decode(PercentEscaping.queryValue(s)) == s)
    }

    @Test func longNamesAreFast() {
        let long = String(repeating: "dir/ file+name?", count: 70_000) // ~1 MB
        let clock = ContinuousClock()
        var escaped = ""
        let elapsed = clock.measure {
            escaped = PercentEscaping.objectName(long)
        }
        #expect(PercentEscaping.decode(escaped) == long)
        #expect(elapsed < .seconds(2))
    }

    private func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
