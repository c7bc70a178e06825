#if canImport(Glibc)
import Glibc
#endif

/// The CA certificates https trusts when no CA file is set, found as Go's crypto/x509 finds them
/// on Linux: `SSL_CERT_FILE`, else the first bundle of the known distribution paths; and
/// `SSL_CERT_DIR` (colon-separated), else the known directories. A libcurl built for one
/// distribution (the wheel's) only knows that distribution's path.
public enum SystemTrust {
    /// Bundle files, in Go's order (plus Arch's extracted bundle).
    static let bundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",                // Debian, Ubuntu, Gentoo, Arch
        "/etc/pki/tls/certs/ca-bundle.crt",                  // Fedora, RHEL 6
        "/etc/ssl/ca-bundle.pem",                            // openSUSE
        "/etc/pki/tls/cacert.pem",                           // OpenELEC
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // CentOS, RHEL 7+
        "/etc/ssl/cert.pem",                                 // Alpine
        "/etc/ca-certificates/extracted/tls-ca-bundle.pem",  // Arch
    ]
    /// Hashed certificate directories (`openssl rehash`).
    static let directoryPaths = ["/etc/ssl/certs", "/etc/pki/tls/certs"]

    public struct Locations: Sendable, Equatable {
        /// The bundle file, or nil when none exists (libcurl's built-in default then applies).
        public var file: String?
        /// Certificate directories, colon-separated, or nil.
        public var directory: String?
    }

    /// Looked up once, at the first https request (or the first call).
    public static let discovered = discover(environment: { getenv($0).map { String(cString: $0) } },
                                            exists: { access($0, R_OK) == 0 })

    static func discover(environment: (String) -> String?, exists: (String) -> Bool) -> Locations {
        let fileCandidates = environment("SSL_CERT_FILE").flatMap { $0.isEmpty ? nil : [$0] } ?? bundlePaths
        let directoryCandidates = environment("SSL_CERT_DIR").flatMap {
            $0.isEmpty ? nil : $0.split(separator: ":").map(String.init)
        } ?? directoryPaths
        let directories = directoryCandidates.filter(exists)
        return Locations(file: fileCandidates.first(where: exists),
                         directory: directories.isEmpty ? nil : directories.joined(separator: ":"))
    }
}
