//go:build unix

package bridge_test

import (
	"context"
	"fmt"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
)

// cpuTime returns the CPU time (user and system) the process has used: the
// broker, the clients and the bridge all run in it.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBridge runs the bridge and a pass-through (the same records
// consumed and produced unchanged, by the same code without the conversion)
// over the same input on the same kfake broker. Each iteration runs both, in
// alternating order, each as a fresh consumer group reading the whole input
// topic, so that the two are measured under the same machine load. It reports
// records per second of each, their ratio, and the process's CPU time per
// record of each (broker and clients included), which load from other
// processes does not change.
func BenchmarkBridge(b *testing.B) {
	const n = 50_000
	brokers, cl, reg, md, id := setup(b, 4)
	recs := inputs(b, "in", md, id, 0, n)
	for _, r := range recs {
		r.Headers = nil
	}
	kafkatest.Produce(b, cl, recs)
	modes := []string{"passthrough", "bridge"}
	var wall, cpu [2]time.Duration
	var records [2]int64
	b.ResetTimer()
	for i := range b.N {
		for k := range 2 {
			m := (i + k) % 2
			cfg := bridge.Config{
				Brokers: brokers, Group: fmt.Sprintf("%s-%d", modes[m], i), Inputs: []string{"in"}, Output: "out",
				Registry: reg, MaxRecords: n, PassThrough: m == 0,
			}
			start, startCPU := time.Now(), cpuTime(b)
			var sum bridge.Summary
			var err error
			// The label tells the modes apart in a -cpuprofile (pprof
			// -tagfocus mode=bridge); the broker's goroutines have none.
			pprof.Do(context.Background(), pprof.Labels("mode", modes[m]), func(ctx context.Context) {
				sum, err = bridge.Run(ctx, cfg)
			})
			if err != nil {
				b.Fatal(err)
			}
			wall[m] += time.Since(start)
			cpu[m] += cpuTime(b) - startCPU
			records[m] += sum.Records
		}
	}
	var rate [2]float64
	for m, mode := range modes {
		rate[m] = float64(records[m]) / wall[m].Seconds()
		b.ReportMetric(rate[m], mode+"-records/s")
		b.ReportMetric(float64(cpu[m].Microseconds())/float64(records[m]), mode+"-cpu-µs/record")
	}
	b.ReportMetric(rate[1]/rate[0], "ratio")
	b.ReportMetric(0, "ns/op")
}
