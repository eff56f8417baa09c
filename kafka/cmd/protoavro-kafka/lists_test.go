package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestInTopicsTrimmed: --in "a, b" reads topic "b" as well as "a": each
// name of a comma-separated flag is trimmed of the spaces around it, as the
// properties file's lists are, and so are the names of --brokers.
func TestInTopicsTrimmed(t *testing.T) {
	_, brokers := kafkatest.Cluster(t, 1, "a", "b", "out")
	kafkatest.Produce(t, kafkatest.Client(t, brokers), []*kgo.Record{
		{Topic: "a", Value: []byte("from a")},
		{Topic: "b", Value: []byte("from b")},
	})
	code, stdout, stderr := runCLI(t, "bridge", "--pass-through", "--brokers", " "+brokers[0]+" ", "--in", "a, b ", "--out", "out",
		"--group", "g-trim", "--max-records", "2", "--progress", "0")
	if code != 0 {
		t.Fatalf("bridge --in \"a, b \": exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "bridging a,b → out") {
		t.Errorf("the start line does not name the trimmed topics:\n%s", stderr)
	}
	var got []string
	for _, r := range kafkatest.ConsumeAll(t, brokers, "out", 2, 30*time.Second) {
		got = append(got, string(r.Value))
	}
	slices.Sort(got)
	if want := []string{"from a", "from b"}; !slices.Equal(got, want) {
		t.Errorf("output %q, want %q", got, want)
	}
}

// TestEmptyListItems: an empty item in a comma-separated flag (--in,
// --brokers, --registry, dev's --topics) is a usage error (exit 2) on one
// line naming the flag and the item, and nothing is connected to: no
// broker, no registry. A --registry value, which may hold a password, is
// not quoted.
func TestEmptyListItems(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var dials atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dials.Add(1)
			c.Close()
		}
	}()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	broker := ln.Addr().String()
	dir := protoDir(t, map[string]string{"person.proto": kafkatest.EvolutionSource(t, "v1")})
	bridge := func(extra ...string) []string {
		return append([]string{"bridge", filepath.Join(dir, "person.proto"), "-I", dir, "-m", person, "--brokers", broker,
			"--registry", srv.URL, "--out", "o", "--progress", "0"}, extra...)
	}
	check := []string{"check", filepath.Join(dir, "person.proto"), "-I", dir, "-m", person, "--topic", "people"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{bridge("--in", "a,"), `--in "a,": item 2 of 2 is empty: give topic names separated by commas, none empty`},
		{bridge("--in", "a,,b"), `--in "a,,b": item 2 of 3 is empty`},
		{bridge("--in", ",a"), `--in ",a": item 1 of 2 is empty`},
		{bridge("--in", "a, ,b"), `--in "a, ,b": item 2 of 3 is empty`},
		{bridge("--in", " "), `--in " ": no topic name given`},
		{bridge("--in", "a", "--brokers", broker+","), `--brokers "` + broker + `,": item 2 of 2 is empty: give host:ports separated by commas`},
		{bridge("--in", "a", "--registry", srv.URL+",,"+srv.URL), "--registry: item 2 of 3 is empty: give URLs separated by commas"},
		{append(check, "--registry", "http://user:"+registryPass+"@"+strings.TrimPrefix(srv.URL, "http://")+","), "--registry: item 2 of 2 is empty"},
		{[]string{"dev", "--kafka-port", "0", "--registry-port", "0", "--topics", "a,,b"}, `--topics "a,,b": item 2 of 3 is empty`},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		checkNoSecret(t, strings.Join(tc.args, " "), stdout, stderr)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s%s", tc.args, code, stdout, stderr)
			continue
		}
		oneLine(t, strings.Join(tc.args, " "), stderr, tc.want)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("%d connections reached the broker", n)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the registry", n)
	}
}
