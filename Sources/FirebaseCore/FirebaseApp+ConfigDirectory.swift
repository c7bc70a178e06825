import FBStorage

extension FirebaseApp {
    /// Where the products keep, between runs, what the Apple SDK keeps in the keychain or the user
    /// defaults (FirebaseAuth's sessions, FirebaseAppCheck's local debug token):
    /// `$XDG_CONFIG_HOME/fbstorage-swift` (`~/.config/fbstorage-swift` without XDG_CONFIG_HOME),
    /// made with mode 0700 if missing (the core's `ConfigFolder`).
    /// - Throws: `StorageError` when neither XDG_CONFIG_HOME nor HOME is set or the folder cannot
    ///   be made.
    public static func configDirectory() throws -> String {
        try ConfigFolder.path(program: configProgram)
    }

    /// The program name the Swift products keep their files under.
    public static let configProgram = "fbstorage-swift"
}
