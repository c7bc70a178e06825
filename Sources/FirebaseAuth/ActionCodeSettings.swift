import FBStorage
import Foundation

/// Where the link in an Auth email leads and which app may open it, as the Apple SDK's
/// `ActionCodeSettings`. The Apple SDK's default bundle id (the main bundle's) has no Linux
/// counterpart: set `setIOSBundleID(_:)` to have iOS open the link in an app.
open class ActionCodeSettings: NSObject {
    /// The continue URL; its domain must be authorized for the project.
    open var url: URL?
    /// Whether the app completes the action itself (required for sign-in links).
    open var handleCodeInApp = false
    open private(set) var iOSBundleID: String?
    open private(set) var androidPackageName: String?
    open private(set) var androidMinimumVersion: String?
    open private(set) var androidInstallIfNotAvailable = false
    /// A custom Hosting domain for the link.
    open var linkDomain: String?

    override public init() {}

    open func setIOSBundleID(_ bundleID: String) { iOSBundleID = bundleID }

    open func setAndroidPackageName(_ androidPackageName: String, installIfNotAvailable: Bool, minimumVersion: String?) {
        self.androidPackageName = androidPackageName
        androidInstallIfNotAvailable = installIfNotAvailable
        androidMinimumVersion = minimumVersion
    }

    /// The core's settings; a missing URL is the Apple SDK's `missingContinueURI`.
    func core() -> Result<FBStorage.ActionCodeSettings, NSError> {
        guard let url else { return .failure(AuthErrorCode.missingContinueURI.error()) }
        return .success(FBStorage.ActionCodeSettings(
            url: url.absoluteString, handleCodeInApp: handleCodeInApp, iOSBundleID: iOSBundleID,
            androidPackageName: androidPackageName, androidInstallApp: androidInstallIfNotAvailable,
            androidMinimumVersion: androidMinimumVersion, linkDomain: linkDomain))
    }
}
