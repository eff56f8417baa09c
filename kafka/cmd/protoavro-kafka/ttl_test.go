package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestUnknownIDTTLFlag: --unknown-id-ttl reaches the registry client. 20
// records of a schema ID the registry does not know go through the bridge
// to the dead-letter topic: by default the miss is remembered (one
// registry request for the ID); with --unknown-id-ttl 0 it is not (one
// request per record). A negative value is a usage error (TestUsageErrors).
func TestUnknownIDTTLFlag(t *testing.T) {
	const n = 20
	for _, tc := range []struct {
		flags    []string
		requests int64
	}{
		{nil, 1},
		{[]string{"--unknown-id-ttl", "1h"}, 1},
		{[]string{"--unknown-id-ttl", "0"}, n},
	} {
		t.Run(strings.Join(append([]string{"ttl"}, tc.flags...), " "), func(t *testing.T) {
			_, brokers := kafkatest.Cluster(t, 1, "in", "out", "dlq")
			fake, _ := kafkatest.Registry(t)
			var asked atomic.Int64
			fake.Intercept(func(_ http.ResponseWriter, r *http.Request) bool {
				if strings.HasPrefix(r.URL.Path, "/schemas/ids/777") {
					asked.Add(1)
				}
				return false
			})
			recs := make([]*kgo.Record, n)
			for i := range recs {
				recs[i] = &kgo.Record{Topic: "in", Key: []byte(strconv.Itoa(i)), Value: serde.AppendProtoHeader(nil, 777, []int{0})}
			}
			kafkatest.Produce(t, kafkatest.Client(t, brokers), recs)
			args := append([]string{"bridge", "--brokers", brokers[0], "--registry", fake.URL(), "--in", "in", "--out", "out",
				"--dlq", "dlq", "--max-records", strconv.Itoa(n), "--progress", "0"}, tc.flags...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 || !strings.Contains(stdout, strconv.Itoa(n)+" records ("+strconv.Itoa(n)+" dead-lettered)") {
				t.Fatalf("bridge: exit %d\n%s%s", code, stdout, stderr)
			}
			if got := asked.Load(); got != tc.requests {
				t.Errorf("%d registry requests for the unknown ID, want %d", got, tc.requests)
			}
		})
	}
}
