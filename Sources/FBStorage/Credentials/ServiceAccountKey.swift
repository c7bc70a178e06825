#if canImport(Glibc)
import Glibc
#endif

/// A service account's JSON key, as the Cloud console downloads it (`"type": "service_account"`):
/// who it is (`client_email`), where its access tokens come from (`token_uri`) and its RSA
/// private key, held by libcrypto. Its messages never quote the key file's contents.
public final class ServiceAccountKey: Sendable {
    public let clientEmail: String
    public let privateKeyID: String?
    public let projectID: String?
    /// Where assertions are exchanged for access tokens; `https://oauth2.googleapis.com/token`
    /// when the key does not say.
    public let tokenURI: String
    let privateKey: RSAKey

    static let defaultTokenURI = "https://oauth2.googleapis.com/token"

    /// Reads a key from its JSON text.
    /// - Throws: `credentialInvalid` naming what is wrong (not JSON, another key type, a
    ///   missing field, an unreadable private key).
    public convenience init(json: [UInt8]) throws(StorageError) {
        try self.init(json: json, origin: "The service-account key")
    }

    /// Reads the key file at `path`.
    /// - Throws: `credentialInvalid` for a missing, unreadable or malformed file.
    public convenience init(path: String) throws(StorageError) {
        let origin = "The service-account key file '\(path)'"
        let bytes: [UInt8]
        do throws(SmallFile.Failure) {
            bytes = try SmallFile.read(path, limit: 1 << 20)
        } catch {
            let problem = switch error {
            case .missing: "does not exist"
            case .unreadable(let reason): "cannot be read (\(reason))"
            case .tooLarge: "is larger than 1 MiB: not a key"
            }
            throw StorageError(code: .credentialInvalid, message: "\(origin) \(problem)")
        }
        try self.init(json: bytes, origin: origin)
    }

    /// The key named by `GOOGLE_APPLICATION_CREDENTIALS`, as Google's client libraries find it.
    /// - Throws: `credentialInvalid` when the variable is unset or empty, or its file is no key.
    public static func fromEnvironment() throws(StorageError) -> ServiceAccountKey {
        guard let variable = getenv("GOOGLE_APPLICATION_CREDENTIALS"), variable.pointee != 0 else {
            throw StorageError(code: .credentialInvalid, message: "GOOGLE_APPLICATION_CREDENTIALS is not set")
        }
        return try ServiceAccountKey(path: String(cString: variable))
    }

    private init(json: [UInt8], origin: String) throws(StorageError) {
        func invalid(_ problem: String) -> StorageError {
            StorageError(code: .credentialInvalid, message: "\(origin) \(problem)")
        }
        guard let object = JSONValue.parse(json)?.objectValue else { throw invalid("is not a JSON object") }
        guard let type = object["type"]?.stringValue else { throw invalid("has no \"type\": not a service-account key") }
        guard type == "service_account" else {
            throw invalid("is of type \"\(type.prefix(40))\", not \"service_account\" (a user's or an external account's credentials cannot sign)")
        }
        func field(_ name: String) throws(StorageError) -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else { throw invalid("has no \"\(name)\"") }
            return value
        }
        clientEmail = try field("client_email")
        let pem = try field("private_key")
        privateKeyID = object["private_key_id"]?.stringValue
        projectID = object["project_id"]?.stringValue
        tokenURI = object["token_uri"]?.stringValue ?? Self.defaultTokenURI
        // The assertion is a credential: it goes over https, or to a local endpoint (an emulator).
        guard let endpoint = TokenEndpoint(tokenURI)?.endpoint, endpoint.isSecureOrLoopback else {
            throw invalid("has a \"token_uri\" that is neither an https URL nor a loopback http one")
        }
        do {
            privateKey = try RSAKey(pem: pem)
        } catch {
            throw invalid("has an unusable \"private_key\": \(error.message)")
        }
    }
}

/// The scheme, host and port of a `token_uri`: the endpoint its requests are checked against.
struct TokenEndpoint {
    let endpoint: Endpoint

    init?(_ uri: String) {
        let scheme: String
        if uri.hasPrefix("https://") { scheme = "https" } else if uri.hasPrefix("http://") { scheme = "http" } else { return nil }
        let rest = uri.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = Substring(authority)
        var port = scheme == "https" ? 443 : 80
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            host = authority[..<colon]
            port = p
        }
        endpoint = Endpoint(scheme: scheme, host: String(host), port: port)
    }
}
