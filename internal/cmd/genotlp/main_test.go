package main

import (
	"testing"

	"google.golang.org/protobuf/proto"

	tpb "github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// TestBatchUpToDate checks that the committed batch is what the generator
// writes, and that it has the shape the benchmark claims.
func TestBatchUpToDate(t *testing.T) {
	got := testutil.CheckGenerated(t, File, "go run ./internal/cmd/genotlp", Generate)

	var td tpb.TracesData
	if err := proto.Unmarshal(got, &td); err != nil {
		t.Fatal(err)
	}
	var spans, attrs, events, links, parents int
	for _, rs := range td.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				spans++
				attrs += len(s.GetAttributes())
				events += len(s.GetEvents())
				links += len(s.GetLinks())
				if len(s.GetParentSpanId()) == 8 {
					parents++
				}
				if len(s.GetTraceId()) != 16 || len(s.GetSpanId()) != 8 || s.GetEndTimeUnixNano() < s.GetStartTimeUnixNano() {
					t.Errorf("malformed span %v", s)
				}
			}
		}
	}
	if spans != SpansPerBatch {
		t.Errorf("%d spans, want %d", spans, SpansPerBatch)
	}
	// Every kind of content is there in quantity.
	if attrs < 6*spans || events < spans/2 || links < spans/2 || parents < spans/2 {
		t.Errorf("%d spans with %d attributes, %d events, %d links, %d parents", spans, attrs, events, links, parents)
	}
	t.Logf("%d spans, %d attributes, %d events, %d links; %d bytes", spans, attrs, events, links, len(got))
}
