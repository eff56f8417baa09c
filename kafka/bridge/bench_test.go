//go:build unix

package bridge_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// benchRecords is the number of records each run of BenchmarkBridge reads.
var benchRecords = flag.Int("bridge.records", 200_000, "records per run of BenchmarkBridge")

// brokerEnv, set in the environment of the test binary, makes it serve a
// kfake broker for BenchmarkBridge instead of running tests (see TestMain).
const brokerEnv = "PROTOAVRO_BENCH_BROKER"

func TestMain(m *testing.M) {
	if os.Getenv(brokerEnv) != "" {
		os.Exit(serveBroker())
	}
	os.Exit(m.Run())
}

// serveBroker runs a kfake broker on loopback with the topics "in" and
// "out" of 4 partitions, writes its addresses (comma-separated) on a line
// to stdout, and serves until stdin is closed (its parent ended it or
// exited).
func serveBroker() int {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "in", "out"),
		kfake.GroupMinSessionTimeout(500*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	fmt.Println(strings.Join(c.ListenAddrs(), ","))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// brokerProcess starts the test binary as a broker process (serveBroker)
// and returns its addresses; the process ends when the benchmark does.
func brokerProcess(b *testing.B) []string {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), brokerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("broker process: %v", err)
	}
	return strings.Split(strings.TrimSpace(line), ",")
}

// usage is what the process has spent so far: wall time, CPU time (user
// and system) and heap allocations.
type usage struct {
	wall, cpu     time.Duration
	allocs, bytes uint64
}

func now() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return usage{
		wall:   time.Duration(time.Now().UnixNano()),
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		allocs: ms.Mallocs,
		bytes:  ms.TotalAlloc,
	}
}

func (u usage) sub(v usage) usage {
	return usage{wall: u.wall - v.wall, cpu: u.cpu - v.cpu, allocs: u.allocs - v.allocs, bytes: u.bytes - v.bytes}
}

// joins is a kgo hook that counts the client's JoinGroup requests: a
// rebalance makes the member join again.
type joins struct{ n atomic.Int64 }

func (j *joins) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, _ error) {
	if key == kmsg.JoinGroup.Int16() {
		j.n.Add(1)
	}
}

// BenchmarkBridge compares the bridge (Confluent-framed protobuf in,
// Confluent-framed Avro out) with a pass-through: the same records consumed
// and produced unchanged, by the same code without the conversion.
//
// The broker (kfake) runs in a child process (this test binary, started by
// the benchmark), so the process's CPU time and allocations are the
// clients' and the bridge's, not the broker's (the schema registry, srfake,
// is in the process, but is asked only in a run's first batch, which is not
// measured). The input topic ("in", 4 partitions, -bridge.records records,
// 200,000 by default) is written before anything is measured.
//
// A run of each mode, not counted, warms the process up. Then each
// iteration runs each mode 4 times, interleaved in both orders
// (pass-through, bridge, bridge, pass-through, bridge, pass-through,
// pass-through, bridge; the next iteration the other way round), so that a
// drift of the machine's load weighs on both alike; each run is a fresh
// consumer group reading the whole input. What is measured of a run starts
// when its first batch (at most Config.BatchSize records) is committed, after the
// group join, the registry lookups and the producer's first connection, and
// ends when the batch holding the last record is committed
// (Config.OnCommit), before the client leaves the group and closes; a run
// whose member joined the group again in that time (a rebalance) fails the
// benchmark. A garbage collection runs before each run, unmeasured.
//
// It reports, for each mode, the records per second of the measured parts,
// and per record the process's CPU time (user and system), heap allocations
// and heap bytes allocated; and the ratio of the bridge's records per second
// to the pass-through's. With -cpuprofile, the pprof label mode (pprof
// -tagfocus mode=bridge) tells the two apart.
func BenchmarkBridge(b *testing.B) {
	n := *benchRecords
	brokers := brokerProcess(b)
	_, reg := kafkatest.Registry(b)
	id := kafkatest.RegisterPerson(b, reg, "in-value", "v2")
	md := kafkatest.Person(b, "v2")
	cl := kafkatest.Client(b, brokers)
	recs := inputs(b, "in", md, id, 0, n)
	for _, r := range recs {
		r.Headers = nil
	}
	kafkatest.Produce(b, cl, recs)
	cl.Close()
	recs = nil

	modes := []string{"passthrough", "bridge"}
	var spent [2]usage
	var records [2]int64
	runs := 0
	run := func(m int) {
		runtime.GC()
		var start, end usage
		var from int64 // the records committed when the measure starts
		var joinsAt int64
		js := &joins{}
		cfg := bridge.Config{
			Brokers: brokers, Group: fmt.Sprintf("%s-%d", modes[m], runs), Inputs: []string{"in"}, Output: "out",
			Registry: reg, MaxRecords: int64(n), PassThrough: m == 0,
			KafkaOpts: []kgo.Opt{kgo.WithHooks(js)},
			OnCommit: func(s bridge.Summary) {
				switch {
				case from == 0:
					start, from, joinsAt = now(), s.Records, js.n.Load()
				case s.Records >= int64(n):
					end = now()
					if j := js.n.Load(); j != joinsAt {
						b.Errorf("%s: the member joined the group %d times during the measure", modes[m], j-joinsAt)
					}
				}
			},
		}
		runs++
		var sum bridge.Summary
		var err error
		// The label tells the modes apart in a -cpuprofile (pprof
		// -tagfocus mode=bridge).
		pprof.Do(context.Background(), pprof.Labels("mode", modes[m]), func(ctx context.Context) {
			sum, err = bridge.Run(ctx, cfg)
		})
		if err != nil {
			b.Fatal(err)
		}
		if sum.Records != int64(n) || end.wall == 0 {
			b.Fatalf("%s: %d records of %d, the first batch %d", modes[m], sum.Records, n, from)
		}
		d := end.sub(start)
		spent[m].wall += d.wall
		spent[m].cpu += d.cpu
		spent[m].allocs += d.allocs
		spent[m].bytes += d.bytes
		records[m] += sum.Records - from
	}
	// A run of each mode first, not counted: the process's heap grows to its
	// size, the registry's connection is made.
	run(0)
	run(1)
	spent, records = [2]usage{}, [2]int64{}
	b.ResetTimer()
	for i := range b.N {
		for _, m := range []int{0, 1, 1, 0, 1, 0, 0, 1} {
			run(m ^ i&1) // the other way round in odd iterations
		}
	}
	b.StopTimer()
	var rate [2]float64
	for m, mode := range modes {
		rate[m] = float64(records[m]) / spent[m].wall.Seconds()
		b.ReportMetric(rate[m], mode+"-records/s")
		b.ReportMetric(float64(spent[m].cpu.Nanoseconds())/1e3/float64(records[m]), mode+"-cpu-µs/record")
		b.ReportMetric(float64(spent[m].allocs)/float64(records[m]), mode+"-allocs/record")
		b.ReportMetric(float64(spent[m].bytes)/float64(records[m]), mode+"-B/record")
	}
	b.ReportMetric(rate[1]/rate[0], "ratio")
	b.ReportMetric(0, "ns/op")
}
