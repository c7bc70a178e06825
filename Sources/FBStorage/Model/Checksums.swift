import CChecksums

/// A running CRC-32C (Castagnoli), computed in C with SSE4.2 when the CPU has it.
struct CRC32C: Sendable, Equatable {
    /// The CRC of the bytes so far (0 for none).
    private(set) var value: UInt32 = 0

    /// A CRC of no bytes.
    init() {}

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = fbs_crc32c_update(value, base, bytes.count)
    }

    /// Adds bytes.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Base64 of the value as 4 big-endian bytes (as production and `x-goog-hash` send it).
    var base64: String {
        let v = value
        return Base64.encode([UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)])
    }

    /// True when the server's `crc32c` equals this value. Accepts base64 of the big-endian
    /// value (production) or a decimal string (the official emulator); surrounding whitespace
    /// is ignored. Anything unparsable is `false`.
    func matches(server: String) -> Bool {
        let s = server.trimmingASCIIWhitespace()
        if !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return UInt32(s) == value
        }
        guard let data = Base64.decode(s), data.count == 4 else { return false }
        let decoded = data.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return decoded == value
    }

    /// True when the CPU supports the hardware implementation.
    static var hardwareAvailable: Bool { fbs_crc32c_hardware_available() != 0 }

    /// True when `update` currently uses the hardware implementation.
    static var usingHardware: Bool { fbs_crc32c_using_hardware() != 0 }

    /// Makes `update` use the portable implementation (`true`) or the hardware one when
    /// available (`false`), process-wide. For tests and benchmarks.
    static func forcePortable(_ force: Bool) {
        fbs_crc32c_force_portable(force ? 1 : 0)
    }

    /// The CRC of `crc`'s bytes followed by `bytes`, with the portable implementation.
    static func updatePortable(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return fbs_crc32c_update_portable(crc, base, bytes.count)
    }

    /// The CRC of `crc`'s bytes followed by `bytes`, with the hardware implementation (the
    /// portable one when the CPU lacks it).
    static func updateHardware(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return fbs_crc32c_update_hardware(crc, base, bytes.count)
    }
}

/// A running MD5 (RFC 1321).
struct MD5: Sendable {
    private var context = fbs_md5_ctx()

    /// An MD5 of no bytes.
    init() {
        fbs_md5_init(&context)
    }

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        fbs_md5_update(&context, base, bytes.count)
    }

    /// Adds bytes.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 16-byte digest.
    consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        digest.withUnsafeMutableBufferPointer { out in
            fbs_md5_final(&context, out.baseAddress)
        }
        return digest
    }

    /// Base64 of the digest (the form of the server's `md5Hash`).
    consuming func finalizeBase64() -> String {
        Base64.encode(finalize())
    }

    /// Base64 of the digest of the bytes so far (the running hash is not consumed).
    var base64: String {
        let copy = self
        return copy.finalizeBase64()
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces, tabs, CR and LF.
    func trimmingASCIIWhitespace() -> String {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { !isSpace($0) }),
              let last = utf8.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
