@testable import FBStorage
import Testing

@Suite struct ModelBase64Tests {
    // RFC 4648 §10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test func encodesAndDecodesTheRFCVectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test func refusesWhatIsNotPaddedBase64() {
        for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "Zm 9", "====", "Zm9vYg=a"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func checksumsUseIt() {
        var crc = CRC32C()
        crc.update(Array("hello world".utf8))
        #expect(crc.base64 == "yZRlqg==")   // the wire protocol's hash vector
        #expect(crc.matches(server: "yZRlqg==") && crc.matches(server: "3381945770"))
        #expect(!crc.matches(server: "yZRlqh==") && !crc.matches(server: "yZRl"))
        var md5 = MD5()
        md5.update(Array("hello world".utf8))
        #expect(md5.base64 == "XrY7u+Ae7tCTyyK7j1rNww==")
    }
}
