import Foundation

// The Apple SDK's token-change notification (FIRAppCheckAppCheckTokenDidChangeNotification and its
// userInfo keys), under the names it has in Swift.

extension Notification.Name {
    /// Posted to `NotificationCenter.default` by an app's `AppCheck` (the notification's object)
    /// for every token it keeps: each renewal's, whatever the provider. userInfo holds the token
    /// (`AppCheckTokenNotificationKey`) and the app's name (`AppCheckAppNameNotificationKey`).
    public static let AppCheckTokenDidChange = Notification.Name("FIRAppCheckAppCheckTokenDidChangeNotification")
}

/// userInfo key of `AppCheckTokenDidChange`: the new token (a `String`).
public let AppCheckTokenNotificationKey = "FIRAppCheckTokenNotificationKey"
/// userInfo key of `AppCheckTokenDidChange`: the name of the app whose token changed.
public let AppCheckAppNameNotificationKey = "FIRAppCheckAppNameNotificationKey"
