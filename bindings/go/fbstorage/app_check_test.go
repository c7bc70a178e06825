package fbstorage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// App Check against emulators of both flavors that enforce it (tokens living 3 s): the debug
// provider, a custom provider answering from its goroutine, a minted token, limited-use tokens,
// token listeners, and each refusal with its code.

const (
	appCheckProject = "go-app-check"
	appCheckAppID   = "1:1:web:goac"
	appCheckSecret  = "go-ci-debug-secret"
)

func enforcingEmulator(t *testing.T, flavor string) *emulator {
	return emulatorWith(t, flavor, "--project", appCheckProject, "--app-check", "enforce",
		"--app-check-debug-token", appCheckSecret, "--app-check-token-ttl", "3")
}

func newTestAppCheck(t *testing.T, e *emulator) *AppCheck {
	a, err := NewAppCheck(appCheckProject, appCheckAppID, "")
	must(t, err)
	must(t, a.UseEmulator(e.host, e.port))
	t.Cleanup(a.Close)
	return a
}

// mintAppCheckToken asks the emulator's control API for a token (what a backend's
// firebase-admin app_check.create_token gives), for project ("" for the emulator's own).
func mintAppCheckToken(e *emulator, project string, limitedUse bool) (AppCheckToken, error) {
	ask := fmt.Sprintf(`{"appId": %q, "ttlSeconds": 60, "limitedUse": %t`, appCheckAppID, limitedUse)
	if project != "" {
		ask += fmt.Sprintf(`, "project": %q`, project)
	}
	response, err := http.Post("http://"+e.address()+"/_emulator/app-check/tokens", "application/json", strings.NewReader(ask+"}"))
	if err != nil {
		return AppCheckToken{}, err
	}
	defer response.Body.Close()
	var answer struct{ Token string }
	if err := json.NewDecoder(response.Body).Decode(&answer); err != nil || response.StatusCode != 200 || answer.Token == "" {
		return AppCheckToken{}, fmt.Errorf("minting: %s (%v)", response.Status, err)
	}
	return AppCheckToken{Token: answer.Token, ExpireTime: time.Now().Add(time.Minute)}, nil
}

// roundTrip uploads data and reads it back.
func roundTrip(t *testing.T, s *Storage, name string, data []byte) error {
	t.Helper()
	r, err := s.Reference(unique(name))
	must(t, err)
	task, err := r.PutData(background, data, nil)
	must(t, err)
	if _, err := task.Wait(background); err != nil {
		return err
	}
	back, err := r.Data(background, int64(len(data))+1)
	if err == nil && string(back) != string(data) {
		t.Fatalf("read back %d bytes, not the %d uploaded", len(back), len(data))
	}
	return err
}

func TestAppCheckDebugProviderUploadsAndDownloads(t *testing.T) {
	for _, flavor := range flavors {
		e := enforcingEmulator(t, flavor)
		a := newTestAppCheck(t, e)
		must(t, a.SetDebugProvider(appCheckSecret))
		s := e.storage(t)
		must(t, s.UseAppCheck(a))
		must(t, roundTrip(t, s, "ac-debug", payload(1000)))
		must(t, s.SetUploadChunkSize(smallChunk)) // resumable chunks carry the token too
		must(t, roundTrip(t, s, "ac-debug-chunks", payload(3*smallChunk)))
		token, err := a.Token(background, false)
		must(t, err)
		if strings.Count(token.Token, ".") != 2 || !token.ExpireTime.After(time.Now()) {
			t.Fatalf("%s: %v", flavor, token)
		}
		if strings.Contains(fmt.Sprint(token), token.Token) {
			t.Fatal("String shows the token")
		}
	}
}

func TestAppCheckCustomProviderAnswersFromItsGoroutine(t *testing.T) {
	for _, flavor := range flavors {
		e := enforcingEmulator(t, flavor)
		a := newTestAppCheck(t, e)
		var calls, limitedCalls, failNext atomic.Int32
		must(t, a.SetCustomProvider(func(ctx context.Context, limitedUse bool) (AppCheckToken, error) {
			calls.Add(1)
			if limitedUse {
				limitedCalls.Add(1)
			}
			if failNext.Swap(0) == 1 {
				return AppCheckToken{}, errors.New("the backend said no")
			}
			if _, ok := ctx.Deadline(); !ok {
				return AppCheckToken{}, errors.New("the provider's context has no deadline")
			}
			return mintAppCheckToken(e, "", limitedUse)
		}))
		s := e.storage(t)
		must(t, s.UseAppCheck(a))
		must(t, roundTrip(t, s, "ac-custom", payload(5000)))
		if calls.Load() < 1 {
			t.Fatalf("%s: the provider was not asked", flavor)
		}
		limited, err := a.LimitedUseToken(background)
		must(t, err)
		if limited.Token == "" || limitedCalls.Load() != 1 {
			t.Fatalf("%s: limited-use token %v, %d limited calls", flavor, limited, limitedCalls.Load())
		}
		failNext.Store(1)
		_, err = a.Token(background, true)
		var failure *Error
		if !errors.As(err, &failure) || failure.Code != CodeAppCheckProviderFailed || !strings.Contains(failure.Message, "the backend said no") {
			t.Fatalf("%s: %v", flavor, err)
		}
		ended, cancel := context.WithCancel(background)
		cancel()
		if _, err := a.Token(ended, true); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: an ended context: %v", flavor, err)
		}
	}
}

func TestAppCheckRefusalsHaveTheirCodes(t *testing.T) {
	for _, flavor := range flavors {
		e := enforcingEmulator(t, flavor)
		s := e.storage(t)
		err := roundTrip(t, s, "ac-refused", []byte("x"))
		var failure *Error
		if !errors.As(err, &failure) || failure.Code != CodeAppCheckTokenMissing || failure.HTTPStatus != 401 {
			t.Fatalf("%s: no App Check: %v", flavor, err)
		}
		a := newTestAppCheck(t, e)
		must(t, s.UseAppCheck(a))
		if err := roundTrip(t, s, "ac-refused", []byte("x")); !errors.Is(err, ErrAppCheckTokenMissing) {
			t.Fatalf("%s: no provider: %v", flavor, err)
		}
		if _, err := a.Token(background, false); !errors.Is(err, ErrAppCheckNoProvider) {
			t.Fatalf("%s: %v", flavor, err)
		}
		must(t, a.SetDebugProvider("not-registered"))
		err = roundTrip(t, s, "ac-refused", []byte("x"))
		if !errors.Is(err, ErrAppCheckAttestationFailed) || strings.Contains(err.Error(), "not-registered") {
			t.Fatalf("%s: an unknown debug token: %v", flavor, err)
		}
		foreign, err := mintAppCheckToken(e, "other-project", false)
		must(t, err)
		must(t, a.SetToken(foreign.Token, foreign.ExpireTime))
		err = roundTrip(t, s, "ac-refused", []byte("x"))
		if !errors.Is(err, ErrAppCheckTokenInvalid) || strings.Contains(err.Error(), foreign.Token) {
			t.Fatalf("%s: another project's token: %v", flavor, err)
		}
		if err := a.SetToken(foreign.Token, time.Now().Add(-time.Second)); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: an expired token: %v", flavor, err)
		}
		must(t, s.UseAppCheck(nil))
	}
}

// tokenLog records the tokens a listener heard, for a test to wait on.
type tokenLog chan AppCheckToken

func (l tokenLog) next(t *testing.T, flavor string) AppCheckToken {
	t.Helper()
	select {
	case token := <-l:
		return token
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the token listener was not called", flavor)
		return AppCheckToken{}
	}
}

func TestAppCheckAutoRefreshRenewsWithNoRequest(t *testing.T) {
	a := newTestAppCheck(t, enforcingEmulator(t, "production"))
	must(t, a.SetDebugProvider(appCheckSecret))
	if a.IsTokenAutoRefreshEnabled() {
		t.Fatal("auto-refresh is on by default")
	}
	must(t, a.SetTokenAutoRefreshEnabled(true))
	if !a.IsTokenAutoRefreshEnabled() {
		t.Fatal("auto-refresh did not turn on")
	}
	heard := make(tokenLog, 16)
	_, err := a.AddTokenListener(func(token AppCheckToken) { heard <- token })
	must(t, err)
	first, err := a.Token(background, false)
	must(t, err)
	if got := heard.next(t, "production"); got != first {
		t.Fatalf("heard %v, not the first token", got)
	}
	// Renewed halfway through each 3 s life, with no request.
	for i := 0; i < 2; i++ {
		if got := heard.next(t, "production"); !got.ExpireTime.After(first.ExpireTime) {
			t.Fatalf("renewal %d: %v does not outlive the first token", i+1, got)
		}
	}
	must(t, a.SetTokenAutoRefreshEnabled(false))
}

func TestAppCheckTokenListenersHearEachKeptToken(t *testing.T) {
	for _, flavor := range flavors {
		a := newTestAppCheck(t, enforcingEmulator(t, flavor))
		must(t, a.SetDebugProvider(appCheckSecret))
		heard, later := make(tokenLog, 16), make(tokenLog, 16)
		id, err := a.AddTokenListener(func(token AppCheckToken) { heard <- token })
		must(t, err)
		_, err = a.AddTokenListener(func(token AppCheckToken) { later <- token })
		must(t, err)
		// Each renewal is heard, in order; the limited-use token never is.
		first, err := a.Token(background, false)
		must(t, err)
		if got := heard.next(t, flavor); got != first {
			t.Fatalf("%s: heard %v, not the first token", flavor, got)
		}
		_, err = a.LimitedUseToken(background)
		must(t, err)
		forced, err := a.Token(background, true)
		must(t, err)
		if got := heard.next(t, flavor); got != forced {
			t.Fatalf("%s: heard %v, not the forced renewal's token", flavor, got)
		}
		// Removed: the other listener hears the next renewal, the removed one nothing more.
		before := appCheckTokenListeners.size()
		must(t, a.RemoveTokenListener(id))
		if appCheckTokenListeners.size() != before-1 {
			t.Fatalf("%s: the removed listener is still registered", flavor)
		}
		if err := a.RemoveTokenListener(id); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: removing twice: %v", flavor, err)
		}
		third, err := a.Token(background, true)
		must(t, err)
		for i, want := range []AppCheckToken{first, forced, third} {
			if got := later.next(t, flavor); got != want {
				t.Fatalf("%s: the other listener's call %d heard %v, not %v", flavor, i, got, want)
			}
		}
		if len(heard) != 0 {
			t.Fatalf("%s: the removed listener was called", flavor)
		}
		// A token given is heard at once; a listener added while it is kept hears it now.
		given := AppCheckToken{Token: "minted-elsewhere", ExpireTime: time.UnixMilli(time.Now().Add(10 * time.Minute).UnixMilli())}
		must(t, a.SetToken(given.Token, given.ExpireTime))
		if got := later.next(t, flavor); !got.ExpireTime.Equal(given.ExpireTime) || got.Token != given.Token {
			t.Fatalf("%s: heard %v, not the token given", flavor, got)
		}
		registered := make(tokenLog, 1)
		_, err = a.AddTokenListener(func(token AppCheckToken) { registered <- token })
		must(t, err)
		if got := registered.next(t, flavor); got.Token != given.Token {
			t.Fatalf("%s: a listener added while a token is kept heard %v", flavor, got)
		}
		_, err = a.AddTokenListener(nil)
		if !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: a nil listener: %v", flavor, err)
		}
		a.Close() // removes its listeners: the library released them
		if left := appCheckTokenListeners.size() - (before - 2); left != 0 {
			t.Fatalf("%s: %d token listeners left registered after Close", flavor, left)
		}
	}
}
