package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// binary is the protoavro-kafka built for the tests that run it as a
// process.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "protoavro-kafka-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "protoavro-kafka")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building protoavro-kafka: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// collector keeps consuming a topic (committed records only).
type collector struct {
	mu   sync.Mutex
	recs []*kgo.Record
	keys map[string]int
}

func collect(t *testing.T, brokers []string, topic string) *collector {
	c := &collector{keys: map[string]int{}}
	cl := kafkatest.Client(t, brokers, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			c.mu.Lock()
			for _, r := range fs.Records() {
				c.recs = append(c.recs, r)
				c.keys[string(r.Key)]++
			}
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *collector) counts() (records, unique int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.recs), len(c.keys)
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestKillRestart(t *testing.T) { kafkatest.BothSemantics(t, killRestart) }

func killRestart(t *testing.T, eos bool) {
	const n, kills = 30_000, 5
	_, brokers := kafkatest.Cluster(t, 4, "in", "out")
	fake, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	id := kafkatest.RegisterPerson(t, reg, "in-value", "v2")
	enc := serde.NewProtoEncoder(reg)
	wires := kafkatest.PersonWires(t, md, 0, n)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: "in", Key: []byte(fmt.Sprintf("key-%d", i)), Value: enc.Append(nil, id, md, wires[i])}
	}
	// The input is produced in kills+1 parts, each before a start of the
	// bridge, so that every kill comes before the end of the stream however
	// fast the bridge goes.
	cl := kafkatest.Client(t, brokers)
	part := func(k int) { kafkatest.Produce(t, cl, recs[k*n/(kills+1):(k+1)*n/(kills+1)]) }
	out := collect(t, brokers, "out")

	args := []string{"bridge", "--brokers", strings.Join(brokers, ","), "--registry", fake.URL(),
		"--group", "g", "--instance-id", "bridge-1", "--in", "in", "--out", "out",
		"--batch", "200", "--session-timeout", "2s", "--progress", "0"}
	if eos {
		// The restart after a kill -9 waits for the killed instance's open
		// transaction to time out and be aborted.
		args = append(args, "--exactly-once", "--transaction-timeout", "3s")
	}
	start := func() (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(binary, args...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &buf
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range kills {
		_, before := out.counts()
		step := 1000 + rng.IntN(3000) // within the part: n/(kills+1) records
		part(k)
		began := time.Now()
		cmd, buf := start()
		waitFor(t, 2*time.Minute, fmt.Sprintf("kill %d: output past %d", k, before+step), func() bool {
			_, u := out.counts()
			return u >= before+step
		})
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		// The collector catches up with what the killed instance produced,
		// so that the next step counts the next instance's records only.
		settle(out)
		r, u := out.counts()
		t.Logf("kill -9 %d after %v: %d records out (%d distinct) so far; output %q", k+1, time.Since(began).Round(time.Millisecond), r, u, lastLine(buf.String()))
	}
	part(kills)
	began := time.Now()
	cmd, buf := start()
	waitFor(t, 3*time.Minute, "all records out", func() bool { _, u := out.counts(); return u >= n })
	t.Logf("restart: all records out after %v", time.Since(began).Round(time.Millisecond))
	time.Sleep(500 * time.Millisecond) // anything more would be a duplicate
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bridge after SIGTERM: %v\n%s", err, buf)
	}
	if !strings.Contains(buf.String(), "summary:") {
		t.Errorf("no summary after SIGTERM:\n%s", buf)
	}
	total, unique := out.counts()
	t.Logf("%d records in, %d out, %d distinct", n, total, unique)
	verifyStart := time.Now()
	defer func() { t.Logf("verified in %v", time.Since(verifyStart).Round(time.Millisecond)) }()
	if unique != n {
		t.Fatalf("%d distinct records out, want %d: records were lost", unique, n)
	}
	if eos && total != n {
		t.Fatalf("exactly-once: %d records out for %d in: duplicates", total, n)
	}
	// Every record is the right one: its datum transcodes back to the bytes
	// that went in (every 97th is also decoded into a message).
	de, _ := serde.NewDeserializer(reg, md, protoavroOptions)
	out.mu.Lock()
	defer out.mu.Unlock()
	kafkatest.Parallel(t, len(out.recs), func(k int) error {
		r := out.recs[k]
		var i int
		if _, err := fmt.Sscanf(string(r.Key), "key-%d", &i); err != nil || i < 0 || i >= n {
			return fmt.Errorf("record key %q", r.Key)
		}
		return kafkatest.CheckPerson(context.Background(), de, md, r.Value, i, wires[i], k%97 == 0)
	})
}

// settle waits until c has read nothing new for 300 ms.
func settle(c *collector) {
	last, since := -1, time.Now()
	for time.Since(since) < 300*time.Millisecond {
		if r, _ := c.counts(); r != last {
			last, since = r, time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestSecondInterrupt: a first SIGINT stops the bridge cleanly, which here
// means waiting (up to two minutes) for a batch whose registry request
// gets no answer; a second SIGINT, secondSignalAfter or more after the
// first, kills the process at once. The second is sent again every 2
// seconds until the process dies (a minute at most), so that one the
// process reads less than secondSignalAfter after the first on a loaded
// machine (which it ignores, as it does two signals sent together) does
// not fail the test.
func TestSecondInterrupt(t *testing.T) {
	_, brokers := kafkatest.Cluster(t, 1, "in", "out")
	_, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	id := kafkatest.RegisterPerson(t, reg, "in-value", "v2")
	enc := serde.NewProtoEncoder(reg)
	var recs []*kgo.Record
	for i, w := range kafkatest.PersonWires(t, md, 0, 10) {
		recs = append(recs, &kgo.Record{Topic: "in", Key: []byte(fmt.Sprint(i)), Value: enc.Append(nil, id, md, w)})
	}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
	// A registry that takes requests and never answers.
	hung, asked := make(chan struct{}), make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") { // the schema of a record it read
			select {
			case asked <- struct{}{}:
			default:
			}
		}
		select {
		case <-hung:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hung)
	cmd := exec.Command(binary, "bridge", "--brokers", brokers[0], "--registry", srv.URL, "--group", "g",
		"--in", "in", "--out", "out", "--progress", "0")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select { // it has the records, and waits for the registry
	case <-asked:
	case err := <-exited:
		t.Fatalf("the bridge exited before asking the registry: %v\n%s", err, buf.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("the bridge never asked the registry\n%s", buf.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		t.Fatalf("the bridge exited on the first interrupt, with its batch unfinished: %v\n%s", err, buf.String())
	case <-time.After(2 * time.Second):
	}
	deadline := time.After(time.Minute)
	for {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
				t.Errorf("after the second interrupt: %v, want death by SIGINT\n%s", err, buf.String())
			}
			return
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("the bridge ignored a second interrupt\n%s", buf.String())
		case <-time.After(2 * time.Second):
		}
	}
}
