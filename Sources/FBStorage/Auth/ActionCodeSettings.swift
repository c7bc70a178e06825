/// Where the link in an Auth email leads and which app may open it, as the SDKs'
/// `ActionCodeSettings`: Identity Toolkit's `accounts:sendOobCode` fields beside the request.
public struct ActionCodeSettings: Sendable, Equatable {
    /// The continue URL: where the link goes once the action is done (an email sign-in link
    /// brings the user there with the code). Its domain must be authorized for the project.
    public var url: String
    /// Whether the app itself completes the action (required for email sign-in links).
    public var handleCodeInApp: Bool
    public var iOSBundleID: String?
    public var androidPackageName: String?
    /// Whether Android offers to install the app when it is missing.
    public var androidInstallApp: Bool
    public var androidMinimumVersion: String?
    /// A custom Hosting domain for the link (production's `linkDomain`).
    public var linkDomain: String?

    public init(url: String, handleCodeInApp: Bool = false, iOSBundleID: String? = nil, androidPackageName: String? = nil,
                androidInstallApp: Bool = false, androidMinimumVersion: String? = nil, linkDomain: String? = nil) {
        self.url = url
        self.handleCodeInApp = handleCodeInApp
        self.iOSBundleID = iOSBundleID
        self.androidPackageName = androidPackageName
        self.androidInstallApp = androidInstallApp
        self.androidMinimumVersion = androidMinimumVersion
        self.linkDomain = linkDomain
    }

    /// Checks the settings as a request would (C setters refuse a bad value at once).
    public func check() throws(StorageError) { _ = try fields() }

    /// The request's fields. - Throws: `invalidArgument` for an empty URL or an empty or
    /// control-character value (the server would refuse it after a round trip).
    func fields() throws(StorageError) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("continueUrl", .string(try Self.checked(url, "continue URL"))),
                                             ("canHandleCodeInApp", .bool(handleCodeInApp))]
        for (name, value, what) in [("iOSBundleId", iOSBundleID, "iOS bundle id"),
                                    ("androidPackageName", androidPackageName, "Android package name"),
                                    ("androidMinimumVersion", androidMinimumVersion, "Android minimum version"),
                                    ("linkDomain", linkDomain, "link domain")] {
            if let value { fields.append((name, .string(try Self.checked(value, what)))) }
        }
        if androidPackageName != nil { fields.append(("androidInstallApp", .bool(androidInstallApp))) }
        return fields
    }

    private static func checked(_ value: String, _ what: String) throws(StorageError) -> String {
        guard !value.isEmpty else { throw .invalidArgument("The action code settings' \(what) is empty") }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidArgument("The action code settings' \(what) holds a control character")
        }
        return value
    }
}
