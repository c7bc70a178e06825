import FirebaseCore
import Foundation

/// Where `Auth.auth(app:)` keeps its signed-in user between runs, as the Apple SDK keeps it in the
/// keychain: `$XDG_CONFIG_HOME/fbstorage-swift/<app name>-<API key hash>.json` (`~/.config` without
/// XDG_CONFIG_HOME), written by the core (refresh token and profile, mode 0600, atomically). The
/// key's hash keeps apps of the same name in different projects apart without putting the key in
/// a file name.
enum AuthSessionFile {
    /// The file for `appName` and `apiKey`, its directory created (0700); nil when neither
    /// XDG_CONFIG_HOME nor HOME is set or the directory cannot be created.
    static func path(appName: String, apiKey: String) -> String? {
        do {
            guard let directory = try FirebaseApp.configDirectory() else { return nil }
            return "\(directory)/\(fileSafe(appName))-\(hexHash(apiKey)).json"
        } catch {
            warn("the session is not kept between runs: cannot create its directory: \(error.localizedDescription)")
            return nil
        }
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("[FirebaseAuth] warning: \(message)\n".utf8))
    }

    /// The app name with anything but letters, digits, '.', '_' and '-' replaced by '_'.
    private static func fileSafe(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        })
    }

    /// FNV-1a (64 bits) in hex: stable across runs and platforms, unlike `Hasher`.
    private static func hexHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(format: "%016llx", hash)
    }
}
