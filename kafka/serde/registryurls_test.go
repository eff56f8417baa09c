package serde_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
)

// TestRegistryURLsDifferentCredentials: registry URLs that hold different
// credentials, or credentials and none, are refused with ErrRegistryURL
// before any request, naming the URLs by position and showing neither user
// names nor passwords, since the client sends one set of credentials to
// every URL; the same credentials in every URL are sent to each.
func TestRegistryURLsDifferentCredentials(t *testing.T) {
	var requests atomic.Int64
	auths := make(chan string, 4)
	other := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		auths <- r.Header.Get("Authorization")
		w.Write([]byte(`{"schema":"\"string\""}`))
	})
	host := strings.TrimPrefix(other, "http://")
	dead := kafkatest.DeadAddr(t)
	alice := "http://alice:" + hostileSecret + "@"
	for _, tc := range []struct {
		urls []string
		want string
	}{
		{[]string{alice + dead, other}, "registry URL 1 of 2 holds credentials and URL 2 none"},
		{[]string{other, "http://bob:" + hostileSecret + "@" + host}, "registry URL 2 of 2 holds credentials and URL 1 none"},
		{[]string{alice + dead, "http://bob:" + hostileSecret + "@" + host}, "registry URLs 1 and 2 of 2 hold different credentials"},
		{[]string{alice + dead, alice[:len(alice)-1] + "x@" + host}, "registry URLs 1 and 2 of 2 hold different credentials"},
		{[]string{"http://ghp_" + hostileSecret + "@" + dead, "http://ghp_" + hostileSecret + "x@" + host}, "registry URLs 1 and 2 of 2 hold different credentials"},
		{[]string{alice + dead, alice + host, host}, "registry URL 1 of 3 holds credentials and URL 3 none"},
	} {
		for _, opts := range []serde.RegistryOptions{{}, {Username: "carol", Password: "pw"}} {
			_, err := serde.NewRegistry(opts, tc.urls...)
			if !errors.Is(err, serde.ErrRegistryURL) || !errors.Is(err, serde.ErrRegistry) {
				t.Errorf("%q: %v, want ErrRegistryURL", tc.urls, err)
				continue
			}
			msg := err.Error()
			checkBounded(t, fmt.Sprintf("%q", tc.urls), msg, 1024)
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "give the same credentials in every URL") {
				t.Errorf("%q: %q, want it to say %q and how to mend it", tc.urls, msg, tc.want)
			}
			for _, name := range []string{"alice", "bob", "ghp_"} {
				if strings.Contains(msg, name) {
					t.Errorf("%q: the error names the user %s: %q", tc.urls, name, msg)
				}
			}
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the second registry", n)
	}

	// The same credentials in every URL, spelt alike or not: the second
	// registry gets them when the first is down.
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:p@"+hostileSecret))
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, "http://alice:p%40"+hostileSecret+"@"+dead, "http://alice:p@"+hostileSecret+"@"+host)
	if err != nil {
		t.Fatalf("the same credentials in both URLs: %v", err)
	}
	if _, err := reg.SchemaByID(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := <-auths; got != want {
		t.Errorf("the second registry got Authorization %q, want %q", got, want)
	}
}

// TestRegistryAccessRefusedUserWithoutPassword: a user name without a
// password (often a token: "https://TOKEN@host") is not shown when the
// registry refuses it; with a password, the user is named.
func TestRegistryAccessRefusedUserWithoutPassword(t *testing.T) {
	url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error_code":401,"message":"Unauthorized"}`))
	})
	host := strings.TrimPrefix(url, "http://")
	token := "ghp_" + hostileSecret
	for _, tc := range []struct {
		url  string
		opts serde.RegistryOptions
		want string
	}{
		{"http://" + token + "@" + host, serde.RegistryOptions{}, "basic auth with a user name and no password"},
		{"http://" + token + ":@" + host, serde.RegistryOptions{}, "basic auth with a user name and no password"},
		{url, serde.RegistryOptions{Username: token}, "basic auth with a user name and no password"},
		{url, serde.RegistryOptions{Username: "alice", Password: "pw"}, `basic auth as user "alice"`},
		{"http://alice:pw@" + host, serde.RegistryOptions{}, `basic auth as user "alice"`},
	} {
		reg, err := serde.NewRegistry(tc.opts, tc.url)
		if err != nil {
			t.Fatal(err)
		}
		_, err = reg.SchemaByID(ctx, 1)
		if !errors.Is(err, serde.ErrRegistryAccess) {
			t.Fatalf("%s: %v, want ErrRegistryAccess", tc.want, err)
		}
		checkBounded(t, tc.want, err.Error(), 1024)
		if !strings.Contains(err.Error(), "("+tc.want+")") {
			t.Errorf("%v: want it to say %s", err, tc.want)
		}
	}
}

// TestRegistryRedirectsNotFollowed: a redirect the client does not follow
// (a loop, to a scheme other than http or https, one the HTTP client's own
// CheckRedirect refuses, a Location that does not parse), and an https URL
// answered over plain HTTP, are ErrRegistryURL, a configuration error that
// is not temporary, rather than a registry that is down (which the bridge
// would wait for without end).
func TestRegistryRedirectsNotFollowed(t *testing.T) {
	var loops atomic.Int64
	loop := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		loops.Add(1)
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	})
	ftp := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://alice:"+hostileSecret+"@files.example/schema", http.StatusFound)
	})
	badLocation := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/moved/%zz")
		w.WriteHeader(http.StatusFound)
	})
	once := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			w.Write([]byte(`{"schema":"\"string\""}`))
			return
		}
		http.Redirect(w, r, "/moved", http.StatusFound)
	})
	plain := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"schema":"\"string\""}`))
	})
	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("this client follows no redirect")
	}}
	for _, tc := range []struct {
		name string
		url  string
		opts serde.RegistryOptions
		want string
	}{
		{"a redirect loop", loop, serde.RegistryOptions{}, "stopped after 10 redirects"},
		{"a redirect to ftp", ftp, serde.RegistryOptions{}, `redirected to a URL of scheme "ftp"`},
		{"a Location that does not parse", badLocation, serde.RegistryOptions{}, "Location that does not parse"},
		{"a redirect CheckRedirect refuses", once, serde.RegistryOptions{HTTPClient: noRedirects}, "this client follows no redirect"},
		{"https over plain HTTP", strings.Replace(plain, "http://", "https://", 1), serde.RegistryOptions{}, "server gave HTTP response to HTTPS client"},
	} {
		reg, err := serde.NewRegistry(tc.opts, tc.url)
		if err != nil {
			t.Fatal(err)
		}
		_, err = reg.SchemaByID(ctx, 1)
		var re *serde.RegistryError
		if !errors.Is(err, serde.ErrRegistryURL) || errors.Is(err, serde.ErrRegistryUnavailable) || !errors.As(err, &re) || re.Temporary() {
			t.Errorf("%s: %v, want ErrRegistryURL, not temporary", tc.name, err)
			continue
		}
		checkBounded(t, tc.name, err.Error(), 1024)
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to say %q", tc.name, err, tc.want)
		}
	}
	if n := loops.Load(); n != 10 {
		t.Errorf("the loop was asked %d times, want 10 (a request and 9 redirects followed)", n)
	}
	// The same client follows a redirect of its own registry.
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, once)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.SchemaByID(ctx, 1); err != nil {
		t.Errorf("one redirect: %v", err)
	}
}
