package testpb_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testpb/editionspb"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
	"github.com/protoavro/protoavro/internal/testpb/legacypb"
	"github.com/protoavro/protoavro/internal/testpb/testpbgen"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/commonpb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/logspb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/metricspb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/resourcepb"
	"github.com/protoavro/protoavro/internal/testpb/third_party/otlppb/tracepb"
	"github.com/protoavro/protoavro/internal/testutil"
)

// generatedFiles are the file descriptors of every generated package, keyed
// by their path relative to testdata/proto.
var generatedFiles = map[string]protoreflect.FileDescriptor{
	"avro2147.proto":          avro2147pb.File_avro2147_proto,
	"kitchen/kitchen.proto":   kitchenpb.File_kitchen_kitchen_proto,
	"legacy/legacy.proto":     legacypb.File_legacy_legacy_proto,
	"legacy/zerosize.proto":   legacypb.File_legacy_zerosize_proto,
	"editions/editions.proto": editionspb.File_editions_editions_proto,

	"opentelemetry/proto/common/v1/common.proto":     commonpb.File_opentelemetry_proto_common_v1_common_proto,
	"opentelemetry/proto/resource/v1/resource.proto": resourcepb.File_opentelemetry_proto_resource_v1_resource_proto,
	"opentelemetry/proto/trace/v1/trace.proto":       tracepb.File_opentelemetry_proto_trace_v1_trace_proto,
	"opentelemetry/proto/metrics/v1/metrics.proto":   metricspb.File_opentelemetry_proto_metrics_v1_metrics_proto,
	"opentelemetry/proto/logs/v1/logs.proto":         logspb.File_opentelemetry_proto_logs_v1_logs_proto,
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := testpbgen.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// allEnums returns every enum declared in fd, nested ones included.
func allEnums(fd protoreflect.FileDescriptor) []protoreflect.EnumDescriptor {
	var out []protoreflect.EnumDescriptor
	add := func(es protoreflect.EnumDescriptors) {
		for i := 0; i < es.Len(); i++ {
			out = append(out, es.Get(i))
		}
	}
	add(fd.Enums())
	for _, md := range testutil.AllMessages(fd) {
		add(md.Enums())
	}
	return out
}

func TestGeneratedFilesMatchProtos(t *testing.T) {
	if len(generatedFiles) != len(testpbgen.Protos) {
		t.Fatalf("testpbgen.Protos = %v, but the test knows %d generated files", testpbgen.Protos, len(generatedFiles))
	}
	for _, p := range testpbgen.Protos {
		fd, ok := generatedFiles[p]
		if !ok {
			t.Errorf("no generated package known for %s", p)
			continue
		}
		if fd.Path() != p {
			t.Errorf("generated file path = %q, want %q", fd.Path(), p)
		}
		reg, err := protoregistry.GlobalFiles.FindFileByPath(p)
		if err != nil {
			t.Errorf("%s not registered: %v", p, err)
		} else if reg != fd {
			t.Errorf("%s: registered descriptor is not the generated one", p)
		}
	}
}

// checkRegistered checks that find, a lookup in the global registry, finds
// the type of d by its full name with d as its descriptor. ok is false when
// it finds none.
func checkRegistered[D interface {
	comparable
	protoreflect.Descriptor
}, T interface{ Descriptor() D }](t *testing.T, kind string, d D, find func(protoreflect.FullName) (T, error)) (typ T, ok bool) {
	t.Helper()
	typ, err := find(d.FullName())
	if err != nil {
		t.Errorf("%s %s not registered: %v", kind, d.FullName(), err)
		return typ, false
	}
	if typ.Descriptor() != d {
		t.Errorf("%s %s: registered descriptor differs", kind, d.FullName())
	}
	return typ, true
}

func TestEveryTypeRegistered(t *testing.T) {
	wantCounts := map[string][2]int{ // messages, enums
		"avro2147.proto":          {2, 2},
		"kitchen/kitchen.proto":   {16, 5},
		"legacy/legacy.proto":     {10, 3},
		"legacy/zerosize.proto":   {3, 0},
		"editions/editions.proto": {8, 2},

		"opentelemetry/proto/common/v1/common.proto":     {6, 0},
		"opentelemetry/proto/resource/v1/resource.proto": {1, 0},
		"opentelemetry/proto/trace/v1/trace.proto":       {7, 3},
		"opentelemetry/proto/metrics/v1/metrics.proto":   {16, 2},
		"opentelemetry/proto/logs/v1/logs.proto":         {4, 2},
	}
	for path, fd := range generatedFiles {
		msgs, enums := testutil.AllMessages(fd), allEnums(fd)
		if got := [2]int{len(msgs), len(enums)}; got != wantCounts[path] {
			t.Errorf("%s: %d messages and %d enums, want %v (update the test if the proto changed)", path, got[0], got[1], wantCounts[path])
		}
		for _, md := range msgs {
			if mt, ok := checkRegistered(t, "message", md, protoregistry.GlobalTypes.FindMessageByName); ok {
				if got := mt.New().Interface().ProtoReflect().Descriptor(); got != md {
					t.Errorf("message %s: new instance has descriptor %s", md.FullName(), got.FullName())
				}
			}
		}
		for _, ed := range enums {
			checkRegistered(t, "enum", ed, protoregistry.GlobalTypes.FindEnumByName)
		}
	}

	// Extensions of legacy.Extendable: five at top level, two nested.
	var names []string
	protoregistry.GlobalTypes.RangeExtensionsByMessage("protoavro.test.legacy.Extendable", func(xt protoreflect.ExtensionType) bool {
		names = append(names, string(xt.TypeDescriptor().FullName()))
		return true
	})
	if len(names) != 7 {
		t.Errorf("extensions of Extendable = %v, want 7", names)
	}
	for _, n := range []protoreflect.FullName{
		"protoavro.test.legacy.ext_int32",
		"protoavro.test.legacy.ext_message",
		"protoavro.test.legacy.ExtensionHolder.nested_message",
	} {
		if _, err := protoregistry.GlobalTypes.FindExtensionByName(n); err != nil {
			t.Errorf("extension %s not registered: %v", n, err)
		}
	}
}

// populator fills a message with non-zero values in every field it can
// reach. variant picks which member of each oneof is set (and varies
// values), so running variants 0..n-1 sets every member of an n-member
// oneof once.
type populator struct {
	variant  int
	maxDepth int
}

func (p populator) fill(m protoreflect.Message, depth int) {
	md := m.Descriptor()
	switch md.FullName() {
	case "google.protobuf.Any":
		// A real Any, not just random bytes.
		a, err := anypb.New(timestamppb.New(time.Unix(1700000000, 123456789)))
		if err != nil {
			panic(err)
		}
		proto.Merge(m.Interface(), a)
		return
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if od.Fields().Get(p.variant%od.Fields().Len()) != fd {
				continue
			}
		}
		p.setField(m, fd, depth)
	}
	if md.ExtensionRanges().Len() > 0 {
		protoregistry.GlobalTypes.RangeExtensionsByMessage(md.FullName(), func(xt protoreflect.ExtensionType) bool {
			p.setField(m, xt.TypeDescriptor(), depth)
			return true
		})
	}
}

func (p populator) setField(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	isMsg := fd.Message() != nil && !fd.IsMap()
	if isMsg && depth >= p.maxDepth && fd.Cardinality() != protoreflect.Required {
		// Stop recursion (Tree, MutualA/B, Struct/Value).
		return
	}
	switch {
	case fd.IsList():
		l := m.Mutable(fd).List()
		for j := 0; j < 2; j++ {
			if isMsg {
				v := l.NewElement()
				p.fill(v.Message(), depth+1)
				l.Append(v)
			} else {
				l.Append(p.scalar(fd, j))
			}
		}
	case fd.IsMap():
		mp := m.Mutable(fd).Map()
		for j := 0; j < 2; j++ {
			k := p.scalar(fd.MapKey(), j).MapKey()
			if vd := fd.MapValue(); vd.Message() != nil {
				if depth >= p.maxDepth {
					break
				}
				v := mp.NewValue()
				p.fill(v.Message(), depth+1)
				mp.Set(k, v)
			} else {
				mp.Set(k, p.scalar(vd, j))
			}
		}
	case isMsg:
		p.fill(m.Mutable(fd).Message(), depth+1)
	default:
		m.Set(fd, p.scalar(fd, 0))
	}
}

// scalar returns a non-zero value for fd; j varies it (j = 0 and 1 give
// different values, also for bool, so they can be used as map keys).
func (p populator) scalar(fd protoreflect.FieldDescriptor, j int) protoreflect.Value {
	n := int64(fd.Number()) + int64(p.variant)*1000
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(j == 0)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		idx := ((vals.Len()-1-j-p.variant)%vals.Len() + vals.Len()) % vals.Len()
		return protoreflect.ValueOfEnum(vals.Get(idx).Number())
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(-n - int64(j)*int64(math.MaxInt32/2)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-n - int64(j)*(math.MaxInt64/2))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(n) + uint32(j)*math.MaxUint32/2)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(n) + uint64(j)*(math.MaxUint64/2))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(n)/4 - float32(j)*1e30)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(n)/8 - float64(j)*1e300)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprintf("%s-%d-%d-héllo ✓", fd.Name(), p.variant, j))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{0, 0xff, byte(n), byte(j), '\n'})
	}
	panic(fmt.Sprintf("unhandled kind %v", fd.Kind()))
}

// maxOneofMembers is the largest number of members of any oneof in md's
// file, so that variants 0..max-1 set every member of every oneof.
func maxOneofMembers(md protoreflect.MessageDescriptor) int {
	n := 1
	ods := md.Oneofs()
	for i := 0; i < ods.Len(); i++ {
		if od := ods.Get(i); !od.IsSynthetic() && od.Fields().Len() > n {
			n = od.Fields().Len()
		}
	}
	return n
}

func TestRoundTripEveryMessage(t *testing.T) {
	for path, fd := range generatedFiles {
		for _, md := range testutil.AllMessages(fd) {
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatalf("%s: %v", md.FullName(), err)
			}
			for variant := 0; variant < maxOneofMembers(md); variant++ {
				t.Run(fmt.Sprintf("%s/%s/%d", path, md.FullName(), variant), func(t *testing.T) {
					msg := mt.New()
					populator{variant: variant, maxDepth: 3}.fill(msg, 0)
					in := msg.Interface()
					if md.Fields().Len() > 0 && proto.Size(in) == 0 {
						t.Fatalf("populated %s is empty", md.FullName())
					}
					if err := proto.CheckInitialized(in); err != nil {
						t.Fatalf("populated message not initialized: %v", err)
					}
					b, err := proto.Marshal(in)
					if err != nil {
						t.Fatalf("Marshal: %v", err)
					}
					out := mt.New().Interface()
					if err := proto.Unmarshal(b, out); err != nil {
						t.Fatalf("Unmarshal: %v", err)
					}
					if !proto.Equal(in, out) {
						t.Fatalf("round trip changed the message:\n in: %v\nout: %v", in, out)
					}
					// Every top-level field is set (one member per oneof) and
					// survived the round trip.
					for i := 0; i < md.Fields().Len(); i++ {
						f := md.Fields().Get(i)
						if od := f.ContainingOneof(); od != nil && !od.IsSynthetic() && od.Fields().Get(variant%od.Fields().Len()) != f {
							continue
						}
						if !out.ProtoReflect().Has(f) {
							t.Errorf("field %s not set after the round trip", f.FullName())
						}
					}
				})
			}
		}
	}
}

// TestTypedAPI pins the Go API of the generated code that other tests use.
func TestTypedAPI(t *testing.T) {
	ks := &kitchenpb.KitchenSink{
		Id: "k1",
		Scalars: &kitchenpb.Scalars{
			DoubleField: 1.5, FloatField: 2.5, Int32Field: -3, Int64Field: -4,
			Uint32Field: math.MaxUint32, Uint64Field: math.MaxUint64,
			Sint32Field: -7, Sint64Field: -8, Fixed32Field: 9, Fixed64Field: 10,
			Sfixed32Field: -11, Sfixed64Field: -12, BoolField: true,
			StringField: "héllo ✓", BytesField: []byte{0, 0xff},
			EnumField: kitchenpb.Color_COLOR_INFRARED,
		},
		OptionalScalars: &kitchenpb.OptionalScalars{Int32Field: proto.Int32(0), StringField: proto.String("")},
		Repeateds: &kitchenpb.Repeateds{
			PackedInt32: []int32{1, 2}, UnpackedInt32: []int32{3, 4},
			PackedEnum: []kitchenpb.Color{kitchenpb.Color_COLOR_BLUE},
			Statuses:   []kitchenpb.Status{kitchenpb.Status_STATUS_RUNNING},
		},
		Maps: &kitchenpb.Maps{
			BoolToBool:         map[bool]bool{true: false},
			Int32ToMessage:     map[int32]*kitchenpb.Point{-1: {X: 1}},
			StringToEnum:       map[string]kitchenpb.Color{"c": kitchenpb.Color_COLOR_ULTRAVIOLET},
			Sfixed64ToSfixed64: map[int64]int64{math.MinInt64: math.MaxInt64},
		},
		Oneofs: &kitchenpb.Oneofs{
			SameType: &kitchenpb.Oneofs_SecondPoint{SecondPoint: &kitchenpb.Point{X: 2}},
			Mixed:    &kitchenpb.Oneofs_NestedEnumChoice{NestedEnumChoice: kitchenpb.Outer_OUTER_ENUM_TWO},
		},
		Outer: &kitchenpb.Outer{
			Middle: &kitchenpb.Outer_Middle{
				Inner:      &kitchenpb.Outer_Middle_Inner{Deepest: &kitchenpb.Outer_Middle_Inner_Deepest{Value: "deep"}},
				MiddleEnum: kitchenpb.Outer_Middle_MIDDLE_ENUM_NEGATIVE,
			},
			Point:    &kitchenpb.Outer_Point{Lat: 1, Lng: 2},
			TopPoint: &kitchenpb.Point{Y: 3},
		},
		Deepest: &kitchenpb.Outer_Middle_Inner_Deepest{InnerEnum: kitchenpb.Outer_Middle_Inner_INNER_ENUM_DEEP},
		Tree: &kitchenpb.Tree{
			Label:    "root",
			Children: []*kitchenpb.Tree{{Label: "child", Parent: &kitchenpb.Tree{Label: "root"}}},
			Named:    map[string]*kitchenpb.Tree{"n": {Label: "named"}},
		},
		Mutual: &kitchenpb.MutualA{B: &kitchenpb.MutualB{A: &kitchenpb.MutualA{Name: "inner"}}},
		WellKnown: &kitchenpb.WellKnown{
			Timestamp:     timestamppb.New(time.Unix(-1, 5)),
			Duration:      durationpb.New(1500),
			DoubleWrapper: wrapperspb.Double(0),
			Value:         structpb.NewNullValue(),
			Choice:        &kitchenpb.WellKnown_OneofEmpty{},
		},
		Color:      kitchenpb.Color_COLOR_GREEN,
		Status:     kitchenpb.Status_STATUS_HALTED,
		OuterEnum:  kitchenpb.Outer_OUTER_ENUM_ONE,
		OuterPoint: &kitchenpb.Outer_Point{Lat: -1},
		CustomJson: 5,
	}
	got := wireRoundTrip(t, ks)
	if !proto.Equal(ks, got) {
		t.Fatalf("round trip changed the message")
	}
	if got.OptionalScalars.Int32Field == nil {
		t.Error("proto3 optional presence lost")
	}
	if kitchenpb.Status_STATUS_RUNNING != kitchenpb.Status_STATUS_ACTIVE {
		t.Error("alias numbers differ")
	}
	if f := ks.ProtoReflect().Descriptor().Fields().ByName("custom_json"); f.JSONName() != "customJsonName" {
		t.Errorf("custom_json JSON name = %q", f.JSONName())
	}
}

// wireRoundTrip returns m marshaled and unmarshaled again with package proto.
func wireRoundTrip[M proto.Message](t *testing.T, m M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	got := m.ProtoReflect().New().Interface().(M)
	if err := proto.Unmarshal(b, got); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestLegacyDefaults(t *testing.T) {
	d := &legacypb.Defaults{}
	if got := d.GetFloatInfDefault(); !math.IsInf(float64(got), 1) {
		t.Errorf("float_inf_default = %v, want +Inf", got)
	}
	if got, want := d.GetBytesDefault(), []byte("\x00\x01\xffcaf\xc3\xa9\\\"\n"); !bytes.Equal(got, want) {
		t.Errorf("bytes_default = %q, want %q", got, want)
	}
	if got, want := d.GetStringDefault(), "héllo \"wörld\" \\ ✓\n"; got != want {
		t.Errorf("string_default = %q, want %q", got, want)
	}
	if got := d.GetUint64Default(); got != 9007199254740993 {
		t.Errorf("uint64_default = %d", got)
	}
	if got := d.GetInt64MinDefault(); got != math.MinInt64 {
		t.Errorf("int64_min_default = %d", got)
	}
	if got := d.GetDoubleDefault(); got != -1.5 {
		t.Errorf("double_default = %v", got)
	}
	if got := d.GetFloatFractionDefault(); got != float32(0.1) {
		t.Errorf("float_fraction_default = %v", got)
	}
	if got := d.GetEnumDefault(); got != legacypb.Level_LEVEL_HIGH {
		t.Errorf("enum_default = %v", got)
	}
	if got := d.GetNestedEnumDefault(); got != legacypb.Legacy_KIND_C {
		t.Errorf("nested_enum_default = %v", got)
	}
	if got := (&legacypb.Legacy{}).GetKindNoDefault(); got != legacypb.Legacy_KIND_A {
		t.Errorf("kind_no_default = %v, want the first value", got)
	}
	if got := (&legacypb.Required{}).GetCount(); got != 10 {
		t.Errorf("required count default = %d", got)
	}
	if got := (&avro2147pb.Foo{}).GetEnum(); got != avro2147pb.A_Z {
		t.Errorf("avro2147 Foo.enum default = %v", got)
	}

	// Required fields are enforced.
	if _, err := proto.Marshal(&legacypb.Required{Id: proto.Int32(1)}); err == nil {
		t.Error("Marshal of a Required with missing fields succeeded")
	}

	// Extensions, top level and nested.
	e := &legacypb.Extendable{Base: proto.String("b")}
	proto.SetExtension(e, legacypb.E_ExtInt32, int32(5))
	proto.SetExtension(e, legacypb.E_ExtensionHolder_NestedMessage, &legacypb.ExtPayload{Text: proto.String("t")})
	if got := proto.GetExtension(&legacypb.Extendable{}, legacypb.E_ExtString).(string); got != "ext" {
		t.Errorf("ext_string default = %q", got)
	}
	if !proto.Equal(e, wireRoundTrip(t, e)) {
		t.Error("extensions did not round-trip")
	}

	// Groups.
	g := &legacypb.WithGroups{
		Result: &legacypb.WithGroups_Result{Url: proto.String("u")},
		Item:   []*legacypb.WithGroups_Item{{Key: proto.String("k")}},
	}
	if g.GetResult().GetRank() != 1 {
		t.Errorf("group default rank = %d", g.GetResult().GetRank())
	}
	if f := g.ProtoReflect().Descriptor().Fields().ByName("result"); f.Kind() != protoreflect.GroupKind {
		t.Errorf("result kind = %v, want group", f.Kind())
	}
}

// TestGeneratedCodeUpToDate regenerates the Go code in memory and compares it
// with the committed files, as `go run ./internal/cmd/protogen -check` does.
func TestGeneratedCodeUpToDate(t *testing.T) {
	root := repoRoot(t)
	files, err := testpbgen.Generate(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(testpbgen.Protos) {
		t.Errorf("generated %d files, want %d", len(files), len(testpbgen.Protos))
	}
	problems, err := testpbgen.Diff(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Log("regenerate with: go run ./internal/cmd/protogen")
	}
	for _, f := range files {
		if !bytes.Contains(f.Content, []byte("// Code generated by protoc-gen-go. DO NOT EDIT.")) {
			t.Errorf("%s: no generated-code header", f.Path)
		}
	}
}

// TestCompiledMatchesGenerated checks that compiling the protos at run time
// with protocompile gives the same descriptors as the generated packages
// (apart from source info), so tests may use either.
func TestCompiledMatchesGenerated(t *testing.T) {
	fds, err := testpbgen.Compile(context.Background(), repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		gen, ok := generatedFiles[fd.Path()]
		if !ok {
			t.Errorf("%s: no generated package", fd.Path())
			continue
		}
		want := protodesc.ToFileDescriptorProto(gen)
		got := protodesc.ToFileDescriptorProto(fd)
		if got.GetSourceCodeInfo() == nil {
			t.Errorf("%s: compiled without source info (comments)", fd.Path())
		}
		got.SourceCodeInfo = nil
		want.SourceCodeInfo = nil
		if !proto.Equal(got, want) {
			t.Errorf("%s: compiled descriptor differs from the generated one", fd.Path())
		}
	}
}

func compileEvolution(t *testing.T, version string) protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: []string{filepath.Join(repoRoot(t), "testdata", "proto", "evolution", version)},
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), "person.proto")
	if err != nil {
		t.Fatalf("%s: %v", version, err)
	}
	return files[0]
}

func TestEvolutionProtos(t *testing.T) {
	v1, v2 := compileEvolution(t, "v1"), compileEvolution(t, "v2")
	if v1.Path() != v2.Path() || v1.Package() != v2.Package() {
		t.Errorf("v1 %s (%s) and v2 %s (%s) should share path and package", v1.Path(), v1.Package(), v2.Path(), v2.Package())
	}
	p1 := v1.Messages().ByName("Person")
	p2 := v2.Messages().ByName("Person")
	if p1 == nil || p2 == nil {
		t.Fatal("Person missing")
	}
	if p1.FullName() != "protoavro.test.evolution.Person" || p1.FullName() != p2.FullName() {
		t.Errorf("full names %s and %s", p1.FullName(), p2.FullName())
	}
	if proto.Equal(protodesc.ToDescriptorProto(p1), protodesc.ToDescriptorProto(p2)) {
		t.Error("v1 and v2 Person are the same")
	}

	kind := func(md protoreflect.MessageDescriptor, name protoreflect.Name) string {
		if f := md.Fields().ByName(name); f != nil {
			return f.Kind().String()
		}
		return "absent"
	}
	for _, c := range []struct {
		field  protoreflect.Name
		v1, v2 string
	}{
		{"name", "string", "string"},
		{"age", "int32", "int64"},
		{"score", "float", "double"},
		{"nickname", "string", "absent"},
		{"phone", "absent", "string"},
		{"verified", "absent", "bool"},
	} {
		if got1, got2 := kind(p1, c.field), kind(p2, c.field); got1 != c.v1 || got2 != c.v2 {
			t.Errorf("%s: v1 %s, v2 %s; want %s, %s", c.field, got1, got2, c.v1, c.v2)
		}
	}
	if n1, n2 := p1.Enums().ByName("Role").Values().Len(), p2.Enums().ByName("Role").Values().Len(); n1 != 3 || n2 != 5 {
		t.Errorf("Role symbols: v1 %d, v2 %d; want 3, 5", n1, n2)
	}
	if n1, n2 := p1.Messages().ByName("Address").Fields().Len(), p2.Messages().ByName("Address").Fields().Len(); n1 != 2 || n2 != 3 {
		t.Errorf("Address fields: v1 %d, v2 %d; want 2, 3", n1, n2)
	}

	// Neither version is generated into Go.
	if _, err := protoregistry.GlobalFiles.FindDescriptorByName("protoavro.test.evolution.Person"); err == nil {
		t.Error("protoavro.test.evolution.Person is registered globally; the evolution protos must not be generated")
	}
	if !strings.HasPrefix(string(p1.ParentFile().Package()), "protoavro.test.") {
		t.Errorf("package %s", p1.ParentFile().Package())
	}
}

// TestEditionsAPILevels checks that editions.proto is generated at the API
// level each message asks for: Open with exported fields, Hybrid with
// exported fields and accessors, Opaque and OpaqueNoPresence with hidden
// fields only (OpaqueNoPresence without presence bits), and that the Go
// code of every level carries the edition's features (presence, closed
// enums, delimited encoding).
func TestEditionsAPILevels(t *testing.T) {
	for _, c := range []struct {
		m        proto.Message
		level    string
		exported bool // exported struct fields
		presence bool // XXX_presence bits (opaque only)
	}{
		{&editionspb.Open{}, "open.v1", true, false},
		{&editionspb.Open_Inner{}, "open.v1", true, false},
		{&editionspb.Hybrid{}, "hybrid.v1", true, false},
		{&editionspb.Hybrid_Inner{}, "hybrid.v1", true, false},
		{&editionspb.Opaque{}, "opaque.v1", false, true},
		{&editionspb.Opaque_Inner{}, "opaque.v1", false, true},
		{&editionspb.OpaqueNoPresence{}, "opaque.v1", false, false},
		{&editionspb.OpaqueNoPresence_Item{}, "opaque.v1", false, false},
	} {
		typ := reflect.TypeOf(c.m).Elem()
		state, _ := typ.FieldByName("state")
		_, hasPresence := typ.FieldByName("XXX_presence")
		exported := 0
		for i := range typ.NumField() {
			if f := typ.Field(i); f.IsExported() && !strings.HasPrefix(f.Name, "XXX_") {
				exported++
			}
		}
		if got := state.Tag.Get("protogen"); got != c.level || (exported > 0) != c.exported || hasPresence != c.presence {
			t.Errorf("%s: API %q, %d exported fields, presence bits %v; want %q, exported %v, presence bits %v",
				typ, got, exported, hasPresence, c.level, c.exported, c.presence)
		}
	}
	// Hybrid has the opaque accessors as well as its exported fields.
	h := editionspb.Hybrid_builder{ImplicitString: "s", Grade: editionspb.Grade_GRADE_C.Enum()}.Build()
	if !h.HasGrade() || h.HasExplicitInt32() || h.GetImplicitString() != "s" || h.ImplicitString != "s" {
		t.Errorf("hybrid accessors: %v", h)
	}
	o := editionspb.Opaque_builder{ExplicitInt32: proto.Int32(0), ImplicitInt64: 0}.Build()
	if !o.HasExplicitInt32() {
		t.Error("opaque: explicit presence of a zero value lost")
	}

	md := (&editionspb.Opaque{}).ProtoReflect().Descriptor()
	fields := md.Fields()
	for _, c := range []struct {
		name     protoreflect.Name
		presence bool
	}{{"explicit_int32", true}, {"explicit_string", true}, {"implicit_int64", false}, {"implicit_string", false}, {"inner", true}, {"grade", true}} {
		if got := fields.ByName(c.name).HasPresence(); got != c.presence {
			t.Errorf("%s: presence %v, want %v", c.name, got, c.presence)
		}
	}
	if !fields.ByName("packed").IsPacked() || fields.ByName("expanded").IsPacked() {
		t.Error("packed/expanded encodings")
	}
	if fields.ByName("delimited").Kind() != protoreflect.GroupKind || fields.ByName("delimited_list").Kind() != protoreflect.GroupKind ||
		fields.ByName("inner").Kind() != protoreflect.MessageKind {
		t.Error("delimited message encoding")
	}
	// Grade is closed by an enum-level feature. protobuf-go v1.36.12 does not
	// read enum-level features from generated descriptors (the generated
	// Grade reports IsClosed false), so the option is checked in the
	// descriptor, and closedness where protocompile compiles the file.
	grade := fields.ByName("grade").Enum()
	if got := grade.Options().(*descriptorpb.EnumOptions).GetFeatures().GetEnumType(); got != descriptorpb.FeatureSet_CLOSED {
		t.Errorf("Grade: enum_type %v, want CLOSED", got)
	}
	fds, err := testpbgen.Compile(context.Background(), repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if fd.Path() == "editions/editions.proto" && (!fd.Enums().ByName("Grade").IsClosed() || fd.Enums().ByName("Shade").IsClosed()) {
			t.Error("compiled editions.proto: Grade must be closed and Shade open")
		}
	}
	if fields.ByName("shade").Enum().IsClosed() {
		t.Error("Shade is closed")
	}
	np := (&editionspb.OpaqueNoPresence{}).ProtoReflect().Descriptor().Fields()
	for i := range np.Len() {
		if np.Get(i).HasPresence() {
			t.Errorf("OpaqueNoPresence.%s has presence", np.Get(i).Name())
		}
	}
}

// TestHybridFileVariant: a file whose API level is hybrid is generated as
// two files, the second (_protoopaque.pb.go, build tag protoopaque) with the
// opaque API, and Generate's path (Request, Run) returns both.
func TestHybridFileVariant(t *testing.T) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"h/hybrid.proto": `
edition = "2023";
package protoavro.test.hybrid;
import "google/protobuf/go_features.proto";
option features.(pb.go).api_level = API_HYBRID;
option go_package = "github.com/protoavro/protoavro/internal/testpb/hybridpb";
message M { int32 x = 1; }
`}),
	})}
	files, err := c.Compile(context.Background(), "h/hybrid.proto")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := testpbgen.Run(testpbgen.Request([]protoreflect.FileDescriptor{files[0]}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range resp.File {
		got[f.GetName()] = f.GetContent()
	}
	open, opaque := got["internal/testpb/hybridpb/hybrid.pb.go"], got["internal/testpb/hybridpb/hybrid_protoopaque.pb.go"]
	if len(got) != 2 || !strings.Contains(open, "//go:build !protoopaque") || !strings.Contains(opaque, "//go:build protoopaque") ||
		!strings.Contains(opaque, "xxx_hidden_X") {
		t.Errorf("generated %d files, want hybrid.pb.go and hybrid_protoopaque.pb.go with build tags:\n%v", len(got), keys(got))
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
