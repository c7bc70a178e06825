import FBStorage

// fbstorage/auth.h: credentials and the account lifecycle (fbs_credential_*, fbs_auth_link_with_credential, …).

@_cdecl("fbs_credential_email")
public func fbs_credential_email(_ email: UnsafePointer<CChar>?, _ password: UnsafePointer<CChar>?,
                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try AuthCredential.email(Arguments.string(email, "email"),
                                                            password: Arguments.string(password, "password")))
    }
}

@_cdecl("fbs_credential_idp")
public func fbs_credential_idp(_ providerID: UnsafePointer<CChar>?, _ idToken: UnsafePointer<CChar>?,
                               _ accessToken: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try AuthCredential.identityProvider(
            Arguments.string(providerID, "provider_id"), idToken: Arguments.optionalString(idToken, "id_token"),
            accessToken: Arguments.optionalString(accessToken, "access_token")))
    }
}

@_cdecl("fbs_credential_oauth")
public func fbs_credential_oauth(_ providerID: UnsafePointer<CChar>?, _ idToken: UnsafePointer<CChar>?,
                                 _ rawNonce: UnsafePointer<CChar>?, _ accessToken: UnsafePointer<CChar>?,
                                 _ secret: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out)
        out.pointee = Handles.make(try AuthCredential.identityProvider(
            Arguments.string(providerID, "provider_id"), idToken: Arguments.optionalString(idToken, "id_token"),
            rawNonce: Arguments.optionalString(rawNonce, "raw_nonce"),
            accessToken: Arguments.optionalString(accessToken, "access_token"), secret: Arguments.optionalString(secret, "secret")))
    }
}

@_cdecl("fbs_credential_free")
public func fbs_credential_free(_ credential: OpaquePointer?) { AuthCredential.free(credential) }

/// An asynchronous call that answers nothing: `cb` gets its status.
func completionAsync(_ cb: fbs_completion_callback?, _ userData: UnsafeMutableRawPointer?,
                             _ start: (@escaping StorageCompletion<Void>) throws(StorageError) -> Void) -> Int32 {
    startAsync(cb, userData, start) { cb, result, userData in cb(code(result), userData) }
}

@_cdecl("fbs_auth_sign_in_with_credential")
public func fbs_auth_sign_in_with_credential(_ auth: OpaquePointer?, _ credential: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).signIn(with: AuthCredential.behind(credential)) }
}

@_cdecl("fbs_auth_sign_in_with_credential_async")
public func fbs_auth_sign_in_with_credential_async(_ auth: OpaquePointer?, _ credential: OpaquePointer?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).signIn(with: AuthCredential.behind(credential), completion: done) }
}

@_cdecl("fbs_auth_link_with_credential")
public func fbs_auth_link_with_credential(_ auth: OpaquePointer?, _ credential: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).link(with: AuthCredential.behind(credential)) }
}

@_cdecl("fbs_auth_link_with_credential_async")
public func fbs_auth_link_with_credential_async(_ auth: OpaquePointer?, _ credential: OpaquePointer?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).link(with: AuthCredential.behind(credential), completion: done) }
}

@_cdecl("fbs_auth_reauthenticate")
public func fbs_auth_reauthenticate(_ auth: OpaquePointer?, _ credential: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).reauthenticate(with: AuthCredential.behind(credential)) }
}

@_cdecl("fbs_auth_reauthenticate_async")
public func fbs_auth_reauthenticate_async(_ auth: OpaquePointer?, _ credential: OpaquePointer?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).reauthenticate(with: AuthCredential.behind(credential), completion: done) }
}

@_cdecl("fbs_auth_unlink")
public func fbs_auth_unlink(_ auth: OpaquePointer?, _ providerID: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).unlink(providerID: Arguments.string(providerID, "provider_id")) }
}

@_cdecl("fbs_auth_unlink_async")
public func fbs_auth_unlink_async(_ auth: OpaquePointer?, _ providerID: UnsafePointer<CChar>?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).unlink(providerID: Arguments.string(providerID, "provider_id"), completion: done) }
}

@_cdecl("fbs_auth_update_email")
public func fbs_auth_update_email(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).updateEmail(Arguments.string(email, "email")) }
}

@_cdecl("fbs_auth_update_email_async")
public func fbs_auth_update_email_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).updateEmail(Arguments.string(email, "email"), completion: done) }
}

@_cdecl("fbs_auth_update_password")
public func fbs_auth_update_password(_ auth: OpaquePointer?, _ password: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).updatePassword(Arguments.string(password, "password")) }
}

@_cdecl("fbs_auth_update_password_async")
public func fbs_auth_update_password_async(_ auth: OpaquePointer?, _ password: UnsafePointer<CChar>?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).updatePassword(Arguments.string(password, "password"), completion: done) }
}

@_cdecl("fbs_auth_reload")
public func fbs_auth_reload(_ auth: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    signIn(out) { () throws(StorageError) in try Auth.behind(auth).reload() }
}

@_cdecl("fbs_auth_reload_async")
public func fbs_auth_reload_async(_ auth: OpaquePointer?, _ cb: fbs_user_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    signInAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).reload(completion: done) }
}

@_cdecl("fbs_auth_send_email_verification")
public func fbs_auth_send_email_verification(_ auth: OpaquePointer?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).sendEmailVerification() }
}

@_cdecl("fbs_auth_send_email_verification_async")
public func fbs_auth_send_email_verification_async(_ auth: OpaquePointer?, _ cb: fbs_completion_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    completionAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).sendEmailVerification(completion: done) }
}

@_cdecl("fbs_auth_verify_before_update_email")
public func fbs_auth_verify_before_update_email(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).verifyBeforeUpdateEmail(Arguments.string(email, "email")) }
}

@_cdecl("fbs_auth_verify_before_update_email_async")
public func fbs_auth_verify_before_update_email_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ cb: fbs_completion_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    completionAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).verifyBeforeUpdateEmail(Arguments.string(email, "email"), completion: done) }
}

@_cdecl("fbs_auth_send_password_reset_email")
public func fbs_auth_send_password_reset_email(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).sendPasswordReset(email: Arguments.string(email, "email")) }
}

@_cdecl("fbs_auth_send_password_reset_email_async")
public func fbs_auth_send_password_reset_email_async(_ auth: OpaquePointer?, _ email: UnsafePointer<CChar>?, _ cb: fbs_completion_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    completionAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).sendPasswordReset(email: Arguments.string(email, "email"), completion: done) }
}

@_cdecl("fbs_auth_confirm_password_reset")
public func fbs_auth_confirm_password_reset(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ newPassword: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).confirmPasswordReset(code: Arguments.string(code, "code"), newPassword: Arguments.string(newPassword, "new_password")) }
}

@_cdecl("fbs_auth_confirm_password_reset_async")
public func fbs_auth_confirm_password_reset_async(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ newPassword: UnsafePointer<CChar>?, _ cb: fbs_completion_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    completionAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).confirmPasswordReset(code: Arguments.string(code, "code"), newPassword: Arguments.string(newPassword, "new_password"), completion: done) }
}

@_cdecl("fbs_auth_apply_action_code")
public func fbs_auth_apply_action_code(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?) -> Int32 {
    Errors.status { () throws(StorageError) in try Auth.behind(auth).applyActionCode(Arguments.string(code, "code")) }
}

@_cdecl("fbs_auth_apply_action_code_async")
public func fbs_auth_apply_action_code_async(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?, _ cb: fbs_completion_callback?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    completionAsync(cb, userData) { done throws(StorageError) in try Auth.behind(auth).applyActionCode(Arguments.string(code, "code"), completion: done) }
}

@_cdecl("fbs_auth_verify_password_reset_code")
public func fbs_auth_verify_password_reset_code(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?,
                                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let out = try Arguments.out(out, "out_email")
        out.pointee = ownedCString(try Auth.behind(auth).verifyPasswordResetCode(Arguments.string(code, "code")))
    }
}

@_cdecl("fbs_auth_verify_password_reset_code_async")
public func fbs_auth_verify_password_reset_code_async(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?,
                                                      _ cb: fbs_string_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try Auth.behind(auth).verifyPasswordResetCode(Arguments.string(code, "code"), completion: done)
    }) { cb, result, userData in deliver(result, to: cb, userData) }
}

public typealias fbs_action_code_callback = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                            UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

@_cdecl("fbs_auth_check_action_code")
public func fbs_auth_check_action_code(_ auth: OpaquePointer?, _ code: UnsafePointer<CChar>?,
                                       _ outOperation: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                       _ outEmail: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                       _ outNewEmail: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Errors.status { () throws(StorageError) in
        let outOperation = try Arguments.out(outOperation, "out_operation")
        let info = try Auth.behind(auth).checkActionCode(Arguments.string(code, "code"))
        outOperation.pointee = ownedCString(info.requestType)
        outEmail?.pointee = info.email.flatMap(ownedCString)
        outNewEmail?.pointee = info.newEmail.flatMap(ownedCString)
    }
}

@_cdecl("fbs_auth_check_action_code_async")
public func fbs_auth_check_action_code_async(_ auth: OpaquePointer?, _ actionCode: UnsafePointer<CChar>?,
                                             _ cb: fbs_action_code_callback?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    startAsync(cb, userData, { done throws(StorageError) in
        try Auth.behind(auth).checkActionCode(Arguments.string(actionCode, "code"), completion: done)
    }) { cb, result, userData in
        let info = try? result.get()
        // The strings are lent for the call: NULL for what the answer lacks, and on failure.
        withOptionalCString(info?.requestType) { operation in
            withOptionalCString(info?.email) { email in
                withOptionalCString(info?.newEmail) { newEmail in cb(code(result), operation, email, newEmail, userData) }
            }
        }
    }
}

private func withOptionalCString(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Void) {
    if let string { string.withCString(body) } else { body(nil) }
}
