package main

// The bridge command over many topics, killed and restarted; its metrics
// endpoint and JSON logs.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestKillRestartManyTopics: two input topics matched by a regular
// expression (a third it does not match is left alone), 10,000 records
// each, bridged to their {topic}-avro topics by a bridge killed with
// SIGKILL five times and restarted: every record arrives in its own output
// topic, equal field by field; with exactly-once, each once.
func TestKillRestartManyTopics(t *testing.T) { kafkatest.BothSemantics(t, killRestartManyTopics) }

func killRestartManyTopics(t *testing.T, eos bool) {
	const n, kills = 10_000, 5
	topics := []string{"in-a", "in-b"}
	_, brokers := kafkatest.Cluster(t, 3, "in-a", "in-b", "in-c", "in-a-avro", "in-b-avro", "in-c-avro")
	fake, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	id := kafkatest.RegisterPerson(t, reg, "in-a-value", "v2")
	enc := serde.NewProtoEncoder(reg)
	// Topic k holds the records k*n to (k+1)*n-1; in-c the first n again.
	wires := kafkatest.PersonWires(t, md, 0, 2*n)
	// The input is produced in kills+1 parts, each before a start of the
	// bridge, so that every kill comes before the end of the stream however
	// fast the bridge goes; part k holds the k-th sixth of each topic.
	parts := make([][]*kgo.Record, kills+1)
	for i := range 2 * n {
		k := i % n * (kills + 1) / n
		parts[k] = append(parts[k], &kgo.Record{Topic: topics[i/n], Key: fmt.Appendf(nil, "key-%d", i), Value: enc.Append(nil, id, md, wires[i])})
		if i < n {
			parts[k] = append(parts[k], &kgo.Record{Topic: "in-c", Key: fmt.Appendf(nil, "key-%d", i), Value: enc.Append(nil, id, md, wires[i])})
		}
	}
	cl := kafkatest.Client(t, brokers)
	outs := []*collector{collect(t, brokers, "in-a-avro"), collect(t, brokers, "in-b-avro"), collect(t, brokers, "in-c-avro")}
	counts := func() (records, unique int) {
		for _, c := range outs {
			r, u := c.counts()
			records, unique = records+r, unique+u
		}
		return records, unique
	}

	args := []string{"bridge", "--brokers", strings.Join(brokers, ","), "--registry", fake.URL(),
		"--group", "g", "--instance-id", "bridge-1", "--in-regex", "^in-[ab]$", "--out", "{topic}-avro",
		"--batch", "200", "--session-timeout", "2s", "--progress", "0"}
	if eos {
		args = append(args, "--exactly-once", "--transaction-timeout", "3s")
	}
	start := func() (*commandRun, *lockedBuffer) {
		var buf lockedBuffer
		return startCommand(t, &buf, args...), &buf
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range kills {
		_, before := counts()
		step := 500 + rng.IntN(1500) // within the part: 2n/(kills+1) records of in-a and in-b
		kafkatest.Produce(t, cl, parts[k])
		cmd, buf := start()
		waitFor(t, 2*time.Minute, fmt.Sprintf("kill %d: output past %d", k, before+step), func() bool {
			_, u := counts()
			return u >= before+step
		})
		cmd.kill()
		for _, c := range outs {
			settle(c)
		}
		r, u := counts()
		t.Logf("kill -9 %d: %d records out (%d distinct) so far; output %q", k+1, r, u, lastLine(buf.String()))
	}
	kafkatest.Produce(t, cl, parts[kills])
	cmd, buf := start()
	waitFor(t, 3*time.Minute, "all records out", func() bool { _, u := counts(); return u >= 2*n })
	time.Sleep(500 * time.Millisecond) // anything more would be a duplicate
	if err := cmd.stop(); err != nil {
		t.Fatalf("bridge after SIGTERM: %v\n%s", err, buf)
	}
	if r, _ := outs[2].counts(); r != 0 {
		t.Fatalf("%d records from in-c, which the expression does not match", r)
	}
	de, _ := serde.NewDeserializer(reg, md, protoavroOptions)
	for k, c := range outs[:2] {
		c.mu.Lock()
		total, unique := len(c.recs), len(c.keys)
		if unique != n || eos && total != n {
			c.mu.Unlock()
			t.Fatalf("%s: %d records out, %d distinct, want %d (eos %v)", topics[k], total, unique, n, eos)
		}
		kafkatest.Parallel(t, total, func(j int) error {
			r := c.recs[j]
			i, err := strconv.Atoi(strings.TrimPrefix(string(r.Key), "key-"))
			if err != nil || i/n != k {
				return fmt.Errorf("%s: record key %q", r.Topic, r.Key)
			}
			return kafkatest.CheckPerson(context.Background(), de, md, r.Value, i, wires[i], j%97 == 0)
		})
		c.mu.Unlock()
	}
}

// commandRun is a protoavro-kafka process.
type commandRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	exited chan error
}

// startCommand starts protoavro-kafka with args, its stdout and stderr to
// out; the test's end kills it if it still runs.
func startCommand(t *testing.T, out io.Writer, args ...string) *commandRun {
	return startCommandOutputs(t, out, out, args...)
}

// startCommandOutputs is startCommand with stdout and stderr apart.
func startCommandOutputs(t *testing.T, stdout, stderr io.Writer, args ...string) *commandRun {
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &commandRun{t: t, cmd: cmd, exited: make(chan error, 1)}
	go func() { c.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-c.exited:
			c.exited <- err
		default:
			_ = cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

// kill kills the process with SIGKILL and waits for it.
func (c *commandRun) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	err := <-c.exited
	c.exited <- err
}

// stop stops the process with SIGTERM and returns its exit error.
func (c *commandRun) stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-c.exited:
		c.exited <- err
		return err
	case <-time.After(2 * time.Minute):
		c.t.Fatal("the bridge did not stop within 2 minutes of SIGTERM")
		return nil
	}
}

// TestBridgeMetricsAndJSONLog: the bridge command with --metrics-addr on
// an ephemeral loopback port and --log-format json, over a list of input
// topics: the endpoint, scraped while the bridge runs once every record is
// out, counts the records in and out by topic as the test sent them, the
// probes answer, and every line on stderr is a JSON log record: the
// command's own (the metrics address, what it bridges, the progress), not
// only the bridge's start and stop. The summary is on stdout.
func TestBridgeMetricsAndJSONLog(t *testing.T) {
	const n = 400
	_, brokers := kafkatest.Cluster(t, 2, "a", "b", "a.avro", "b.avro")
	fake, reg := kafkatest.Registry(t)
	md := kafkatest.Person(t, "v2")
	id := kafkatest.RegisterPerson(t, reg, "a-value", "v2")
	enc := serde.NewProtoEncoder(reg)
	var recs []*kgo.Record
	for i, w := range kafkatest.PersonWires(t, md, 0, n) {
		recs = append(recs, &kgo.Record{Topic: []string{"a", "b"}[i%4/3], Key: fmt.Appendf(nil, "%d", i), Value: enc.Append(nil, id, md, w)})
	}
	kafkatest.Produce(t, kafkatest.Client(t, brokers), recs) // 3/4 to a, 1/4 to b
	out := []*collector{collect(t, brokers, "a.avro"), collect(t, brokers, "b.avro")}
	var stdout, stderr lockedBuffer
	cmd := startCommandOutputs(t, &stdout, &stderr, "bridge", "--brokers", brokers[0], "--registry", fake.URL(), "--group", "g",
		"--in", "a,b", "--out", "{topic}.avro", "--progress", "100ms", "--metrics-addr", "127.0.0.1:0", "--log-format", "json")
	waitFor(t, 2*time.Minute, "all records out", func() bool {
		a, _ := out[0].counts()
		b, _ := out[1].counts()
		return a+b >= n
	})
	var url string
	waitFor(t, time.Minute, "the metrics address on stderr", func() bool {
		for _, rec := range jsonLines(t, stderr.String()) {
			if rec["msg"] == "serving metrics and health probes" {
				url, _ = rec["url"].(string)
			}
		}
		return url != ""
	})
	base := strings.TrimSuffix(url, "/metrics")
	want := map[string]float64{
		`protoavro_bridge_records_in_total{topic="a"}`:       3 * n / 4,
		`protoavro_bridge_records_in_total{topic="b"}`:       n / 4,
		`protoavro_bridge_records_out_total{topic="a.avro"}`: 3 * n / 4,
		`protoavro_bridge_records_out_total{topic="b.avro"}`: n / 4,
	}
	// The commit follows the output's acknowledgement: wait for the
	// figures to catch up.
	var got map[string]float64
	waitFor(t, time.Minute, "the figures of every record", func() bool {
		got = kafkatest.Scrape(t, base+"/metrics")
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	})
	for _, probe := range []string{"/healthz", "/readyz"} {
		waitFor(t, time.Minute, probe, func() bool {
			resp, err := http.Get(base + probe)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}
	// A progress record with every record in it.
	waitFor(t, time.Minute, "a progress record of every record", func() bool {
		for _, rec := range jsonLines(t, stderr.String()) {
			if rec["msg"] == "progress" && rec["records"] == float64(n) {
				return true
			}
		}
		return false
	})
	if err := cmd.stop(); err != nil {
		t.Fatalf("bridge after SIGTERM: %v\n%s", err, stderr.String())
	}
	msgs := map[any]bool{}
	for _, rec := range jsonLines(t, stderr.String()) {
		msgs[rec["msg"]] = true
	}
	for _, m := range []string{"serving metrics and health probes", "bridging", "bridge starting", "progress", "bridge stopped"} {
		if !msgs[m] {
			t.Errorf("no JSON record %q on stderr:\n%s", m, stderr.String())
		}
	}
	if !strings.HasPrefix(stdout.String(), "protoavro-kafka: summary: 400 records") {
		t.Errorf("stdout %q, want the summary", stdout.String())
	}
}

// jsonLines parses every line of stderr as a JSON log record (with a
// level and a message); a line that is not one fails the test. A last
// line without its newline is left out: the process may be writing it.
func jsonLines(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	lines := strings.Split(stderr, "\n")
	for _, line := range lines[:len(lines)-1] {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] == nil || rec["level"] == nil {
			t.Fatalf("stderr line %q is not a JSON log record (%v):\n%s", line, err, stderr)
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestJSONLogErrors: with --log-format json, the error the command exits
// with is a JSON record on stderr, as every line there is, whether the
// flags refuse the command line (before --log-format is read, or after),
// the brokers do not answer, or the bridge stops: the record "exiting" at
// level ERROR with the command, the error and the exit status.
func TestJSONLogErrors(t *testing.T) {
	_, brokers := kafkatest.Cluster(t, 1, "in")
	kafkatest.Produce(t, kafkatest.Client(t, brokers), []*kgo.Record{{Topic: "in", Value: []byte("x")}})
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"--no-such-flag", "--log-format", "json"}, 2, "flag provided but not defined: -no-such-flag"},
		{[]string{"--log-format=json", "--in", "a"}, 2, "--in and --out are required"},
		{[]string{"--log-format", "json", "--in", "a", "--out", "o", "--metrics-addr", ":99999"}, 2, `--metrics-addr ":99999": port "99999"`},
		{[]string{"--log-format", "json", "--in", "a", "--out", "o", "--brokers", kafkatest.DeadAddr(t)}, 1, "connecting to brokers"},
		{[]string{"--log-format", "json", "--in", "in", "--out", "missing", "--brokers", brokers[0], "--progress", "0"}, 1, `producing to topic "missing"`},
	} {
		code, _, stderr := runCLI(t, append([]string{"bridge", "--pass-through"}, tc.args...)...)
		recs := jsonLines(t, stderr)
		last := map[string]any{}
		if len(recs) > 0 {
			last = recs[len(recs)-1]
		}
		errText, _ := last["error"].(string)
		if code != tc.status || last["msg"] != "exiting" || last["level"] != "ERROR" || last["command"] != "bridge" ||
			last["status"] != float64(tc.status) || !strings.Contains(errText, tc.want) || strings.HasPrefix(errText, "bridge:") {
			t.Errorf("%q: exit %d, last record %v; want exit %d and the record exiting saying %q", tc.args, code, last, tc.status, tc.want)
		}
	}
}

// TestBridgeFlagErrors: the flags of many topics, metrics and logs refuse
// what they cannot use with a usage error.
func TestBridgeFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--in", "a", "--in-regex", "^b$", "--out", "o"}, "--in and --in-regex exclude each other"},
		{[]string{"--in-regex", "^b$"}, "--in and --out are required"},
		{[]string{"--in", "a", "--out", "o", "--log-format", "xml"}, `--log-format "xml": want text or json`},
		{[]string{"--in", "a", "--out", "o", "--metrics-addr", "9464"}, `--metrics-addr "9464"`},
		{[]string{"--in", "a", "--out", "o", "--metrics-addr", "localhost:abc"}, `--metrics-addr "localhost:abc": port "abc": want a number from 0 to 65535`},
		{[]string{"--in", "a", "--out", "o", "--metrics-addr", ":99999"}, `--metrics-addr ":99999": port "99999"`},
		{[]string{"--in", "a", "--out", "o", "--metrics-addr", "256.1.1.1:80"}, `--metrics-addr "256.1.1.1:80": host "256.1.1.1": want an IP address or a host name`},
		{[]string{"--in", "a", "--out", "o", "--metrics-addr", "bad_host:80"}, `host "bad_host"`},
		{[]string{"--in", "a", "--out", "o", "--metadata-max-age", "100ms"}, "--metadata-max-age 100ms: want from 1s to 1h0m0s"},
	} {
		code, _, stderr := runCLI(t, append([]string{"bridge", "--pass-through"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRegexTopicCreatedWhileRunning: a topic created while the bridge
// runs, which its --in-regex matches, is read from the client's next
// metadata refresh: with --metadata-max-age 1s, its records arrive in its
// output topic well within the test's 2-minute deadline (kgo's default
// refresh comes every 5 minutes).
func TestRegexTopicCreatedWhileRunning(t *testing.T) {
	const n = 50
	_, brokers := kafkatest.Cluster(t, 2, "new.a", "new.a-avro", "new.b-avro")
	produce := func(topic string) {
		cl := kafkatest.Client(t, brokers, kgo.AllowAutoTopicCreation())
		var recs []*kgo.Record
		for i := range n {
			recs = append(recs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "%s-%d", topic, i), Value: []byte("v")})
		}
		kafkatest.Produce(t, cl, recs)
	}
	produce("new.a")
	outA, outB := collect(t, brokers, "new.a-avro"), collect(t, brokers, "new.b-avro")
	var buf lockedBuffer
	cmd := startCommand(t, &buf, "bridge", "--brokers", brokers[0], "--pass-through", "--group", "g",
		"--in-regex", `^new\.`, "--out", "{topic}-avro", "--progress", "0", "--metadata-max-age", "1s")
	waitFor(t, 2*time.Minute, "the records of the topic there at the start", func() bool { _, u := outA.counts(); return u >= n })
	produce("new.b") // creates it
	waitFor(t, 2*time.Minute, "the records of the topic created while the bridge runs", func() bool { _, u := outB.counts(); return u >= n })
	if err := cmd.stop(); err != nil {
		t.Fatalf("bridge after SIGTERM: %v\n%s", err, buf.String())
	}
}
