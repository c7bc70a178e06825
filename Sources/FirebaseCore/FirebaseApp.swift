import Foundation

/// A configured Firebase app: a name and its options. Storage instances are created per app.
public final class FirebaseApp: @unchecked Sendable {
    /// The default app's name.
    public static let defaultAppName = "__FIRAPP_DEFAULT"

    /// The app's name (`defaultAppName` for the default app).
    public let name: String
    /// The options the app was configured with.
    public let options: FirebaseOptions

    private static let lock = NSLock()
    private static var apps: [String: FirebaseApp] = [:]
    /// Other products' instances for this app by type (`FirebaseApp+Components.swift`).
    var components: [ObjectIdentifier: Any] = [:]

    private init(name: String, options: FirebaseOptions) {
        self.name = name
        self.options = options
    }

    /// Configures the default app from `GoogleService-Info.plist` (see
    /// `FirebaseOptions.defaultOptions()` for where it is looked for).
    /// Stops the program, as the Apple SDK does, when no valid file is found.
    public static func configure() {
        guard let options = FirebaseOptions.defaultOptions() else {
            fatalError("`FirebaseApp.configure()` could not find a valid \(FirebaseOptions.plistName) in "
                       + "the working directory or beside the executable.")
        }
        configure(options: options)
    }

    /// Configures the default app. Configuring it twice is a programming error that stops the
    /// program, as in the Apple SDK.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultAppName, options: options)
    }

    /// Configures an app named `name`; a name already configured stops the program.
    public static func configure(name: String, options: FirebaseOptions) {
        precondition(!name.isEmpty, "FirebaseApp names cannot be empty.")
        let added = lock.withLock { () -> Bool in
            guard apps[name] == nil else { return false }
            apps[name] = FirebaseApp(name: name, options: options)
            return true
        }
        if !added {
            fatalError(name == defaultAppName ? "Default app has already been configured."
                                              : "App named \(name) has already been configured.")
        }
    }

    /// The default app, or nil if it is not configured.
    public static func app() -> FirebaseApp? { app(name: defaultAppName) }

    /// The app named `name`, or nil if it is not configured.
    public static func app(name: String) -> FirebaseApp? { lock.withLock { apps[name] } }

    /// Every configured app by name, or nil when there is none.
    public static var allApps: [String: FirebaseApp]? {
        lock.withLock { apps.isEmpty ? nil : apps }
    }

    /// Removes the app, so its name can be configured again; `completion(true)` once removed.
    public func delete(_ completion: @escaping (Bool) -> Void) {
        let removed = FirebaseApp.lock.withLock { () -> Bool in
            guard FirebaseApp.apps[name] === self else { return false }
            FirebaseApp.apps[name] = nil
            return true
        }
        completion(removed)
    }
}
