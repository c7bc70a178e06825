package fbstorage

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Email-link sign-in, the account's sign-in methods and dates, and CheckActionCode against the
// bundled emulator (both flavors), the mailed link read from its oobCodes route.

var signInSettings = ActionCodeSettings{URL: "https://app.example.com/finish?cart=12", HandleCodeInApp: true,
	AndroidPackageName: "com.example.android", AndroidInstallApp: true}

func TestEmailLinkSignInThenTheAccountsSignInMethodsAndDates(t *testing.T) {
	for _, flavor := range flavors {
		e := verifiedEmulator(t, flavor)
		a := newTestAuth(t, e)
		address := testEmail("link")
		before := time.Now().Add(-time.Second)
		must(t, a.SendSignInLinkToEmail(background, address, signInSettings))
		link := pendingOob(t, e, "EMAIL_SIGNIN", address).OobLink
		if !strings.Contains(link, "continueUrl=https%3A%2F%2Fapp.example.com%2Ffinish%3Fcart%3D12") {
			t.Fatalf("%s: %s", flavor, link)
		}
		if ok, err := a.IsSignInWithEmailLink(link); !ok || err != nil {
			t.Fatalf("%s: a sign-in link: %t %v", flavor, ok, err)
		}
		if ok, err := a.IsSignInWithEmailLink("https://x.example/a?mode=verifyEmail&oobCode=c0de"); ok || err != nil {
			t.Fatalf("a verification link: %t %v", ok, err)
		}

		user, err := a.SignInWithEmailLink(background, address, link)
		must(t, err)
		if user.Email != address || !user.IsEmailVerified || len(user.ProviderData) != 1 ||
			user.ProviderData[0].ProviderID != "password" || user.CreationTime.IsZero() {
			t.Fatalf("%s: %+v (the sign-in reads the account: its email method and dates)", flavor, *user)
		}
		_, err = a.SignInWithEmailLink(background, address, link)
		expectCode(t, err, ErrAuthInvalidActionCode, flavor+": used link")

		reloaded, err := a.Reload(background)
		must(t, err)
		after := time.Now().Add(time.Second)
		want := UserInfo{ProviderID: "password", UID: address, Email: address}
		if len(reloaded.ProviderData) != 1 || reloaded.ProviderData[0] != want {
			t.Fatalf("%s: %+v", flavor, reloaded.ProviderData)
		}
		created, signedIn := reloaded.CreationTime, reloaded.LastSignInTime
		if created.Before(before) || created.After(after) || signedIn.Before(created) || signedIn.After(after) {
			t.Fatalf("%s: created %v, signed in %v, between %v and %v", flavor, created, signedIn, before, after)
		}

		sub := unique("google-lee")
		token, _ := json.Marshal(map[string]any{"sub": sub, "email": address, "name": "Lee"})
		lee, err := NewGoogleCredential(string(token), "")
		must(t, err)
		t.Cleanup(lee.Close)
		linked, err := a.LinkWithCredential(background, lee)
		must(t, err)
		var google *UserInfo
		for i := range linked.ProviderData {
			if linked.ProviderData[i].ProviderID == "google.com" {
				google = &linked.ProviderData[i]
			}
		}
		if len(linked.ProviderData) != 2 || google == nil || google.UID != sub || google.DisplayName != "Lee" ||
			!linked.CreationTime.Equal(created) {
			t.Fatalf("%s: %+v", flavor, linked.ProviderData)
		}
		unlinked, err := a.Unlink(background, "google.com")
		must(t, err)
		if len(unlinked.ProviderData) != 1 || unlinked.ProviderData[0] != want {
			t.Fatalf("%s: %+v", flavor, unlinked.ProviderData)
		}
	}
}

func TestEmailLinkAndActionCodeErrors(t *testing.T) {
	e := verifiedEmulator(t, "production")
	a := newTestAuth(t, e)
	address := testEmail("check")
	err := a.SendSignInLinkToEmail(background, address, ActionCodeSettings{URL: "https://app.example.com/finish"})
	expectCode(t, err, ErrInvalidArgument, "settings without HandleCodeInApp")
	err = a.SendSignInLinkToEmail(background, address, ActionCodeSettings{URL: "/finish", HandleCodeInApp: true})
	expectCode(t, err, ErrInvalidArgument, "a relative continue URL")
	expectCode(t, a.SendSignInLinkToEmail(background, "not-an-email", signInSettings), ErrAuthInvalidEmail, "bad address")
	_, err = a.IsSignInWithEmailLink("https://x.example/\xff?mode=signIn&oobCode=c0de")
	expectCode(t, err, ErrInvalidArgument, "a link that is not UTF-8")
	ended, cancel := context.WithCancel(background)
	cancel()
	expectCode(t, a.SendSignInLinkToEmail(ended, address, signInSettings), context.Canceled, "an ended context")

	_, err = a.CreateUser(background, address, "secret-1")
	must(t, err)
	must(t, a.SendPasswordResetEmail(background, address))
	reset := oobCode(t, e, "PASSWORD_RESET", address)
	info, err := a.CheckActionCode(background, reset)
	must(t, err)
	if info != (ActionCodeInfo{Operation: "PASSWORD_RESET", Email: address}) {
		t.Fatalf("%+v", info)
	}
	must(t, a.SendSignInLinkToEmail(background, address, signInSettings))
	info, err = a.CheckActionCode(background, oobCode(t, e, "EMAIL_SIGNIN", address))
	must(t, err)
	if info != (ActionCodeInfo{Operation: "EMAIL_SIGNIN"}) {
		t.Fatalf("a sign-in code does not reveal its address: %+v", info)
	}
	_, err = a.CheckActionCode(background, "no-such-code")
	expectCode(t, err, ErrAuthInvalidActionCode, "unknown code")
	_, err = a.CheckActionCode(background, "")
	expectCode(t, err, ErrInvalidArgument, "empty code")
	must(t, a.ConfirmPasswordReset(background, reset, "new-secret")) // checking used nothing up
}
