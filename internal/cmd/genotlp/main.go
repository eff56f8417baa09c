// Command genotlp writes testdata/otlp_traces.pb, the real-world datum of the
// OTLP benchmark (BenchmarkOTLPTraces in the repository's bench_test.go): one
// OpenTelemetry opentelemetry.proto.trace.v1.TracesData batch in protobuf
// binary form, as an SDK's batch span processor exports it.
//
// Usage, from anywhere in the repository:
//
//	go run ./internal/cmd/genotlp          # write the file
//	go run ./internal/cmd/genotlp -check   # exit 1 if the committed file differs
//
// The batch holds 4 resources (services) of 2 instrumentation scopes with 64
// spans each, 512 spans in all: 16-byte trace and 8-byte span ids, parent
// ids, kinds, nanosecond start and end times, 6 to 14 attributes (mostly
// strings, some integers, doubles, booleans and arrays, the odd key-value
// list), 0 to 3 events with attributes, 0 to 2 links and a status. The
// output is deterministic: a fixed-seed generator and deterministic
// marshalling.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/testpb/testpbgen"
	cpb "github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/commonpb"
	rpb "github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/resourcepb"
	tpb "github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
)

// File is the path of the batch, relative to the repository root.
const File = "testdata/otlp_traces.pb"

// Shape of the batch.
const (
	Resources      = 4
	ScopesPerRes   = 2
	SpansPerScope  = 64
	SpansPerBatch  = Resources * ScopesPerRes * SpansPerScope
	baseTimeUnixNs = 1_767_225_600_000_000_000 // 2026-01-01T00:00:00Z
)

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "genotlp: "+format+"\n", args...) }
	check := flag.Bool("check", false, "generate into memory and exit 1 if the committed file differs")
	testpbgen.ParseFlags("genotlp [-check]")
	root, err := testpbgen.FindRoot(".")
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	path := filepath.Join(root, filepath.FromSlash(File))
	data, err := Generate()
	if err != nil {
		log("%v", err)
		os.Exit(1)
	}
	if testpbgen.WriteOrCheck("genotlp", path, data, *check) {
		log("wrote %d spans (%d bytes) to %s", SpansPerBatch, len(data), path)
	}
}

// Generate returns the batch in protobuf binary form.
func Generate() ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(Batch())
}

// Batch returns the batch, the same on every call.
func Batch() *tpb.TracesData {
	g := &gen{r: rand.New(rand.NewPCG(4317, 4318))} // the OTLP gRPC and HTTP ports
	td := &tpb.TracesData{}
	for ri := range Resources {
		rs := &tpb.ResourceSpans{
			Resource:  g.resource(ri),
			SchemaUrl: "https://opentelemetry.io/schemas/1.26.0",
		}
		for si := range ScopesPerRes {
			ss := &tpb.ScopeSpans{
				Scope: &cpb.InstrumentationScope{
					Name:    scopes[(ri+si)%len(scopes)],
					Version: fmt.Sprintf("0.%d.%d", 40+g.r.IntN(20), g.r.IntN(5)),
				},
				SchemaUrl: "https://opentelemetry.io/schemas/1.24.0",
			}
			for range SpansPerScope {
				ss.Spans = append(ss.Spans, g.span())
			}
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		td.ResourceSpans = append(td.ResourceSpans, rs)
	}
	return td
}

var (
	services = []string{"checkout", "frontend", "cart", "payment", "shipping", "ad", "recommendation"}
	scopes   = []string{
		"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp",
		"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc",
		"github.com/XSAM/otelsql",
	}
	routes   = []string{"/api/cart", "/api/checkout", "/api/products/{id}", "/api/recommendations", "/healthz", "/api/currency/convert"}
	methods  = []string{"GET", "POST", "PUT", "DELETE"}
	rpcs     = []string{"oteldemo.CartService/GetCart", "oteldemo.PaymentService/Charge", "oteldemo.ShippingService/GetQuote", "oteldemo.ProductCatalogService/ListProducts"}
	events   = []string{"message", "exception", "retry", "cache.miss"}
	userAgts = []string{
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
		"python-requests/2.32.3",
		"Go-http-client/1.1",
		"grpc-go/1.65.0",
	}
	statements = []string{
		"SELECT id, name, price_units, price_nanos FROM products WHERE id = $1",
		"UPDATE carts SET items = $2, updated_at = now() WHERE user_id = $1",
		"INSERT INTO orders (id, user_id, total) VALUES ($1, $2, $3)",
	}
)

// gen makes the random parts of the batch.
type gen struct {
	r *rand.Rand
}

func pick[T any](g *gen, vs ...T) T { return vs[g.r.IntN(len(vs))] }

func (g *gen) id(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

func (g *gen) hex(n int) string { return fmt.Sprintf("%x", g.id(n)) }

func str(k, v string) *cpb.KeyValue {
	return &cpb.KeyValue{Key: k, Value: &cpb.AnyValue{Value: &cpb.AnyValue_StringValue{StringValue: v}}}
}

func i64(k string, v int64) *cpb.KeyValue {
	return &cpb.KeyValue{Key: k, Value: &cpb.AnyValue{Value: &cpb.AnyValue_IntValue{IntValue: v}}}
}

func f64(k string, v float64) *cpb.KeyValue {
	return &cpb.KeyValue{Key: k, Value: &cpb.AnyValue{Value: &cpb.AnyValue_DoubleValue{DoubleValue: v}}}
}

func boolean(k string, v bool) *cpb.KeyValue {
	return &cpb.KeyValue{Key: k, Value: &cpb.AnyValue{Value: &cpb.AnyValue_BoolValue{BoolValue: v}}}
}

func strs(k string, vs ...string) *cpb.KeyValue {
	arr := &cpb.ArrayValue{}
	for _, v := range vs {
		arr.Values = append(arr.Values, &cpb.AnyValue{Value: &cpb.AnyValue_StringValue{StringValue: v}})
	}
	return &cpb.KeyValue{Key: k, Value: &cpb.AnyValue{Value: &cpb.AnyValue_ArrayValue{ArrayValue: arr}}}
}

func (g *gen) resource(i int) *rpb.Resource {
	svc := services[i%len(services)]
	return &rpb.Resource{Attributes: []*cpb.KeyValue{
		str("service.name", svc),
		str("service.namespace", "opentelemetry-demo"),
		str("service.version", fmt.Sprintf("1.%d.%d", g.r.IntN(12), g.r.IntN(30))),
		str("service.instance.id", g.hex(16)),
		str("deployment.environment.name", "production"),
		str("host.name", fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", g.r.IntN(256), g.r.IntN(256))),
		str("host.arch", "amd64"),
		str("os.type", "linux"),
		str("k8s.namespace.name", "otel-demo"),
		str("k8s.pod.name", fmt.Sprintf("%s-%s-%s", svc, g.hex(5), g.hex(3))),
		str("telemetry.sdk.name", "opentelemetry"),
		str("telemetry.sdk.language", "go"),
		str("telemetry.sdk.version", "1.28.0"),
		i64("process.pid", int64(1+g.r.IntN(65535))),
		strs("process.command_args", "/app/"+svc, "--port", fmt.Sprint(8000+i)),
	}}
}

func (g *gen) span() *tpb.Span {
	start := uint64(baseTimeUnixNs + g.r.Int64N(60e9))
	dur := uint64(g.r.ExpFloat64() * 20e6) // ~20 ms on average
	s := &tpb.Span{
		TraceId:           g.id(16),
		SpanId:            g.id(8),
		Flags:             0x100 | uint32(g.r.IntN(2)), // has-is-remote bit, sampled or not
		StartTimeUnixNano: start,
		EndTimeUnixNano:   start + dur,
	}
	if g.r.IntN(4) != 0 {
		s.ParentSpanId = g.id(8)
	}
	if g.r.IntN(8) == 0 {
		s.TraceState = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
	}
	switch g.r.IntN(3) {
	case 0: // HTTP server
		route := pick(g, routes...)
		status := pick[int64](g, 200, 200, 200, 201, 204, 400, 404, 500, 503)
		s.Name, s.Kind = pick(g, methods...)+" "+route, tpb.Span_SPAN_KIND_SERVER
		s.Attributes = []*cpb.KeyValue{
			str("http.request.method", pick(g, methods...)),
			str("http.route", route),
			str("url.path", route),
			str("url.scheme", "https"),
			i64("http.response.status_code", status),
			str("server.address", "frontend-proxy"),
			i64("server.port", 8080),
			str("client.address", fmt.Sprintf("10.0.%d.%d", g.r.IntN(256), g.r.IntN(256))),
			str("user_agent.original", pick(g, userAgts...)),
			str("network.protocol.version", pick(g, "1.1", "2")),
			i64("http.request.body.size", int64(g.r.IntN(4096))),
		}
		if status >= 500 {
			s.Status = &tpb.Status{Code: tpb.Status_STATUS_CODE_ERROR, Message: fmt.Sprintf("HTTP %d", status)}
		}
	case 1: // gRPC client
		rpc := pick(g, rpcs...)
		s.Name, s.Kind = rpc, tpb.Span_SPAN_KIND_CLIENT
		s.Attributes = []*cpb.KeyValue{
			str("rpc.system", "grpc"),
			str("rpc.service", rpc[:len(rpc)-len("/x")]),
			str("rpc.method", rpc[len("oteldemo."):]),
			i64("rpc.grpc.status_code", pick[int64](g, 0, 0, 0, 0, 5, 14)),
			str("server.address", "cart:7070"),
			i64("server.port", 7070),
			str("network.peer.address", fmt.Sprintf("10.0.%d.%d", g.r.IntN(256), g.r.IntN(256))),
		}
	default: // database client
		stmt := pick(g, statements...)
		s.Name, s.Kind = "postgresql", tpb.Span_SPAN_KIND_CLIENT
		s.Attributes = []*cpb.KeyValue{
			str("db.system", "postgresql"),
			str("db.namespace", "shop"),
			str("db.query.text", stmt),
			str("db.operation.name", stmt[:6]),
			str("server.address", "postgres"),
			i64("server.port", 5432),
			f64("db.client.connections.usage", g.r.Float64()),
			boolean("db.statement.prepared", g.r.IntN(2) == 0),
		}
	}
	for _, extra := range []*cpb.KeyValue{
		str("app.user.id", g.hex(6)),
		f64("app.cart.total", float64(g.r.IntN(100000))/100),
		i64("app.cart.items.count", int64(g.r.IntN(20))),
	} {
		if g.r.IntN(2) == 0 {
			s.Attributes = append(s.Attributes, extra)
		}
	}
	if g.r.IntN(16) == 0 { // the odd structured attribute
		s.Attributes = append(s.Attributes, &cpb.KeyValue{Key: "app.feature_flags", Value: &cpb.AnyValue{Value: &cpb.AnyValue_KvlistValue{KvlistValue: &cpb.KeyValueList{Values: []*cpb.KeyValue{
			boolean("productCatalogFailure", false),
			boolean("recommendationCache", true),
			i64("adServiceFailure.percent", 10),
		}}}}})
	}
	for range g.r.IntN(4) {
		ev := &tpb.Span_Event{
			TimeUnixNano: start + uint64(g.r.Int64N(int64(dur)+1)),
			Name:         pick(g, events...),
		}
		switch ev.Name {
		case "exception":
			ev.Attributes = []*cpb.KeyValue{
				str("exception.type", "*net.OpError"),
				str("exception.message", "dial tcp 10.0.3.17:7070: connect: connection refused"),
				str("exception.stacktrace", "goroutine 1 [running]:\nmain.(*checkout).PlaceOrder(...)\n\t/app/main.go:217 +0x1a5"),
			}
		case "message":
			ev.Attributes = []*cpb.KeyValue{
				str("message.type", pick(g, "SENT", "RECEIVED")),
				i64("message.id", int64(1+g.r.IntN(8))),
				i64("message.uncompressed_size", int64(g.r.IntN(2048))),
			}
		default:
			ev.Attributes = []*cpb.KeyValue{i64("attempt", int64(1+g.r.IntN(3)))}
		}
		s.Events = append(s.Events, ev)
	}
	for range g.r.IntN(3) {
		s.Links = append(s.Links, &tpb.Span_Link{
			TraceId:    g.id(16),
			SpanId:     g.id(8),
			Flags:      0x101,
			Attributes: []*cpb.KeyValue{str("messaging.operation.type", "process"), i64("messaging.batch.message_count", int64(1+g.r.IntN(50)))},
		})
	}
	if g.r.IntN(32) == 0 {
		s.DroppedAttributesCount = uint32(1 + g.r.IntN(8))
	}
	return s
}
