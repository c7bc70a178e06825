#if canImport(Glibc)
import Glibc
#endif

/// The signed-in user kept in a file the caller names: refresh token and profile as JSON,
/// mode 0600, replaced atomically (written to a temporary file, then renamed over it), so a
/// crash leaves the old file or the new one, never half of one.
struct AuthPersistence: Sendable {
    let path: String

    /// Checks that the file can be written where it is named: its folder exists and is writable
    /// (a session that could not be saved would be lost without a word).
    func checkWritable() throws(StorageError) {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        guard access(folder.isEmpty ? "/" : folder, W_OK) == 0 else {
            throw failure("cannot be written: its folder '\(folder)' \(errno == ENOENT ? "does not exist" : "is not writable")")
        }
    }

    /// The saved session, or nil when there is no file.
    /// - Throws: `invalidArgument` naming the file when it cannot be read or is malformed.
    func load() throws(StorageError) -> AuthUser? {
        let bytes: [UInt8]
        do throws(SmallFile.Failure) {
            bytes = try SmallFile.read(path, limit: 1 << 20)
        } catch {
            switch error {
            case .missing: return nil
            case .unreadable(let reason): throw failure("cannot be read (\(reason))")
            case .tooLarge: throw failure("is larger than 1 MiB: not a session file")
            }
        }
        guard let object = JSONValue.parse(bytes)?.objectValue,
              let uid = object["uid"]?.stringValue, !uid.isEmpty,
              let refreshToken = object["refreshToken"]?.stringValue, !refreshToken.isEmpty else {
            throw failure("is not a session file (expected JSON with uid and refreshToken)")
        }
        let profile = AuthUser.Profile(uid: uid, email: object["email"]?.stringValue,
                                       displayName: object["displayName"]?.stringValue,
                                       photoURL: object["photoURL"]?.stringValue,
                                       signInProvider: object["signInProvider"]?.stringValue,
                                       isEmailVerified: object["emailVerified"] == .bool(true))
            .with(accountOf: object)
        return AuthUser(restoring: profile, refreshToken: refreshToken)
    }

    /// Writes `user` (nil removes the file).
    func save(_ user: AuthUser?) throws(StorageError) {
        guard let user else {
            if unlink(path) != 0 && errno != ENOENT { throw failure("cannot be removed (\(String(cString: strerror(errno))))") }
            return
        }
        var members: [(String, JSONValue)] = [("version", .number(1)), ("uid", .string(user.uid)),
                                              ("refreshToken", .string(user.refreshToken))]
        if let email = user.email { members.append(("email", .string(email))) }
        // Kept so that a restored session knows it before its first refresh (files without it: false).
        members.append(("emailVerified", .bool(user.isEmailVerified)))
        if let name = user.displayName { members.append(("displayName", .string(name))) }
        if let photo = user.photoURL { members.append(("photoURL", .string(photo))) }
        if let provider = user.signInProvider { members.append(("signInProvider", .string(provider))) }
        // The account details under the names of the answers they come from (`with(accountOf:)` reads both).
        if !user.providers.isEmpty { members.append(("providerUserInfo", .array(user.providers.map(\.json)))) }
        if let created = user.creationTime { members.append(("createdAt", .number(Int64(created * 1000)))) }
        if let signedIn = user.lastSignInTime { members.append(("lastLoginAt", .number(Int64(signedIn * 1000)))) }
        var bytes: [UInt8] = []
        JSONValue.writeObject(members, into: &bytes)
        bytes.append(0x0A)
        try write(bytes)
    }

    private func write(_ bytes: [UInt8]) throws(StorageError) {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("cannot be written (\(String(cString: strerror(errno))))") }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw failure("cannot be written (\(reason))")
            }
            written += n
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw failure("cannot be written (\(reason))")
        }
    }

    private func failure(_ what: String) -> StorageError {
        StorageError(code: .invalidArgument, message: "The auth persistence file '\(path)' \(what)")
    }
}
