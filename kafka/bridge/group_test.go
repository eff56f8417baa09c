package bridge_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// waitAssigned waits until the consumer group has n stable members, each
// with partitions assigned: the point from which records produced are
// shared among them, however long the machine takes to get there (a hang
// guard of two minutes).
func waitAssigned(t *testing.T, cl *kgo.Client, group string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var last string
	for {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(context.Background(), cl)
		assigned := 0
		switch {
		case err != nil:
			last = err.Error()
		case len(resp.Groups) != 1:
			last = "no group in the answer"
		default:
			g := resp.Groups[0]
			last = g.State
			for _, m := range g.Members {
				var a kmsg.ConsumerMemberAssignment
				if a.ReadFrom(m.MemberAssignment) == nil {
					for _, tp := range a.Topics {
						if len(tp.Partitions) > 0 {
							assigned++
							break
						}
					}
				}
			}
			if g.State == "Stable" && len(g.Members) == n && assigned == n {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s: not %d members with partitions after 2 minutes (%d assigned; last state %s)", group, n, assigned, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
