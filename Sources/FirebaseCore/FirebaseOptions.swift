import Foundation

/// The settings of a Firebase app, as in the Apple SDK: built in code with
/// `FirebaseOptions(googleAppID:gcmSenderID:)`, or read from a `GoogleService-Info.plist`.
public final class FirebaseOptions: @unchecked Sendable {
    /// The app's Google App ID (`GOOGLE_APP_ID`); sent as `x-firebase-gmpid`.
    public var googleAppID: String
    /// The Cloud Messaging sender ID (`GCM_SENDER_ID`).
    public var gcmSenderID: String
    /// The API key (`API_KEY`).
    public var apiKey: String?
    /// The project ID (`PROJECT_ID`).
    public var projectID: String?
    /// The default Cloud Storage bucket (`STORAGE_BUCKET`), without `gs://`.
    public var storageBucket: String?
    /// The bundle ID (`BUNDLE_ID`).
    public var bundleID: String
    /// The OAuth client ID (`CLIENT_ID`).
    public var clientID: String?
    /// The Realtime Database URL (`DATABASE_URL`).
    public var databaseURL: String?

    /// The plist file name the Apple SDK reads.
    static let plistName = "GoogleService-Info.plist"

    public init(googleAppID: String, gcmSenderID: String) {
        self.googleAppID = googleAppID
        self.gcmSenderID = gcmSenderID
        bundleID = Bundle.main.bundleIdentifier ?? ""
    }

    /// Reads a `GoogleService-Info.plist`; nil when the file is missing, not a property list, or
    /// lacks `GOOGLE_APP_ID` or `GCM_SENDER_ID`.
    public convenience init?(contentsOfFile plistPath: String) {
        guard let data = FileManager.default.contents(atPath: plistPath),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
              let appID = plist["GOOGLE_APP_ID"] as? String,
              let senderID = plist["GCM_SENDER_ID"] as? String else { return nil }
        self.init(googleAppID: appID, gcmSenderID: senderID)
        apiKey = plist["API_KEY"] as? String
        projectID = plist["PROJECT_ID"] as? String
        storageBucket = plist["STORAGE_BUCKET"] as? String
        clientID = plist["CLIENT_ID"] as? String
        databaseURL = plist["DATABASE_URL"] as? String
        if let bundle = plist["BUNDLE_ID"] as? String { bundleID = bundle }
    }

    /// The options of `GoogleService-Info.plist` from the first place that has one: the working
    /// directory, then the directory of the running executable (`Bundle.main`, where SwiftPM
    /// resources and app bundles put it on Linux). nil when neither has a valid file.
    public static func defaultOptions() -> FirebaseOptions? {
        let candidates = [FileManager.default.currentDirectoryPath + "/" + plistName,
                          Bundle.main.path(forResource: "GoogleService-Info", ofType: "plist")]
        return candidates.lazy.compactMap { $0 }.compactMap(FirebaseOptions.init(contentsOfFile:)).first
    }
}
