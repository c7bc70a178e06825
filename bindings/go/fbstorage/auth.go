package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
	"sync"
)

func copyUser(u *C.fbs_user) *User {
	if u == nil {
		return nil
	}
	return &User{
		UID: goString(C.fbs_user_uid(u)), Email: goString(C.fbs_user_email(u)),
		DisplayName: goString(C.fbs_user_display_name(u)), PhotoURL: goString(C.fbs_user_photo_url(u)),
		IsAnonymous: C.fbs_user_is_anonymous(u) == 1, IsEmailVerified: C.fbs_user_is_email_verified(u) == 1,
		SignInProvider: goString(C.fbs_user_sign_in_provider(u)),
		IDToken:        goString(C.fbs_user_id_token(u)), RefreshToken: goString(C.fbs_user_refresh_token(u)),
		ClaimsJSON:         goString(C.fbs_user_claims_json(u)),
		TokenExpiration:    timeFromMillis(C.fbs_user_token_expiration(u)),
		TokenIssuedAt:      timeFromMillis(C.fbs_user_token_issued_at(u)),
		AuthTime:           timeFromMillis(C.fbs_user_auth_time(u)),
		ProviderData:       copyProviders(u),
		CreationTime:       timeFromMillis(C.fbs_user_creation_time(u)),
		LastSignInTime:     timeFromMillis(C.fbs_user_last_sign_in_time(u)),
		AdditionalUserInfo: copyAdditionalUserInfo(u),
	}
}

func copyAdditionalUserInfo(u *C.fbs_user) *AdditionalUserInfo {
	newUser := C.fbs_user_is_new_user(u)
	if newUser < 0 {
		return nil
	}
	return &AdditionalUserInfo{
		ProviderID: goString(C.fbs_user_additional_provider_id(u)), IsNewUser: newUser == 1,
		ProfileJSON: goString(C.fbs_user_additional_profile_json(u)), Username: goString(C.fbs_user_additional_username(u)),
	}
}

//export fbsgoUserDone
func fbsgoUserDone(status C.int, u *C.fbs_user, handle C.uintptr_t) {
	deliver(handle, status, func(o *outcome, _ any) { o.user = copyUser(u) })
}

var listeners registry[func(*User)]

//export fbsgoAuthListener
func fbsgoAuthListener(u *C.fbs_user, key C.uintptr_t) {
	if listener := listeners.get(uint64(key)); listener != nil {
		user := copyUser(u)
		guarded(func() { listener(user) })
	}
}

// ListenerID identifies a listener, for RemoveListener.
type ListenerID struct {
	key    uint64
	handle C.fbs_listener_handle
}

// Auth is Firebase Auth for one app (Web API key, project id), usable by any number of
// storages; it keeps the user's ID token fresh. With FIREBASE_AUTH_EMULATOR_HOST set when it
// is created, it talks to that emulator. Safe for concurrent use; Close it when done.
type Auth struct {
	raw       *C.fbs_auth
	closeOnce sync.Once
	mu        sync.Mutex
	keys      []uint64
}

// NewAuth is an auth for the app with this API key and project id ("" to learn it from the first sign-in).
func NewAuth(apiKey, projectID string) (*Auth, error) {
	key, project := cString(apiKey), cStringOrNil(projectID)
	defer free(key)
	defer free(project)
	var raw *C.fbs_auth
	if err := call(func() C.int { return C.fbs_auth_new(key, project, &raw) }); err != nil {
		return nil, err
	}
	a := &Auth{raw: raw}
	runtime.SetFinalizer(a, (*Auth).Close)
	return a, nil
}

// Close releases the auth; storages using it keep it alive until they stop. Its listeners are
// not called again.
func (a *Auth) Close() {
	a.closeOnce.Do(func() {
		C.fbs_auth_free(a.raw)
		a.mu.Lock()
		defer a.mu.Unlock()
		for _, key := range a.keys {
			listeners.remove(key)
		}
	})
}

// UseEmulator sends Auth requests to an Auth emulator at http://host:port.
func (a *Auth) UseEmulator(host string, port int) error {
	h := cString(host)
	defer free(h)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_auth_use_emulator(a.raw, h, C.int(port)) })
}

// SetPersistenceFile keeps the signed-in user in path (mode 0600); a user already there becomes
// the current user at once. "" stops persisting.
func (a *Auth) SetPersistenceFile(path string) error {
	p := cStringOrNil(path)
	defer free(p)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_auth_set_persistence_file(a.raw, p) })
}

// SetPersistenceForApp keeps the signed-in user between runs in the user's configuration folder,
// as the SDKs keep it in the keychain: SetPersistenceFile on
// $XDG_CONFIG_HOME/<program>/<appName>-<API key hash>.json (~/.config without XDG_CONFIG_HOME;
// missing folders made with mode 0700). program is one path component naming the program.
func (a *Auth) SetPersistenceForApp(program, appName string) error {
	p, n := cString(program), cString(appName)
	defer free(p)
	defer free(n)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_auth_set_persistence_for_app(a.raw, p, n) })
}

func (a *Auth) signIn(ctx context.Context, start func(C.uintptr_t) C.int) (*User, error) {
	result, err := await(ctx, a, start)
	return result.user, err
}

// SignInAnonymously signs in as a new anonymous user.
func (a *Auth) SignInAnonymously(ctx context.Context) (*User, error) {
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_sign_in_anonymously_async(a.raw, h) })
}

// CreateUser creates an email/password account and signs in as it.
func (a *Auth) CreateUser(ctx context.Context, email, password string) (*User, error) {
	e, p := cString(email), cString(password)
	defer free(e)
	defer free(p)
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_create_user_async(a.raw, e, p, h) })
}

// SignInWithEmail signs in with an email and password.
func (a *Auth) SignInWithEmail(ctx context.Context, email, password string) (*User, error) {
	e, p := cString(email), cString(password)
	defer free(e)
	defer free(p)
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_sign_in_with_email_async(a.raw, e, p, h) })
}

// SignInWithCustomToken signs in with a custom token minted by a backend.
func (a *Auth) SignInWithCustomToken(ctx context.Context, token string) (*User, error) {
	t := cString(token)
	defer free(t)
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_sign_in_with_custom_token_async(a.raw, t, h) })
}

// SignInWithRefreshToken restores a session from a refresh token saved earlier.
func (a *Auth) SignInWithRefreshToken(ctx context.Context, refreshToken string) (*User, error) {
	t := cString(refreshToken)
	defer free(t)
	return a.signIn(ctx, func(h C.uintptr_t) C.int { return C.fbsgo_auth_sign_in_with_refresh_token_async(a.raw, t, h) })
}

// SignOut forgets the current user (nothing is sent).
func (a *Auth) SignOut() error {
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_auth_sign_out(a.raw) })
}

// DeleteUser deletes the current user's account, then signs out.
func (a *Auth) DeleteUser(ctx context.Context) error {
	_, err := await(ctx, a, func(h C.uintptr_t) C.int { return C.fbsgo_auth_delete_user_async(a.raw, h) })
	return err
}

// CurrentUser is the current user; nil when signed out.
func (a *Auth) CurrentUser() (*User, error) {
	defer runtime.KeepAlive(a)
	var u *C.fbs_user
	if err := call(func() C.int { return C.fbs_auth_current_user(a.raw, &u) }); err != nil {
		return nil, err
	}
	defer C.fbs_user_free(u)
	return copyUser(u), nil
}

// IDToken is the current user's ID token, refreshed first when about to expire or when forceRefresh.
func (a *Auth) IDToken(ctx context.Context, forceRefresh bool) (string, error) {
	force := C.int(0)
	if forceRefresh {
		force = 1
	}
	result, err := await(ctx, a, func(h C.uintptr_t) C.int { return C.fbsgo_auth_get_id_token_async(a.raw, force, h) })
	return result.value, err
}

func (a *Auth) addListener(idToken C.int, fn func(*User)) (ListenerID, error) {
	key := listeners.insert(fn)
	var handle C.fbs_listener_handle
	defer runtime.KeepAlive(a)
	if err := call(func() C.int { return C.fbsgo_auth_add_listener(a.raw, idToken, C.uintptr_t(key), &handle) }); err != nil {
		listeners.remove(key)
		return ListenerID{}, err
	}
	a.mu.Lock()
	a.keys = append(a.keys, key)
	a.mu.Unlock()
	return ListenerID{key: key, handle: handle}, nil
}

// AddStateListener calls fn (on the auth's callback thread) at once with the current user, then
// on sign-in, sign-out and a change of user; nil means signed out.
func (a *Auth) AddStateListener(fn func(*User)) (ListenerID, error) {
	return a.addListener(0, fn)
}

// AddIDTokenListener is as AddStateListener, and also called on every new ID token.
func (a *Auth) AddIDTokenListener(fn func(*User)) (ListenerID, error) {
	return a.addListener(1, fn)
}

// RemoveListener stops a listener: it is not called again.
func (a *Auth) RemoveListener(id ListenerID) error {
	defer runtime.KeepAlive(a)
	err := call(func() C.int { return C.fbs_auth_remove_listener(a.raw, id.handle) })
	listeners.remove(id.key)
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, key := range a.keys {
		if key == id.key {
			a.keys = append(a.keys[:i], a.keys[i+1:]...)
			break
		}
	}
	return err
}

// UseAuth makes every request of the storage, running tasks included, carry the current user
// of a (refreshed as needed); nil detaches. The storage keeps a alive.
func (s *Storage) UseAuth(a *Auth) error {
	var raw *C.fbs_auth
	if a != nil {
		raw = a.raw
	}
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(a)
	return call(func() C.int { return C.fbs_storage_use_auth(s.raw, raw) })
}
