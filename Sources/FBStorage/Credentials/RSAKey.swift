import CCrypto

/// An RSA private key held by libcrypto: signs RS256 (RSASSA-PKCS1-v1_5, SHA-256), the signature
/// of service-account assertions and V4 signed URLs. Its material never leaves libcrypto.
final class RSAKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// Reads a PEM private key (PKCS#8 or PKCS#1).
    /// - Throws: `credentialInvalid` when the text is no PEM private key, or not an RSA one.
    init(pem: String) throws(StorageError) {
        let key = pem.withCString { ccrypto_private_key_from_pem($0, Int32(clamping: pem.utf8.count)) }
        guard let key else { throw StorageError(code: .credentialInvalid, message: "The private key is not a readable PEM private key") }
        guard ccrypto_is_rsa(key) != 0 else {
            EVP_PKEY_free(key)
            throw StorageError(code: .credentialInvalid, message: "The private key is not an RSA key (RS256 needs one)")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The RS256 signature of `data`.
    func sign(_ data: [UInt8]) throws(StorageError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(ccrypto_key_size(key)))
        var length = signature.count
        let ok = data.withUnsafeBufferPointer { bytes in
            ccrypto_sign_rs256(key, bytes.baseAddress, bytes.count, &signature, &length)
        }
        guard ok == 1 else { throw StorageError(code: .internalError, message: "libcrypto could not sign with the private key") }
        return Array(signature.prefix(length))
    }
}

enum SHA256 {
    /// The digest of `data` as lowercase hex (V4 signing's form).
    static func hex(_ data: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = data.withUnsafeBufferPointer { ccrypto_sha256($0.baseAddress, $0.count, &digest) }
        return Hex.lowercase(digest)
    }
}

enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func lowercase(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
