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
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/twmb/franz-go/pkg/kerr"
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
// when its first batch (at most Config.BatchSize records) is committed,
// after the group join, the registry lookups and the producer's first
// connection, and ends when the batch holding the last record is committed
// (Config.OnCommit), before the client leaves the group and closes; a run
// whose member joined the group again in that time (a rebalance) fails the
// benchmark. After each run the records of the output topic are deleted, so
// that the broker holds and does the same from run to run (a log that grows
// makes its appends slower at some sizes than at others), and a garbage
// collection runs before each run, both unmeasured.
//
// It reports, for each mode, the median over its runs of the records per
// second of the measured part, and of the process's CPU time (user and
// system), heap allocations and heap bytes allocated per record; and the
// ratio of the bridge's records per second to the pass-through's. A run
// slowed by a burst of load elsewhere on the machine moves the medians
// little. With -v it logs each run's figures. With -cpuprofile, the pprof
// label mode (pprof -tagfocus mode=bridge) tells the two apart.
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
	recs = nil

	modes := []string{"passthrough", "bridge"}
	// figures[m] holds a perRun of each counted run of mode m.
	var figures [2][]perRun
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
		d, k := end.sub(start), float64(sum.Records-from)
		f := perRun{
			rate:   k / d.wall.Seconds(),
			cpu:    float64(d.cpu.Nanoseconds()) / 1e3 / k,
			allocs: float64(d.allocs) / k,
			bytes:  float64(d.bytes) / k,
		}
		if testing.Verbose() {
			b.Logf("%s: %.0f records/s, %.3f cpu-µs/record", modes[m], f.rate, f.cpu)
		}
		figures[m] = append(figures[m], f)
		emptyTopic(b, cl, "out", 4)
	}
	// A run of each mode first, not counted: the process's heap grows to its
	// size, the registry's connection is made.
	run(0)
	run(1)
	figures = [2][]perRun{}
	b.ResetTimer()
	for i := range b.N {
		for _, m := range []int{0, 1, 1, 0, 1, 0, 0, 1} {
			run(m ^ i&1) // the other way round in odd iterations
		}
	}
	b.StopTimer()
	var rate [2]float64
	for m, mode := range modes {
		med := func(of func(perRun) float64) float64 {
			vs := make([]float64, len(figures[m]))
			for i, f := range figures[m] {
				vs[i] = of(f)
			}
			return median(vs)
		}
		rate[m] = med(func(f perRun) float64 { return f.rate })
		b.ReportMetric(rate[m], mode+"-records/s")
		b.ReportMetric(med(func(f perRun) float64 { return f.cpu }), mode+"-cpu-µs/record")
		b.ReportMetric(med(func(f perRun) float64 { return f.allocs }), mode+"-allocs/record")
		b.ReportMetric(med(func(f perRun) float64 { return f.bytes }), mode+"-B/record")
	}
	b.ReportMetric(rate[1]/rate[0], "ratio")
	b.ReportMetric(0, "ns/op")
}

// emptyTopic deletes the records of the first partitions of topic, so
// that the broker's memory and work do not grow from run to run.
func emptyTopic(b *testing.B, cl *kgo.Client, topic string, partitions int) {
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = 10_000
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	for p := range partitions {
		rp := kmsg.NewDeleteRecordsRequestTopicPartition()
		rp.Partition, rp.Offset = int32(p), -1 // up to the high watermark
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				b.Fatalf("deleting the records of %s/%d: %v", t.Topic, p.Partition, err)
			}
		}
	}
}

// perRun is what one run of BenchmarkBridge measured: its records per
// second, and per record its CPU time in µs, heap allocations and heap
// bytes allocated.
type perRun struct{ rate, cpu, allocs, bytes float64 }

// median returns the median of vs (the mean of the middle two for an even
// count), sorting vs.
func median(vs []float64) float64 {
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}
