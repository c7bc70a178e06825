package fbstorage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The account lifecycle against the bundled emulator's Auth routes (both flavors): credentials,
// linking, re-authentication, email and password changes, and the emailed codes, read from the
// emulator's oobCodes route as a test "clicks the link"; storage rules see the result.

const verifiedRules = `rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} { allow read, write: if request.auth.uid == uid; }
    match /verified/{file=**} { allow write: if request.auth.token.email_verified == true; }
  }
}`

var (
	verifiedRulesOnce sync.Once
	verifiedRulesPath string
)

// verifiedEmulator is the emulator of flavor with verifiedRules, started on first use; its rules
// file stays until the emulators started after it stopped (the emulator reloads it when it changes).
func verifiedEmulator(t *testing.T, flavor string) *emulator {
	verifiedRulesOnce.Do(func() {
		file, err := os.CreateTemp("", "fbstorage-go-verified-*.rules")
		must(t, err)
		_, err = file.WriteString(verifiedRules)
		must(t, err)
		must(t, file.Close())
		verifiedRulesPath = file.Name()
		emulatorsMu.Lock()
		stopAll = append(stopAll, func() { os.Remove(verifiedRulesPath) })
		emulatorsMu.Unlock()
	})
	return emulatorWith(t, flavor, "--rules", verifiedRulesPath)
}

// oobCode is the one pending code of this kind for this email (GET /emulator/v1/projects/{id}/oobCodes).
func oobCode(t *testing.T, e *emulator, requestType, email string) string {
	t.Helper()
	return pendingOob(t, e, requestType, email).OobCode
}

// pendingOob is the one pending code of this kind for this email, with its link.
func pendingOob(t *testing.T, e *emulator, requestType, email string) struct{ OobCode, OobLink string } {
	t.Helper()
	response, err := http.Get(fmt.Sprintf("http://%s/emulator/v1/projects/demo-project/oobCodes", e.address()))
	must(t, err)
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	var answer struct {
		OobCodes []struct{ Email, OobCode, OobLink, RequestType string }
	}
	if err := json.Unmarshal(body, &answer); err != nil || response.StatusCode != 200 {
		t.Fatalf("%d %s (%v)", response.StatusCode, body, err)
	}
	var codes []struct{ OobCode, OobLink string }
	for _, code := range answer.OobCodes {
		if code.RequestType == requestType && code.Email == email {
			codes = append(codes, struct{ OobCode, OobLink string }{code.OobCode, code.OobLink})
		}
	}
	if len(codes) != 1 {
		t.Fatalf("%s for %s: %s", requestType, email, body)
	}
	return codes[0]
}

func testEmail(name string) string {
	return unique(name) + "@example.com"
}

// googleCredential carries the Auth emulator's fake Google ID token (a JSON object).
func googleCredential(t *testing.T, sub, email string, verified bool) *Credential {
	token, _ := json.Marshal(map[string]any{"sub": sub, "email": email, "email_verified": verified})
	c, err := NewGoogleCredential(string(token), "")
	must(t, err)
	t.Cleanup(c.Close)
	return c
}

func emailCredential(t *testing.T, email, password string) *Credential {
	c, err := NewEmailCredential(email, password)
	must(t, err)
	t.Cleanup(c.Close)
	return c
}

func expectCode(t *testing.T, err error, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

func TestAnonymousUserLinksAnEmailVerifiesItAndTheRuleAllows(t *testing.T) {
	for _, flavor := range flavors {
		e := verifiedEmulator(t, flavor)
		a := newTestAuth(t, e)
		s := e.storage(t)
		must(t, s.UseAuth(a))
		anonymous, err := a.SignInAnonymously(background)
		must(t, err)
		notes, _ := s.Reference("users/" + anonymous.UID + "/notes.txt")
		upload(t, notes, []byte("mine"), nil)
		verified, _ := s.Reference("verified/" + unique("a"))

		address := testEmail("ada")
		linked, err := a.LinkWithCredential(background, emailCredential(t, address, "secret-1"))
		must(t, err)
		if linked.UID != anonymous.UID || linked.IsAnonymous || linked.IsEmailVerified || linked.Email != address {
			t.Fatalf("%s: %+v", flavor, *linked)
		}
		task, err := verified.PutData(background, []byte("x"), nil)
		must(t, err)
		_, err = task.Wait(background)
		expectCode(t, err, ErrUnauthorized, flavor+": unverified")

		must(t, a.SendEmailVerification(background))
		must(t, a.ApplyActionCode(background, oobCode(t, e, "VERIFY_EMAIL", address)))
		reloaded, err := a.Reload(background)
		must(t, err)
		if !reloaded.IsEmailVerified || !strings.Contains(reloaded.ClaimsJSON, `"email_verified":true`) {
			t.Fatalf("%s: %+v %s", flavor, *reloaded, reloaded.ClaimsJSON)
		}
		upload(t, verified, []byte("x"), nil)
		if data, err := notes.Data(background, 100); err != nil || string(data) != "mine" {
			t.Fatalf("the anonymous user's files: %q %v", data, err)
		}
		must(t, a.SignOut())
		again, err := a.SignInWithEmail(background, address, "secret-1")
		must(t, err)
		if again.UID != anonymous.UID {
			t.Fatalf("%s: %s", flavor, again.UID)
		}
	}
}

func TestPasswordResetThroughTheEmailedCode(t *testing.T) {
	e := verifiedEmulator(t, "production")
	a := newTestAuth(t, e)
	address := testEmail("bob")
	created, err := a.CreateUser(background, address, "old-secret")
	must(t, err)
	must(t, a.SignOut())
	must(t, a.SendPasswordResetEmail(background, address))
	code := oobCode(t, e, "PASSWORD_RESET", address)
	if email, err := a.VerifyPasswordResetCode(background, code); err != nil || email != address {
		t.Fatalf("%q %v", email, err)
	}
	expectCode(t, a.ConfirmPasswordReset(background, code, "123"), ErrAuthWeakPassword, "weak")
	must(t, a.ConfirmPasswordReset(background, code, "new-secret"))
	expectCode(t, a.ConfirmPasswordReset(background, code, "other-1"), ErrAuthInvalidActionCode, "used")
	_, err = a.VerifyPasswordResetCode(background, "no-such-code")
	expectCode(t, err, ErrAuthInvalidActionCode, "unknown code")
	expectCode(t, a.ApplyActionCode(background, "no-such-code"), ErrAuthInvalidActionCode, "unknown code")
	_, err = a.SignInWithEmail(background, address, "old-secret")
	expectCode(t, err, ErrAuthWrongPassword, "old password")
	user, err := a.SignInWithEmail(background, address, "new-secret")
	must(t, err)
	if user.UID != created.UID {
		t.Fatal(user.UID)
	}
	expectCode(t, a.SendPasswordResetEmail(background, testEmail("nobody")), ErrAuthUserNotFound, "nobody")
	expectCode(t, a.SendPasswordResetEmail(background, "not-an-email"), ErrAuthInvalidEmail, "not an email")
}

func TestGoogleCredentialsSignInLinkAndUnlink(t *testing.T) {
	for _, flavor := range flavors {
		e := verifiedEmulator(t, flavor)
		a := newTestAuth(t, e)
		aliceSub, aliceEmail := unique("google-alice"), testEmail("alice")
		alice, err := a.SignInWithCredential(background, googleCredential(t, aliceSub, aliceEmail, true))
		must(t, err)
		if alice.SignInProvider != "google.com" || !alice.IsEmailVerified || !strings.Contains(alice.ClaimsJSON, aliceSub) {
			t.Fatalf("%s: %+v %s", flavor, *alice, alice.ClaimsJSON)
		}
		again, err := a.SignInWithCredential(background, googleCredential(t, aliceSub, aliceEmail, true))
		must(t, err)
		if again.UID != alice.UID {
			t.Fatal("a returning user is the same account")
		}

		must(t, a.SignOut())
		anonymous, err := a.SignInAnonymously(background)
		must(t, err)
		bob := googleCredential(t, unique("google-bob"), testEmail("bob"), true)
		if bob.ProviderID() != "google.com" || strings.Contains(bob.String(), "google-bob") {
			t.Fatal(bob.String())
		}
		linked, err := a.LinkWithCredential(background, bob)
		must(t, err)
		if linked.UID != anonymous.UID || !strings.Contains(linked.ClaimsJSON, `"google.com":[`) {
			t.Fatalf("%s: %s", flavor, linked.ClaimsJSON)
		}
		_, err = a.LinkWithCredential(background, bob)
		expectCode(t, err, ErrAuthProviderAlreadyLinked, "linked twice")
		unlinked, err := a.Unlink(background, "google.com")
		must(t, err)
		if unlinked.UID != anonymous.UID || strings.Contains(unlinked.ClaimsJSON, `"google.com":[`) {
			t.Fatalf("%s: %s", flavor, unlinked.ClaimsJSON)
		}
		_, err = a.LinkWithCredential(background, googleCredential(t, aliceSub, aliceEmail, true))
		expectCode(t, err, ErrAuthCredentialAlreadyInUse, flavor+": another account's identity")
	}
}

func TestCredentialErrors(t *testing.T) {
	e := verifiedEmulator(t, "firebase-tools")
	a := newTestAuth(t, e)
	address := testEmail("carol")
	_, err := a.CreateUser(background, address, "secret-1")
	must(t, err)
	must(t, a.SignOut())
	_, err = a.SignInWithCredential(background, googleCredential(t, unique("google-carol"), address, false))
	expectCode(t, err, ErrAuthAccountExistsWithDifferentCredential, "unverified email of an account")
	bad, err := NewGoogleCredential("not a token", "")
	must(t, err)
	defer bad.Close()
	_, err = a.SignInWithCredential(background, bad)
	expectCode(t, err, ErrAuthInvalidCredential, "malformed token")
	_, err = a.SignInWithCredential(background, emailCredential(t, address, "wrong-1"))
	expectCode(t, err, ErrAuthWrongPassword, "wrong password")
	_, err = NewGoogleCredential("", "")
	expectCode(t, err, ErrInvalidArgument, "no token")
	_, err = NewIDPCredential("password", "t", "")
	expectCode(t, err, ErrInvalidArgument, "password is not an IdP")
	_, err = NewEmailCredential("", "secret-1")
	expectCode(t, err, ErrInvalidArgument, "no email")
	methods, err := a.FetchSignInMethods(background, address)
	must(t, err)
	if len(methods) != 1 || methods[0] != "password" {
		t.Fatalf("sign-in methods of %s: %q", address, methods)
	}
	if methods, err = a.FetchSignInMethods(background, testEmail("nobody")); err != nil || len(methods) != 0 {
		t.Fatalf("sign-in methods of nobody: %q, %v", methods, err)
	}
	_, err = a.FetchSignInMethods(background, "not an email")
	expectCode(t, err, ErrAuthInvalidEmail, "malformed email")
	_, err = NewTwitterCredential("token", "")
	expectCode(t, err, ErrInvalidArgument, "no token secret")
	_, err = NewOAuthCredential("apple.com", "", "raw nonce", "access token", "")
	expectCode(t, err, ErrInvalidArgument, "a nonce without an ID token")
	twitter, err := NewTwitterCredential(`{"sub":"`+unique("twitter-tess")+`"}`, "token secret")
	must(t, err)
	defer twitter.Close()
	tess, err := a.SignInWithCredential(background, twitter)
	must(t, err)
	if info := tess.AdditionalUserInfo; tess.SignInProvider != "twitter.com" || info == nil || !info.IsNewUser ||
		info.ProviderID != "twitter.com" || !strings.Contains(info.ProfileJSON, `"twitter-tess`) {
		t.Fatalf("Twitter sign-in: provider %q, additional info %+v", tess.SignInProvider, tess.AdditionalUserInfo)
	}
	if current, err := a.CurrentUser(); err != nil || current.AdditionalUserInfo != nil {
		t.Fatalf("the current user carries a sign-in's additional info: %+v, %v", current, err)
	}
	must(t, a.SignOut())

	credential := emailCredential(t, address, "secret-1")
	_, err = a.LinkWithCredential(background, credential)
	expectCode(t, err, ErrAuthNoUser, "link signed out")
	_, err = a.Reload(background)
	expectCode(t, err, ErrAuthNoUser, "reload signed out")
	expectCode(t, a.SendEmailVerification(background), ErrAuthNoUser, "verify signed out")
	carol, err := a.SignInWithCredential(background, credential)
	must(t, err)
	if carol.Email != address {
		t.Fatal(carol.Email)
	}
	_, err = a.LinkWithCredential(background, credential)
	expectCode(t, err, ErrAuthProviderAlreadyLinked, "password twice")
}

func TestReauthenticationAndEmailAndPasswordChanges(t *testing.T) {
	for _, flavor := range flavors {
		e := verifiedEmulator(t, flavor)
		a := newTestAuth(t, e)
		other, address := testEmail("eve"), testEmail("frank")
		_, err := a.CreateUser(background, other, "secret-1")
		must(t, err)
		frank, err := a.CreateUser(background, address, "secret-1")
		must(t, err)
		_, err = a.Reauthenticate(background, emailCredential(t, address, "secret-1"))
		must(t, err)
		_, err = a.Reauthenticate(background, emailCredential(t, other, "secret-1"))
		expectCode(t, err, ErrAuthUserMismatch, flavor+": another user's credential")
		if current, _ := a.CurrentUser(); current == nil || current.UID != frank.UID {
			t.Fatal("the user stays")
		}

		_, err = a.UpdatePassword(background, "secret-2")
		must(t, err)
		_, err = a.UpdatePassword(background, "123")
		expectCode(t, err, ErrAuthWeakPassword, "weak")
		_, err = a.UpdateEmail(background, other)
		expectCode(t, err, ErrAuthEmailAlreadyInUse, "taken")
		_, err = a.UpdateEmail(background, "not-an-email")
		expectCode(t, err, ErrAuthInvalidEmail, "invalid")
		renamed := testEmail("frank2")
		if user, err := a.UpdateEmail(background, renamed); err != nil || user.Email != renamed {
			t.Fatalf("%v %v", user, err)
		}

		final := testEmail("frank3")
		must(t, a.VerifyBeforeUpdateEmail(background, final))
		must(t, a.ApplyActionCode(background, oobCode(t, e, "VERIFY_AND_CHANGE_EMAIL", renamed)))
		must(t, a.SignOut())
		again, err := a.SignInWithEmail(background, final, "secret-2")
		must(t, err)
		if again.UID != frank.UID || !again.IsEmailVerified {
			t.Fatalf("%s: %+v", flavor, *again)
		}
	}
}

// waitUntil polls ready every 50 ms for up to 10 s: the waits below are for the wall clock itself.
func waitUntil(t *testing.T, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRequiresRecentLoginAndExpiredCodes(t *testing.T) {
	// Production's checks with short windows: a sign-in older than 1 s is not recent; codes live 1 s.
	e := emulatorWith(t, "production", "--auth-recent-login", "1", "--auth-oob-code-lifetime", "1")
	a := newTestAuth(t, e)
	address := testEmail("old")
	user, err := a.CreateUser(background, address, "secret-1")
	must(t, err)
	must(t, a.SendEmailVerification(background))
	code := oobCode(t, e, "VERIFY_EMAIL", address)
	waitUntil(t, "the sign-in to age", func() bool { return time.Since(user.AuthTime) > 1200*time.Millisecond })
	waitUntil(t, "the code to expire", func() bool {
		response, err := http.Get(fmt.Sprintf("http://%s/emulator/v1/projects/demo-project/oobCodes", e.address()))
		must(t, err)
		defer response.Body.Close()
		body, _ := io.ReadAll(response.Body)
		return !strings.Contains(string(body), code)
	})
	expectCode(t, a.ApplyActionCode(background, code), ErrAuthExpiredActionCode, "expired code")
	_, err = a.UpdatePassword(background, "secret-2")
	expectCode(t, err, ErrAuthRequiresRecentLogin, "old sign-in")
	_, err = a.UpdateEmail(background, testEmail("new"))
	expectCode(t, err, ErrAuthRequiresRecentLogin, "old sign-in")
	_, err = a.Reauthenticate(background, emailCredential(t, address, "secret-1"))
	must(t, err)
	_, err = a.UpdatePassword(background, "secret-2")
	must(t, err)
	must(t, a.SignOut())
	again, err := a.SignInWithEmail(background, address, "secret-2")
	must(t, err)
	if again.UID != user.UID {
		t.Fatal(again.UID)
	}
}
