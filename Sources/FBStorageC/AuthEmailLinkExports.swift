import FBStorage

// fbstorage/auth.h: action code settings (fbs_action_code_settings_*) and email-link sign-in.

@_cdecl("fbs_action_code_settings_new")
public func fbs_action_code_settings_new(_ url: UnsafePointer<CChar>?, _ handleCodeInApp: Int32,
                                         _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        let settings = ActionCodeSettings(url: try Arguments.string(url, "url"), handleCodeInApp: handleCodeInApp != 0)
        try settings.check()  // a bad URL is refused here, not at the first send
        out.pointee = Handles.make(settings)
    }
}

/// Changes the settings in place; the change is checked as the request will check it.
private func mutate(_ settings: OpaquePointer?, _ change: (inout ActionCodeSettings) throws(StorageError) -> Void) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Handles.withHandle(settings) { (handle: Handle<ActionCodeSettings>) throws(StorageError) in
            var changed = handle.value
            try change(&changed)
            try changed.check()
            handle.value = changed
        }
    }
}

@_cdecl("fbs_action_code_settings_set_ios_bundle_id")
public func fbs_action_code_settings_set_ios_bundle_id(_ settings: OpaquePointer?, _ bundleID: UnsafePointer<CChar>?) -> Int32 {
    mutate(settings) { settings throws(StorageError) in settings.iOSBundleID = try Arguments.optionalString(bundleID, "bundle_id") }
}

@_cdecl("fbs_action_code_settings_set_android_package_name")
public func fbs_action_code_settings_set_android_package_name(_ settings: OpaquePointer?, _ packageName: UnsafePointer<CChar>?,
                                                              _ installApp: Int32, _ minimumVersion: UnsafePointer<CChar>?) -> Int32 {
    mutate(settings) { settings throws(StorageError) in
        settings.androidPackageName = try Arguments.optionalString(packageName, "package_name")
        settings.androidInstallApp = installApp != 0
        settings.androidMinimumVersion = try Arguments.optionalString(minimumVersion, "minimum_version")
    }
}

@_cdecl("fbs_action_code_settings_set_link_domain")
public func fbs_action_code_settings_set_link_domain(_ settings: OpaquePointer?, _ domain: UnsafePointer<CChar>?) -> Int32 {
    mutate(settings) { settings throws(StorageError) in settings.linkDomain = try Arguments.optionalString(domain, "domain") }
}

@_cdecl("fbs_action_code_settings_free")
public func fbs_action_code_settings_free(_ settings: OpaquePointer?) { ActionCodeSettings.free(settings) }

@_cdecl("fbs_auth_send_sign_in_link_to_email")
public func fbs_auth_send_sign_in_link_to_email(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?,
                                                _ settings: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in
        try Auth.behind(auth).sendSignInLink(toEmail: Arguments.string(email, "email"), settings: ActionCodeSettings.behind(settings))
    }
}

@_cdecl("fbs_auth_send_sign_in_link_to_email_async")
public func fbs_auth_send_sign_in_link_to_email_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ settings: OpaquePointer?,
                                                      _ cb: fbs_completion_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    completionAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).sendSignInLink(toEmail: Arguments.string(email, "email"), settings: ActionCodeSettings.behind(settings),
                                             completion: done)
    }
}

@_cdecl("fbs_auth_is_sign_in_with_email_link")
public func fbs_auth_is_sign_in_with_email_link(_ auth: OpaquePointer?, _ link: UnsafePointer<CChar>?) -> Int32 {
    Errors.returning(-1) { () throws(StorageError) -> Int32 in
        _ = try Auth.behind(auth)
        guard let link = try Arguments.optionalString(link, "link") else { return 0 }
        return Auth.isSignInLink(link) ? 1 : 0
    }
}

@_cdecl("fbs_auth_sign_in_with_email_link")
public func fbs_auth_sign_in_with_email_link(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ link: UnsafePointer<CChar>?,
                                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in
        try Auth.behind(auth).signIn(email: Arguments.string(email, "email"), link: Arguments.string(link, "link"))
    }
}

@_cdecl("fbs_auth_sign_in_with_email_link_async")
public func fbs_auth_sign_in_with_email_link_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ link: UnsafePointer<CChar>?,
                                                   _ cb: fbs_user_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in
        try Auth.behind(auth).signIn(email: Arguments.string(email, "email"), link: Arguments.string(link, "link"), completion: done)
    }
}

/// The methods joined by "," (a provider id never contains one).
private func joined(_ methods: [String]) -> String { methods.joined(separator: ",") }

@_cdecl("fbs_auth_fetch_sign_in_methods")
public func fbs_auth_fetch_sign_in_methods(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?,
                                           _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out, "out_methods")
        out.pointee = ownedCString(joined(try Auth.behind(auth).fetchSignInMethods(forEmail: Arguments.string(email, "email"))))
    }
}

@_cdecl("fbs_auth_fetch_sign_in_methods_async")
public func fbs_auth_fetch_sign_in_methods_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?,
                                                 _ cb: fbs_string_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try Auth.behind(auth).fetchSignInMethods(forEmail: Arguments.string(email, "email")) { done($0.map(joined)) }
    }) { cb, result, userData in deliver(result, to: cb, userData) }
}
