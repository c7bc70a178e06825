package fbstorage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Sign-in against the bundled emulator's Auth routes (served on its storage port), and uploads
// as the signed-in user under owner-only Security Rules (both flavors).

func rulesEmulator(t *testing.T, flavor string) *emulator {
	return emulatorWith(t, flavor, "--rules", filepath.Join(repository(), "examples/owner-only.rules"))
}

func newTestAuth(t *testing.T, e *emulator) *Auth {
	a, err := NewAuth("test-api-key", "demo-project")
	must(t, err)
	must(t, a.UseEmulator(e.host, e.port))
	t.Cleanup(a.Close)
	return a
}

func TestAnonymousUserUploadsBelowItsOwnFolderOnly(t *testing.T) {
	for _, flavor := range flavors {
		e := rulesEmulator(t, flavor)
		a := newTestAuth(t, e)
		user, err := a.SignInAnonymously(background)
		must(t, err)
		if !user.IsAnonymous || user.UID == "" || user.IDToken == "" || user.SignInProvider != "anonymous" || !user.TokenExpiration.After(user.TokenIssuedAt) {
			t.Fatalf("%+v", *user)
		}
		if strings.Contains(fmt.Sprint(*user), user.IDToken) {
			t.Fatal("String shows the token")
		}
		s := e.storage(t)
		must(t, s.UseAuth(a))
		mine, _ := s.Reference(fmt.Sprintf("users/%s/%s", user.UID, unique("note.txt")))
		upload(t, mine, []byte("mine"), nil)
		theirs, _ := s.Reference("users/someone-else/" + unique("note.txt"))
		task, err := theirs.PutData(background, []byte("theirs"), nil)
		must(t, err)
		_, err = task.Wait(background)
		var failure *Error
		if !errors.As(err, &failure) || failure.Code != CodeUnauthorized || failure.HTTPStatus != 403 {
			t.Fatalf("%s: %v", flavor, err)
		}
		must(t, a.SignOut())
		if current, err := a.CurrentUser(); current != nil || err != nil {
			t.Fatalf("%v %v", current, err)
		}
		if _, err := mine.Data(background, 100); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("signed out: %v", err)
		}
		if _, err := a.IDToken(background, false); !errors.Is(err, ErrAuthNoUser) {
			t.Fatalf("%v", err)
		}
	}
}

func TestEmailAccountsAndTheirErrors(t *testing.T) {
	a := newTestAuth(t, rulesEmulator(t, "production"))
	email := unique("go") + "@example.com"
	created, err := a.CreateUser(background, email, "correct horse")
	must(t, err)
	if created.Email != email || created.IsAnonymous {
		t.Fatalf("%+v", *created)
	}
	for _, c := range []struct {
		email, password string
		want            error
	}{
		{email, "another one", ErrAuthEmailAlreadyInUse},
		{"x" + email, "123", ErrAuthWeakPassword},
		{"not an email", "correct horse", ErrAuthInvalidEmail},
	} {
		if _, err := a.CreateUser(background, c.email, c.password); !errors.Is(err, c.want) {
			t.Fatalf("%s: %v, want %v", c.email, err, c.want)
		}
	}
	must(t, a.SignOut())
	_, err = a.SignInWithEmail(background, email, "wrong horse")
	if !errors.Is(err, ErrAuthWrongPassword) || strings.Contains(err.Error(), "wrong horse") {
		t.Fatalf("%v", err)
	}
	signedIn, err := a.SignInWithEmail(background, email, "correct horse")
	must(t, err)
	if signedIn.UID != created.UID || signedIn.SignInProvider != "password" {
		t.Fatalf("%+v", *signedIn)
	}
}

func TestARefreshTokenRestoresTheSessionUntilTheUserIsDeleted(t *testing.T) {
	e := rulesEmulator(t, "production")
	first := newTestAuth(t, e)
	user, err := first.SignInWithCustomToken(background, fmt.Sprintf(`{"uid": %q}`, unique("custom")))
	must(t, err)
	if user.SignInProvider != "custom" {
		t.Fatalf("%+v", *user)
	}
	second := newTestAuth(t, e)
	restored, err := second.SignInWithRefreshToken(background, user.RefreshToken)
	must(t, err)
	if restored.UID != user.UID {
		t.Fatal(restored.UID, user.UID)
	}
	if token, err := second.IDToken(background, true); err != nil || token == "" {
		t.Fatal(err)
	}
	must(t, first.DeleteUser(background))
	third := newTestAuth(t, e)
	if _, err := third.SignInWithRefreshToken(background, user.RefreshToken); !errors.Is(err, ErrAuthUserNotFound) {
		t.Fatalf("%v", err)
	}
}

func TestListenersHearSignInAndOutUntilRemoved(t *testing.T) {
	a := newTestAuth(t, rulesEmulator(t, "production"))
	var mu sync.Mutex
	var heard []string
	changed := make(chan struct{}, 16)
	id, err := a.AddStateListener(func(u *User) {
		mu.Lock()
		if u == nil {
			heard = append(heard, "")
		} else {
			heard = append(heard, u.UID)
		}
		mu.Unlock()
		changed <- struct{}{}
	})
	must(t, err)
	waitFor := func(count int) []string {
		deadline := time.After(30 * time.Second)
		for {
			mu.Lock()
			got := append([]string(nil), heard...)
			mu.Unlock()
			if len(got) >= count {
				return got
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("heard %q", got)
			}
		}
	}
	if got := waitFor(1); got[0] != "" {
		t.Fatalf("%q", got)
	}
	user, err := a.SignInAnonymously(background)
	must(t, err)
	must(t, a.SignOut())
	if got := waitFor(3); strings.Join(got, ",") != ","+user.UID+"," {
		t.Fatalf("%q", got)
	}
	before := listeners.size()
	must(t, a.RemoveListener(id))
	if listeners.size() != before-1 {
		t.Fatal("the removed listener is still registered")
	}
	_, err = a.SignInAnonymously(background)
	must(t, err)
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 3 {
		t.Fatalf("heard after removal: %q", heard)
	}
}

func TestAPersistenceFileRestoresTheUserInANewAuth(t *testing.T) {
	e := rulesEmulator(t, "production")
	file := filepath.Join(t.TempDir(), "session.json")
	first := newTestAuth(t, e)
	must(t, first.SetPersistenceFile(file))
	user, err := first.SignInAnonymously(background)
	must(t, err)
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatal(info, err)
	}
	second := newTestAuth(t, e)
	must(t, second.SetPersistenceFile(file))
	if restored, err := second.CurrentUser(); err != nil || restored == nil || restored.UID != user.UID {
		t.Fatal(restored, err)
	}
	must(t, second.SignOut())
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("signing out leaves the file: %v", err)
	}
}

func TestPersistenceForAppKeepsTheUserInTheConfigFolder(t *testing.T) {
	e := rulesEmulator(t, "production")
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	first := newTestAuth(t, e)
	must(t, first.SetPersistenceForApp("fbs-go-test", "app one"))
	user, err := first.SignInAnonymously(background)
	must(t, err)
	files, err := filepath.Glob(filepath.Join(config, "fbs-go-test", "app_one-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("session files: %q, %v", files, err)
	}
	second := newTestAuth(t, e)
	must(t, second.SetPersistenceForApp("fbs-go-test", "app one"))
	if restored, err := second.CurrentUser(); err != nil || restored == nil || restored.UID != user.UID {
		t.Fatal(restored, err)
	}
	expectCode(t, second.SetPersistenceForApp("a/b", "app"), ErrInvalidArgument, "a program with '/'")
}

func TestAFixedIDTokenIsSentUntilCleared(t *testing.T) {
	e := rulesEmulator(t, "production")
	a := newTestAuth(t, e)
	user, err := a.SignInAnonymously(background)
	must(t, err)
	token, err := a.IDToken(background, false)
	must(t, err)
	s := e.storage(t)
	must(t, s.SetAuthToken(token))
	r, _ := s.Reference(fmt.Sprintf("users/%s/%s", user.UID, unique("fixed")))
	upload(t, r, []byte("with a fixed token"), nil)
	must(t, s.SetAuthToken(""))
	if _, err := r.Data(background, 100); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("%v", err)
	}
	if err := s.SetAuthToken("bad\ntoken"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%v", err)
	}
}
