package fbstorage

/*
#include "shim.h"
int fbsgo_app_check_set_custom_provider(fbs_app_check *a, uintptr_t key);
int fbsgo_app_check_get_token_async(fbs_app_check *a, int force_refresh, uintptr_t h);
int fbsgo_app_check_get_limited_use_token_async(fbs_app_check *a, uintptr_t h);
int fbsgo_app_check_add_token_listener(fbs_app_check *a, uintptr_t key, fbs_listener_handle *out);
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// AppCheckToken is a Firebase App Check token and the time it expires.
type AppCheckToken struct {
	Token      string
	ExpireTime time.Time
}

// String hides the token.
func (t AppCheckToken) String() string {
	return fmt.Sprintf("AppCheckToken{expires %s}", t.ExpireTime.Format(time.RFC3339))
}

// AppCheckProvider gets a new App Check token (limitedUse: for one replay-protected call),
// typically from your backend, which attests the device and mints it. It runs on a goroutine
// of its own; ctx ends with the library's deadline for the token (120 s).
type AppCheckProvider func(ctx context.Context, limitedUse bool) (AppCheckToken, error)

// providerTimeout bounds a provider's call, as the library bounds the operation waiting for it.
const providerTimeout = 120 * time.Second

var appCheckProviders registry[AppCheckProvider]

//export fbsgoAppCheckProvider
func fbsgoAppCheckProvider(limitedUse C.int, request *C.fbs_app_check_request, key C.uintptr_t) {
	provider := appCheckProviders.get(uint64(key))
	go answer(provider, limitedUse != 0, request)
}

//export fbsgoAppCheckProviderReleased
func fbsgoAppCheckProviderReleased(key C.uintptr_t) {
	appCheckProviders.remove(uint64(key))
}

// answer asks provider and answers the library's request, exactly once whatever happens.
func answer(provider AppCheckProvider, limitedUse bool, request *C.fbs_app_check_request) {
	token, err := AppCheckToken{}, error(nil)
	if provider == nil {
		err = fmt.Errorf("the provider was removed")
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), providerTimeout)
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("the provider panicked: %v", r)
				}
			}()
			token, err = provider(ctx, limitedUse)
		}()
		cancel()
	}
	if err != nil {
		message := cString(err.Error())
		defer free(message)
		C.fbs_app_check_request_fail(request, message)
		return
	}
	value := cString(token.Token)
	defer free(value)
	// An unusable token fails the waiting request (FBS_ERR_APP_CHECK_PROVIDER_FAILED) in the library.
	C.fbs_app_check_request_complete(request, value, C.int64_t(token.ExpireTime.UnixMilli()))
}

// AppCheck is Firebase App Check for one app (project id, app id), usable by any number of
// storages: it gets tokens from its provider and keeps one fresh (fbstorage/app_check.h). With
// FIREBASE_APP_CHECK_EMULATOR_HOST set when it is created, the token exchange goes to that
// emulator. Safe for concurrent use; Close it when done.
type AppCheck struct {
	raw       *C.fbs_app_check
	closeOnce sync.Once
}

// NewAppCheck is an App Check for app appID ("1:1234:web:abcd") of projectID, with no provider
// yet. apiKey ("" for none) goes with the token exchange; production needs it.
func NewAppCheck(projectID, appID, apiKey string) (*AppCheck, error) {
	project, app, key := cString(projectID), cString(appID), cStringOrNil(apiKey)
	defer free(project)
	defer free(app)
	defer free(key)
	var raw *C.fbs_app_check
	if err := call(func() C.int { return C.fbs_app_check_new(project, app, key, &raw) }); err != nil {
		return nil, err
	}
	a := &AppCheck{raw: raw}
	runtime.SetFinalizer(a, (*AppCheck).Close)
	return a, nil
}

// Close releases the App Check; storages using it keep it alive until they stop.
func (a *AppCheck) Close() {
	a.closeOnce.Do(func() { C.fbs_app_check_free(a.raw) })
}

// UseEmulator sends the token exchange to an emulator at http://host:port.
func (a *AppCheck) UseEmulator(host string, port int) error {
	h := cString(host)
	defer free(h)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_app_check_use_emulator(a.raw, h, C.int(port)) })
}

// SetTokenAutoRefreshEnabled renews the kept token in the background before requests need it,
// as the SDKs' token refreshers do: halfway through each kept token's life, and after a failed
// renewal again with backoff (1 s, doubling, at most 5 minutes); token listeners hear of each.
// Off by default: a token is then renewed when a request needs one. The first token is always
// asked for by a request; a token given with SetToken is never refreshed.
func (a *AppCheck) SetTokenAutoRefreshEnabled(enabled bool) error {
	defer runtime.KeepAlive(a)
	flag := C.int(0)
	if enabled {
		flag = 1
	}
	return call(func() C.int { return C.fbs_app_check_set_token_auto_refresh_enabled(a.raw, flag) })
}

// IsTokenAutoRefreshEnabled reports whether SetTokenAutoRefreshEnabled turned auto-refresh on.
func (a *AppCheck) IsTokenAutoRefreshEnabled() bool {
	defer runtime.KeepAlive(a)
	return C.fbs_app_check_is_token_auto_refresh_enabled(a.raw) == 1
}

// SetDebugProvider exchanges debugToken, registered in the Firebase console or with the
// emulator's --app-check-debug-token, for tokens; "" reads it from the environment
// (FIREBASE_APP_CHECK_DEBUG_TOKEN, FIRAAppCheckDebugToken, AppCheckDebugToken). For CI and
// development only.
func (a *AppCheck) SetDebugProvider(debugToken string) error {
	t := cStringOrNil(debugToken)
	defer free(t)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_app_check_set_debug_provider(a.raw, t) })
}

// SetCustomProvider makes provider the source of tokens; nil removes the provider.
func (a *AppCheck) SetCustomProvider(provider AppCheckProvider) error {
	defer runtime.KeepAlive(a)
	if provider == nil {
		return call(func() C.int { return C.fbs_app_check_set_custom_provider(a.raw, nil, nil) })
	}
	key := appCheckProviders.insert(provider) // removed by the library's destroy callback, even on failure
	return call(func() C.int { return C.fbsgo_app_check_set_custom_provider(a.raw, C.uintptr_t(key)) })
}

// SetToken uses a token minted elsewhere until expires; then requests fail until a new one is set.
func (a *AppCheck) SetToken(token string, expires time.Time) error {
	t := cString(token)
	defer free(t)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_app_check_set_token(a.raw, t, C.int64_t(expires.UnixMilli())) })
}

//export fbsgoAppCheckTokenDone
func fbsgoAppCheckTokenDone(status C.int, token *C.char, expireMS C.int64_t, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, _ any) {
		o.appCheck = AppCheckToken{Token: C.GoString(token), ExpireTime: time.UnixMilli(int64(expireMS))}
	})
}

// Token is the current token, renewed first when about to expire or when forceRefresh.
func (a *AppCheck) Token(ctx context.Context, forceRefresh bool) (AppCheckToken, error) {
	force := C.int(0)
	if forceRefresh {
		force = 1
	}
	result, err := await(ctx, a, func(h C.uintptr_t) C.int { return C.fbsgo_app_check_get_token_async(a.raw, force, h) })
	return result.appCheck, err
}

// LimitedUseToken is a new limited-use token, for one replay-protected call of your own backend.
func (a *AppCheck) LimitedUseToken(ctx context.Context) (AppCheckToken, error) {
	result, err := await(ctx, a, func(h C.uintptr_t) C.int { return C.fbsgo_app_check_get_limited_use_token_async(a.raw, h) })
	return result.appCheck, err
}

var appCheckTokenListeners registry[func(AppCheckToken)]

//export fbsgoAppCheckTokenListener
func fbsgoAppCheckTokenListener(token *C.char, expireMS C.int64_t, key C.uintptr_t) {
	if listener := appCheckTokenListeners.get(uint64(key)); listener != nil {
		kept := AppCheckToken{Token: C.GoString(token), ExpireTime: time.UnixMilli(int64(expireMS))}
		guarded(func() { listener(kept) })
	}
}

//export fbsgoAppCheckTokenListenerReleased
func fbsgoAppCheckTokenListenerReleased(key C.uintptr_t) {
	appCheckTokenListeners.remove(uint64(key))
}

// TokenListenerID identifies a token listener, for RemoveTokenListener.
type TokenListenerID struct {
	handle C.fbs_listener_handle
}

// AddTokenListener calls fn (on the App Check's callback thread) with every token the App Check
// keeps: each renewal's and each token given to SetToken, never a limited-use token; and at
// once when a fresh token is kept already. Close removes it.
func (a *AppCheck) AddTokenListener(fn func(AppCheckToken)) (TokenListenerID, error) {
	if fn == nil {
		return TokenListenerID{}, &Error{Code: CodeInvalidArgument, Message: "the token listener is nil"}
	}
	defer runtime.KeepAlive(a)
	key := appCheckTokenListeners.insert(fn) // removed by the library's destroy callback, even on failure
	var handle C.fbs_listener_handle
	err := call(func() C.int { return C.fbsgo_app_check_add_token_listener(a.raw, C.uintptr_t(key), &handle) })
	return TokenListenerID{handle: handle}, err
}

// RemoveTokenListener stops a token listener: it is not called after this returns (unless
// called from a listener: then after the running call).
func (a *AppCheck) RemoveTokenListener(id TokenListenerID) error {
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_app_check_remove_token_listener(a.raw, id.handle) })
}

// UseAppCheck makes every request of the storage, running tasks included, carry a token of a;
// nil detaches. The storage keeps a alive.
func (s *Storage) UseAppCheck(a *AppCheck) error {
	var raw *C.fbs_app_check
	if a != nil {
		raw = a.raw
	}
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_storage_use_app_check(s.raw, raw) })
}
