package bridge_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/protoavro/protoavro/kafka/bridge"
	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
)

// BenchmarkBridge runs the bridge and a pass-through (the same records
// consumed and produced unchanged) over the same input on the same kfake
// broker, in one run, and reports records per second of each. Each iteration
// is a fresh consumer group reading the whole input topic.
func BenchmarkBridge(b *testing.B) {
	var groups atomic.Int64
	const n = 50_000
	brokers, cl, reg, md, id := setup(b, 4)
	recs := inputs(b, "in", md, id, 0, n)
	for _, r := range recs {
		r.Headers = nil
	}
	kafkatest.Produce(b, cl, recs)
	for _, mode := range []string{"passthrough", "bridge"} {
		b.Run(mode, func(b *testing.B) {
			var total int64
			var elapsed time.Duration
			for range b.N {
				cfg := bridge.Config{
					Brokers: brokers, Group: fmt.Sprintf("%s-%d", mode, groups.Add(1)), Input: "in", Output: "out",
					Registry: reg, MaxRecords: n, PassThrough: mode == "passthrough",
				}
				start := time.Now()
				sum, err := bridge.Run(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				total += sum.Records
			}
			b.ReportMetric(float64(total)/elapsed.Seconds(), "records/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
