#if canImport(Glibc)
import Glibc
#endif

/// Where a desktop program keeps, between runs, what the SDKs keep in the system's keychain:
/// `$XDG_CONFIG_HOME/<program>` (`~/.config/<program>` without an absolute XDG_CONFIG_HOME), as the
/// XDG Base Directory specification places a user's settings. Missing folders are made with mode
/// 0700: their files hold refresh tokens.
public enum ConfigFolder {
    /// The program's folder, made if missing.
    /// - Throws: `invalidArgument` when `program` is not one path component, when neither
    ///   XDG_CONFIG_HOME nor HOME is an absolute path, or naming the folder that cannot be made.
    public static func path(program: String) throws(StorageError) -> String {
        guard !program.isEmpty, program != ".", program != "..", !program.contains("/"), !program.contains("\0") else {
            throw .invalidArgument("The configuration folder's name '\(program)' is not one path component")
        }
        let base: String
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            base = config
        } else if let home = environment("HOME"), home.hasPrefix("/") {
            base = home + "/.config"
        } else {
            throw .invalidArgument("Neither XDG_CONFIG_HOME nor HOME is an absolute path: no folder to keep settings in")
        }
        let folder = base + "/" + program
        try makeFolders(folder)
        return folder
    }

    /// The file name (without extension) for what `appName` keeps under `key`: the app name made
    /// file-safe (anything but ASCII letters, digits, '.', '_' and '-' becomes '_'), then the
    /// key's FNV-1a hash, which keeps same-named apps of different projects apart without writing
    /// the key into a name.
    static func fileName(appName: String, key: String) -> String {
        let safe = String(appName.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": Character(scalar)
            default: "_"
            }
        })
        return "\(safe)-\(fnv1aHex(key))"
    }

    /// FNV-1a (64 bits) in hex: stable across runs, builds and languages, unlike `Hasher`.
    private static func fnv1aHex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `mkdir -p` with mode 0700 for the folders it makes.
    private static func makeFolders(_ path: String) throws(StorageError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .invalidArgument("Cannot make the folder '\(prefix)': \(String(cString: strerror(errno)))")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .invalidArgument("'\(path)' is not a folder")
        }
    }
}
