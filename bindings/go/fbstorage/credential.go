package fbstorage

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync"
)

// Credential is what a user proves who they are with: an email and password, or an identity
// provider's ID token and/or access token. Immutable and safe for concurrent use; its secrets
// stay in the library (never in messages). Close it when done (a finalizer does otherwise).
type Credential struct {
	raw        *C.fbs_credential
	providerID string
	closeOnce  sync.Once
}

// NewEmailCredential is an email and password credential (the "password" provider).
// Errors: ErrInvalidArgument (empty).
func NewEmailCredential(email, password string) (*Credential, error) {
	e, p := cString(email), cString(password)
	defer free(e)
	defer free(p)
	return newCredential("password", func(out **C.fbs_credential) C.int { return C.fbs_credential_email(e, p, out) })
}

// NewIDPCredential is an identity provider's credential ("google.com", "apple.com",
// "github.com", …) with its ID token, its access token, or both ("" for none).
// Errors: ErrInvalidArgument (no token, the "password" provider).
func NewIDPCredential(providerID, idToken, accessToken string) (*Credential, error) {
	provider, id, access := cString(providerID), cStringOrNil(idToken), cStringOrNil(accessToken)
	defer free(provider)
	defer free(id)
	defer free(access)
	return newCredential(providerID, func(out **C.fbs_credential) C.int { return C.fbs_credential_idp(provider, id, access, out) })
}

// NewOAuthCredential is NewIDPCredential with the raw nonce the ID token was made for (Sign in
// with Apple) and an OAuth 1.0 token secret for the access token (Twitter); "" for none.
// Errors: ErrInvalidArgument (as NewIDPCredential; a nonce without an ID token, a secret without
// an access token).
func NewOAuthCredential(providerID, idToken, rawNonce, accessToken, secret string) (*Credential, error) {
	provider, id, nonce := cString(providerID), cStringOrNil(idToken), cStringOrNil(rawNonce)
	access, tokenSecret := cStringOrNil(accessToken), cStringOrNil(secret)
	defer free(provider)
	defer free(id)
	defer free(nonce)
	defer free(access)
	defer free(tokenSecret)
	return newCredential(providerID, func(out **C.fbs_credential) C.int {
		return C.fbs_credential_oauth(provider, id, nonce, access, tokenSecret, out)
	})
}

// NewTwitterCredential is a Twitter OAuth 1.0 token and its secret.
// Errors: ErrInvalidArgument (either empty).
func NewTwitterCredential(token, secret string) (*Credential, error) {
	provider, access, tokenSecret := cString("twitter.com"), cString(token), cString(secret)
	defer free(provider)
	defer free(access)
	defer free(tokenSecret)
	return newCredential("twitter.com", func(out **C.fbs_credential) C.int {
		return C.fbs_credential_oauth(provider, nil, nil, access, tokenSecret, out)
	})
}

// NewGoogleCredential is a Google Sign-In ID token and/or access token ("" for none).
func NewGoogleCredential(idToken, accessToken string) (*Credential, error) {
	return NewIDPCredential("google.com", idToken, accessToken)
}

func newCredential(providerID string, make func(**C.fbs_credential) C.int) (*Credential, error) {
	var raw *C.fbs_credential
	if err := call(func() C.int { return make(&raw) }); err != nil {
		return nil, err
	}
	c := &Credential{raw: raw, providerID: providerID}
	runtime.SetFinalizer(c, (*Credential).Close)
	return c, nil
}

// ProviderID is "password", "google.com", …
func (c *Credential) ProviderID() string {
	return c.providerID
}

// String never shows the secrets.
func (c *Credential) String() string {
	return "Credential{ProviderID: " + c.providerID + "}"
}

// Close releases the credential; calls that were given it do not need it any more.
func (c *Credential) Close() {
	c.closeOnce.Do(func() { C.fbs_credential_free(c.raw) })
}
