package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
	"strings"
)

// The account lifecycle of the current user (fbstorage/auth.h). Calls on the current user fail
// with ErrAuthNoUser when nobody is signed in (or the user changed before the answer); they
// answer the updated user. ErrAuthRequiresRecentLogin asks for Reauthenticate first.

func (a *Auth) withCredential(ctx context.Context, c *Credential,
	start func(*C.fbs_credential, C.uintptr_t) C.int) (*User, error) {
	defer runtime.KeepAlive(c)
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return start(c.raw, h) })
}

// SignInWithCredential signs in with a credential (an identity provider's user gets an account
// the first time). Errors: ErrAuthWrongPassword, ErrAuthUserNotFound, ErrAuthInvalidCredential,
// ErrAuthAccountExistsWithDifferentCredential (sign in to that account, then link).
func (a *Auth) SignInWithCredential(ctx context.Context, c *Credential) (*User, error) {
	return a.withCredential(ctx, c, func(raw *C.fbs_credential, h C.uintptr_t) C.int {
		return C.fbsgo_auth_sign_in_with_credential_async(a.raw, raw, h)
	})
}

// LinkWithCredential adds the credential's sign-in method to the current user, who keeps the
// UID (an anonymous user becomes permanent). Errors: ErrAuthProviderAlreadyLinked,
// ErrAuthCredentialAlreadyInUse, ErrAuthEmailAlreadyInUse, ErrAuthWeakPassword, ErrAuthInvalidCredential.
func (a *Auth) LinkWithCredential(ctx context.Context, c *Credential) (*User, error) {
	return a.withCredential(ctx, c, func(raw *C.fbs_credential, h C.uintptr_t) C.int {
		return C.fbsgo_auth_link_with_credential_async(a.raw, raw, h)
	})
}

// Reauthenticate signs the current user in again (a recent sign-in for the calls that need
// one). Errors: ErrAuthUserMismatch (another user's credential: the user stays), and sign-in's.
func (a *Auth) Reauthenticate(ctx context.Context, c *Credential) (*User, error) {
	return a.withCredential(ctx, c, func(raw *C.fbs_credential, h C.uintptr_t) C.int {
		return C.fbsgo_auth_reauthenticate_async(a.raw, raw, h)
	})
}

func (a *Auth) withText(ctx context.Context, text string, start func(*C.char, C.uintptr_t) C.int) (outcome, error) {
	t := cString(text)
	defer free(t)
	return await(ctx, a, func(h C.uintptr_t) C.int { return start(t, h) })
}

func (a *Auth) updating(ctx context.Context, text string, start func(*C.char, C.uintptr_t) C.int) (*User, error) {
	result, err := a.withText(ctx, text, start)
	return result.user, err
}

// Unlink removes a sign-in method ("password", "google.com", …) from the current user.
func (a *Auth) Unlink(ctx context.Context, providerID string) (*User, error) {
	return a.updating(ctx, providerID, func(p *C.char, h C.uintptr_t) C.int { return C.fbsgo_auth_unlink_async(a.raw, p, h) })
}

// UpdateEmail changes the current user's email at once (VerifyBeforeUpdateEmail asks the new
// address first). Errors: ErrAuthRequiresRecentLogin, ErrAuthEmailAlreadyInUse, ErrAuthInvalidEmail.
func (a *Auth) UpdateEmail(ctx context.Context, email string) (*User, error) {
	return a.updating(ctx, email, func(e *C.char, h C.uintptr_t) C.int { return C.fbsgo_auth_update_email_async(a.raw, e, h) })
}

// UpdatePassword changes the current user's password. Errors: ErrAuthRequiresRecentLogin, ErrAuthWeakPassword.
func (a *Auth) UpdatePassword(ctx context.Context, password string) (*User, error) {
	return a.updating(ctx, password, func(p *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_update_password_async(a.raw, p, h)
	})
}

// Reload reads the account again and refreshes the ID token: IsEmailVerified and the token's
// claims (which storage rules see) as the server has them now.
func (a *Auth) Reload(ctx context.Context) (*User, error) {
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_reload_async(a.raw, h) })
}

// SendEmailVerification mails a code verifying the current user's email (an Auth emulator
// lists it at GET /emulator/v1/projects/{project}/oobCodes); apply it with ApplyActionCode.
func (a *Auth) SendEmailVerification(ctx context.Context) error {
	_, err := await(ctx, a, func(h C.uintptr_t) C.int { return C.fbsgo_auth_send_email_verification_async(a.raw, h) })
	return err
}

// VerifyBeforeUpdateEmail mails email a code that, applied, makes it the current user's email.
func (a *Auth) VerifyBeforeUpdateEmail(ctx context.Context, email string) error {
	_, err := a.withText(ctx, email, func(e *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_verify_before_update_email_async(a.raw, e, h)
	})
	return err
}

// SendPasswordResetEmail mails a password-reset code for the account of email (nobody needs to
// be signed in). Errors: ErrAuthUserNotFound, ErrAuthInvalidEmail.
func (a *Auth) SendPasswordResetEmail(ctx context.Context, email string) error {
	_, err := a.withText(ctx, email, func(e *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_send_password_reset_email_async(a.raw, e, h)
	})
	return err
}

// VerifyPasswordResetCode is the email a password-reset code is for; the code stays usable.
// Errors: ErrAuthInvalidActionCode, ErrAuthExpiredActionCode.
func (a *Auth) VerifyPasswordResetCode(ctx context.Context, code string) (string, error) {
	result, err := a.withText(ctx, code, func(c *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_verify_password_reset_code_async(a.raw, c, h)
	})
	return result.value, err
}

// FetchSignInMethods tells how email can sign in: "password", "emailLink" and the identity
// providers linked to its account; none when no account has it, and always when the project
// protects against email enumeration (the default for new projects).
// Errors: ErrInvalidArgument (empty), ErrAuthInvalidEmail.
func (a *Auth) FetchSignInMethods(ctx context.Context, email string) ([]string, error) {
	result, err := a.withText(ctx, email, func(c *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_fetch_sign_in_methods_async(a.raw, c, h)
	})
	if err != nil || result.value == "" {
		return []string{}, err
	}
	return strings.Split(result.value, ","), nil
}

// ConfirmPasswordReset sets the password of a reset code's account and uses the code up (its
// sessions end). Errors: as VerifyPasswordResetCode, ErrAuthWeakPassword.
func (a *Auth) ConfirmPasswordReset(ctx context.Context, code, newPassword string) error {
	p := cString(newPassword)
	defer free(p)
	_, err := a.withText(ctx, code, func(c *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_confirm_password_reset_async(a.raw, c, p, h)
	})
	return err
}

// ApplyActionCode applies an email verification or email change code; the current user shows
// it after Reload. Errors: ErrAuthInvalidActionCode, ErrAuthExpiredActionCode.
func (a *Auth) ApplyActionCode(ctx context.Context, code string) error {
	_, err := a.withText(ctx, code, func(c *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_apply_action_code_async(a.raw, c, h)
	})
	return err
}
