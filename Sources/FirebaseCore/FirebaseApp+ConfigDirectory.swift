import Foundation

extension FirebaseApp {
    /// Where the products keep, between runs, what the Apple SDK keeps in the keychain or the user
    /// defaults (FirebaseAuth's sessions, FirebaseAppCheck's local debug token):
    /// `$XDG_CONFIG_HOME/fbstorage-swift` (`~/.config/fbstorage-swift` without XDG_CONFIG_HOME),
    /// created with mode 0700. nil when neither XDG_CONFIG_HOME nor HOME is set.
    /// - Throws: the directory's creation error.
    public static func configDirectory() throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        let base: String
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            base = config
        } else if let home = environment["HOME"], !home.isEmpty {
            base = home + "/.config"
        } else {
            return nil
        }
        let directory = base + "/fbstorage-swift"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return directory
    }
}
