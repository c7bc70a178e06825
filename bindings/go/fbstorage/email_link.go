package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
)

// ActionCodeSettings says where the link in an Auth email leads and which app may open it (the
// SDKs' ActionCodeSettings): URL is the continue URL (absolute, its domain authorized for the
// project); HandleCodeInApp (required for sign-in links) says the app completes the action.
type ActionCodeSettings struct {
	URL                   string
	HandleCodeInApp       bool
	IOSBundleID           string
	AndroidPackageName    string
	AndroidInstallApp     bool
	AndroidMinimumVersion string
	LinkDomain            string
}

// ActionCodeInfo is what an email action code is for: Operation is "PASSWORD_RESET",
// "VERIFY_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "RECOVER_EMAIL", …; Email the
// address it was sent to ("" for a sign-in code, which does not reveal it); NewEmail the address
// an email change code makes the account's.
type ActionCodeInfo struct {
	Operation, Email, NewEmail string
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// nativeSettings is the library's copy of s; release it with fbs_action_code_settings_free.
func nativeSettings(s ActionCodeSettings) (*C.fbs_action_code_settings, error) {
	url, bundle, pkg, version, domain := cString(s.URL), cStringOrNil(s.IOSBundleID), cStringOrNil(s.AndroidPackageName),
		cStringOrNil(s.AndroidMinimumVersion), cStringOrNil(s.LinkDomain)
	defer func() {
		for _, p := range []*C.char{url, bundle, pkg, version, domain} {
			free(p)
		}
	}()
	var raw *C.fbs_action_code_settings
	if err := call(func() C.int { return C.fbs_action_code_settings_new(url, cBool(s.HandleCodeInApp), &raw) }); err != nil {
		return nil, err
	}
	err := call(func() C.int {
		if code := C.fbs_action_code_settings_set_ios_bundle_id(raw, bundle); code != 0 {
			return code
		}
		if code := C.fbs_action_code_settings_set_android_package_name(raw, pkg, cBool(s.AndroidInstallApp), version); code != 0 {
			return code
		}
		return C.fbs_action_code_settings_set_link_domain(raw, domain)
	})
	if err != nil {
		C.fbs_action_code_settings_free(raw)
		return nil, err
	}
	return raw, nil
}

// SendSignInLinkToEmail mails email a sign-in link (an Auth emulator lists it at
// GET /emulator/v1/projects/{project}/oobCodes) leading to settings.URL, which must have
// HandleCodeInApp. Errors: ErrAuthInvalidEmail; ErrInvalidArgument (settings the server refuses).
func (a *Auth) SendSignInLinkToEmail(ctx context.Context, email string, settings ActionCodeSettings) error {
	raw, err := nativeSettings(settings)
	if err != nil {
		return err
	}
	defer C.fbs_action_code_settings_free(raw) // the call copies the settings when it starts
	_, err = a.withText(ctx, email, func(e *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_send_sign_in_link_to_email_async(a.raw, e, raw, h)
	})
	return err
}

// IsSignInWithEmailLink says whether link is an email sign-in link (also inside a Dynamic
// Link); no request is sent.
func (a *Auth) IsSignInWithEmailLink(link string) (bool, error) {
	l := cString(link)
	defer free(l)
	defer runtime.KeepAlive(a)
	var answer C.int
	err := call(func() C.int {
		if answer = C.fbs_auth_is_sign_in_with_email_link(a.raw, l); answer == -1 {
			return C.FBS_ERR_INVALID_ARGUMENT
		}
		return 0
	})
	return answer == 1, err
}

// SignInWithEmailLink signs in as the owner of email with the link mailed to it (a new account
// the first time, its email verified). Errors: ErrAuthInvalidActionCode (used or unknown),
// ErrAuthExpiredActionCode, ErrAuthInvalidEmail (another address than the link's);
// ErrInvalidArgument for a link that is not a sign-in link.
func (a *Auth) SignInWithEmailLink(ctx context.Context, email, link string) (*User, error) {
	e, l := cString(email), cString(link)
	defer free(e)
	defer free(l)
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_sign_in_with_email_link_async(a.raw, e, l, h) })
}

//export fbsgoActionCodeDone
func fbsgoActionCodeDone(status C.int, operation, email, newEmail *C.char, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, _ any) {
		o.actionCode = ActionCodeInfo{Operation: goString(operation), Email: goString(email), NewEmail: goString(newEmail)}
	})
}

// CheckActionCode tells what an action code is for; the code stays usable.
// Errors: ErrAuthInvalidActionCode, ErrAuthExpiredActionCode.
func (a *Auth) CheckActionCode(ctx context.Context, code string) (ActionCodeInfo, error) {
	result, err := a.withText(ctx, code, func(c *C.char, h C.uintptr_t) C.int {
		return C.fbsgo_auth_check_action_code_async(a.raw, c, h)
	})
	return result.actionCode, err
}
