// CRC32C (both implementations) and MD5 against published vectors, and against each other on
// every length and alignment the SSE4.2 path treats differently.
import Testing

@testable import FBStorage

@Suite("Checksums")
struct ModelChecksumsTests {
    private func crc(_ text: String) -> UInt32 {
        var crc = CRC32C()
        crc.update(Array(text.utf8))
        return crc.value
    }

    @Test("CRC32C matches the published check values")
    func crc32cVectors() {
        #expect(crc("") == 0)
        #expect(crc("123456789") == 0xE306_9283)   // the CRC catalogue's check value
        #expect(crc("hello world") == 0xC994_65AA)
        var zeros = CRC32C()
        zeros.update([UInt8](repeating: 0, count: 32))
        #expect(zeros.value == 0x8A91_36AA)          // RFC 3720 B.4: 32 bytes of zeros
        var ones = CRC32C()
        ones.update([UInt8](repeating: 0xFF, count: 32))
        #expect(ones.value == 0x62A8_AB43)           // RFC 3720 B.4: 32 bytes of 0xFF
    }

    @Test("the hardware and portable CRC32C agree at every length, offset and split")
    func crc32cImplementationsAgree() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<5000).map { _ -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        bytes.withUnsafeBytes { all in
            for offset in 0..<9 {
                for length in [0, 1, 7, 8, 9, 63, 64, 65, 255, 256, 257, 1023, 1024, 3000, 4991 - offset] {
                    let slice = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)])
                    let portable = CRC32C.updatePortable(0, slice)
                    #expect(CRC32C.updateHardware(0, slice) == portable, "offset \(offset) length \(length)")
                    let split = length / 3
                    let running = CRC32C.updateHardware(CRC32C.updatePortable(0, UnsafeRawBufferPointer(rebasing: slice[..<split])),
                                                        UnsafeRawBufferPointer(rebasing: slice[split...]))
                    #expect(running == portable, "offset \(offset) length \(length) split \(split)")
                }
            }
        }
    }

    @Test("forcing the portable CRC32C switches the implementation in use, not the result")
    func crc32cForcePortable() {
        defer { CRC32C.forcePortable(false) }
        CRC32C.forcePortable(true)
        #expect(!CRC32C.usingHardware)
        #expect(crc("123456789") == 0xE306_9283)
        CRC32C.forcePortable(false)
        #expect(CRC32C.usingHardware == CRC32C.hardwareAvailable)
        #expect(crc("123456789") == 0xE306_9283)
    }

    @Test("a server's CRC32C matches in production's base64 and the official emulator's decimal")
    func crc32cServerForms() {
        var crc = CRC32C()
        crc.update(Array("hello world".utf8))
        #expect(crc.base64 == "yZRlqg==")
        #expect(crc.matches(server: "yZRlqg=="))
        #expect(crc.matches(server: " 3381945770 "))
        #expect(!crc.matches(server: "yZRlqw=="))
        #expect(!crc.matches(server: "3381945771"))
        #expect(!crc.matches(server: ""))
    }

    @Test("MD5 matches RFC 1321's test suite, in one update or many")
    func md5Vectors() {
        let vectors = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, hex) in vectors {
            var whole = MD5()
            whole.update(Array(text.utf8))
            #expect(whole.finalize().map { String($0, radix: 16).leftPadded() }.joined() == hex, "\(text)")
            var pieces = MD5()
            for byte in text.utf8 { pieces.update([byte]) }
            #expect(pieces.finalize().map { String($0, radix: 16).leftPadded() }.joined() == hex, "\(text) byte by byte")
        }
        var running = MD5()
        running.update(Array("abc".utf8))
        #expect(running.base64 == "kAFQmDzST7DWlj99KOF/cg==")
        running.update(Array("def".utf8))   // base64 did not consume the running hash
        #expect(running.base64 == "6AtQFwmJUPxYqtg8jBSXjg==")
    }
}

private extension String {
    func leftPadded() -> String { count == 1 ? "0" + self : self }
}
