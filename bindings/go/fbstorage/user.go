package fbstorage

import (
	"fmt"
	"time"
)

// User is a signed-in user at one moment: profile and tokens. Its String never shows tokens.
type User struct {
	UID, Email, DisplayName, PhotoURL string
	IsAnonymous                       bool
	IsEmailVerified                   bool   // as of the ID token, or the last Reload or account change
	SignInProvider                    string // "anonymous", "password", "custom", …
	IDToken                           string // a credential: never log it
	RefreshToken                      string // a credential: restores the session with SignInWithRefreshToken
	ClaimsJSON                        string // the ID token's payload, custom claims included
	TokenExpiration, TokenIssuedAt    time.Time
	AuthTime                          time.Time
	// The account's sign-in methods and dates, as of the sign-in (which reads the account),
	// the last Reload or account change.
	ProviderData                 []UserInfo
	CreationTime, LastSignInTime time.Time
	// What the sign-in, reauthentication or provider's link that answered this user said
	// beyond it; nil on any other user.
	AdditionalUserInfo *AdditionalUserInfo
}

// AdditionalUserInfo is what a sign-in's answer says beyond the user (the SDKs'
// AdditionalUserInfo).
type AdditionalUserInfo struct {
	ProviderID  string
	IsNewUser   bool   // the sign-in made the account
	ProfileJSON string // the identity provider's profile of the user (a JSON object); "" without one
	Username    string // the user's name at the provider (screenName)
}

func (u User) String() string {
	return fmt.Sprintf("User{UID: %q, Email: %q, IsAnonymous: %t, SignInProvider: %q}", u.UID, u.Email, u.IsAnonymous, u.SignInProvider)
}
