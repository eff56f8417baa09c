package protoavro

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/realworld"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// calendarProto uses the google.type messages vendored in
// third_party/googleapis, and a message without fields.
const calendarProto = `syntax = "proto3";
package protoavro.test.calendar;
import "google/type/date.proto";
import "google/type/timeofday.proto";
import "google/type/datetime.proto";
import "google/type/interval.proto";
import "google/type/decimal.proto";
import "google/type/latlng.proto";
import "google/type/money.proto";
message Calendar {
  google.type.Date date = 1;
  google.type.TimeOfDay time = 2;
  google.type.DateTime date_time = 3;
  google.type.Interval interval = 4;
  google.type.Decimal amount = 5;
  google.type.LatLng where = 6;
  google.type.Money price = 7;
  repeated google.type.Date dates = 8;
  map<string, google.type.TimeOfDay> times = 9;
  Nothing nothing = 10;
  repeated Nothing nothings = 11;
}
message Nothing {}
`

// calendarFile compiles calendarProto with the vendored google.type protos.
func calendarFile(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	src := map[string]string{"calendar.proto": calendarProto}
	for _, f := range []string{"date", "timeofday", "datetime", "interval", "decimal", "latlng", "money"} {
		name := "google/type/" + f + ".proto"
		b, err := os.ReadFile(filepath.Join("..", "third_party", "googleapis", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		src[name] = string(b)
	}
	return testcompile.Sources(t, src, "calendar.proto")[0]
}

// calendarMsg builds a Calendar from its protojson form.
func calendarMsg(t *testing.T, md protoreflect.MessageDescriptor, js string) *dynamicpb.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(js), m); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return m
}

// fieldSchema returns the JSON of the type of field name of a record schema.
func fieldSchema(t *testing.T, s *Schema, name string) string {
	t.Helper()
	var rec struct {
		Fields []struct {
			Name string          `json:"name"`
			Type json.RawMessage `json:"type"`
		} `json:"fields"`
	}
	raw, _ := s.MarshalJSON()
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	for _, f := range rec.Fields {
		if f.Name == name {
			return string(f.Type)
		}
	}
	t.Fatalf("no field %s in %s", name, raw)
	return ""
}

func TestGoogleTypesSchema(t *testing.T) {
	md := calendarFile(t).Messages().ByName("Calendar")
	s := mustSchema(t, EngineReady(), md)
	for field, want := range map[string]string{
		"date":   `["null",{"type":"int","logicalType":"date"}]`,
		"time":   `["null",{"type":"long","logicalType":"time-micros"}]`,
		"amount": `["null","string"]`,
		"dates":  `{"type":"array","items":{"type":"int","logicalType":"date"}}`,
		"times":  `{"type":"map","values":{"type":"long","logicalType":"time-micros"}}`,
	} {
		if got := fieldSchema(t, s, field); got != want {
			t.Errorf("field %s: got %s, want %s", field, got, want)
		}
	}
	for _, field := range []string{"date_time", "interval", "where", "price"} {
		if got := fieldSchema(t, s, field); !strings.Contains(got, `"type":"record"`) {
			t.Errorf("field %s is not a record: %s", field, got)
		}
	}
	// Without the option, they are records, as any message.
	d := mustSchema(t, Options{}, md)
	if got := fieldSchema(t, d, "date"); !strings.Contains(got, `"name":"year"`) {
		t.Errorf("default profile: date is %s, want the record", got)
	}
}

func TestGoogleTypesRoundTrip(t *testing.T) {
	md := calendarFile(t).Messages().ByName("Calendar")
	msgs := []string{
		`{}`,
		`{"date":{"year":1970,"month":1,"day":1},"time":{}}`,
		`{"date":{"year":1,"month":1,"day":1},"time":{"hours":23,"minutes":59,"seconds":59,"nanos":999999000}}`,
		`{"date":{"year":9999,"month":12,"day":31},"time":{"hours":12,"nanos":1000}}`,
		`{"dates":[{"year":2024,"month":2,"day":29},{"year":1900,"month":2,"day":28},{"year":2000,"month":2,"day":29},{"year":1969,"month":12,"day":31}],
		  "times":{"a":{"hours":1,"minutes":2,"seconds":3,"nanos":4000},"b":{}}}`,
		`{"dateTime":{"year":2024,"month":5,"day":6,"hours":7,"utcOffset":"3600s"},"interval":{"startTime":"2024-05-06T07:08:09.123456Z"},
		  "amount":{"value":"-1.2345e-7"},"where":{"latitude":45.5,"longitude":-73.25},"price":{"currencyCode":"EUR","units":"3","nanos":500000000}}`,
		`{"nothing":{},"nothings":[{},{}]}`,
	}
	for _, o := range []Options{EngineReady(), {GoogleTypes: true}, {GoogleTypes: true, EmptyPlaceholder: true}, {}} {
		c := mustCodecFor(t, o, md)
		for _, js := range msgs {
			m := calendarMsg(t, md, js)
			data, err := c.Marshal(m)
			if err != nil {
				t.Fatalf("%v: %s: %v", o, js, err)
			}
			got := dynamicpb.NewMessage(md)
			if err := c.Unmarshal(data, got); err != nil {
				t.Fatalf("%v: %s: %v", o, js, err)
			}
			if !proto.Equal(m, got) {
				t.Errorf("%v: %s read back as %v", o, js, got)
			}
			if data2, err := c.TranscodeToAvro(nil, testutil.Wire(t, m)); err != nil || !bytes.Equal(data, data2) {
				t.Errorf("%v: %s: TranscodeToAvro differs from Marshal (%v)", o, js, err)
			}
		}
	}
}

// TestGoogleTypesValues checks the Avro values: days since 1970-01-01 and
// microseconds since midnight.
func TestGoogleTypesValues(t *testing.T) {
	md := calendarFile(t).Messages().ByName("Calendar")
	c := mustCodecFor(t, Options{GoogleTypes: true}, md)
	for js, want := range map[string]int64{
		`{"date":{"year":1970,"month":1,"day":2}}`:                  1,
		`{"date":{"year":1969,"month":12,"day":31}}`:                -1,
		`{"date":{"year":2000,"month":3,"day":1}}`:                  11017,
		`{"date":{"year":1,"month":1,"day":1}}`:                     minCivilDays,
		`{"date":{"year":9999,"month":12,"day":31}}`:                maxCivilDays,
		`{"time":{"hours":1,"minutes":2,"seconds":3,"nanos":4005}}`: 3723000004,
	} {
		data, err := c.Marshal(calendarMsg(t, md, js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		r := newAvroReader(data)
		if strings.Contains(js, "time") {
			r.Pos = 1 // date: null
		}
		if b, _ := r.long(); b != 1 {
			t.Fatalf("%s: union branch %d", js, b)
		}
		if got, _ := r.long(); got != want {
			t.Errorf("%s: got %d, want %d", js, got, want)
		}
	}
}

func TestGoogleTypesRefused(t *testing.T) {
	md := calendarFile(t).Messages().ByName("Calendar")
	c := mustCodecFor(t, EngineReady(), md)
	for js, path := range map[string]string{
		`{"date":{"month":12,"day":25}}`:                  "Calendar.date",
		`{"date":{"year":2024}}`:                          "Calendar.date",
		`{"date":{"year":2023,"month":2,"day":29}}`:       "Calendar.date",
		`{"dates":[{"year":2023,"month":13,"day":1}]}`:    "Calendar.dates[0]",
		`{"time":{"hours":24}}`:                           "Calendar.time",
		`{"time":{"hours":23,"minutes":59,"seconds":60}}`: "Calendar.time",
		`{"time":{"nanos":-1}}`:                           "Calendar.time",
	} {
		_, err := c.Marshal(calendarMsg(t, md, js))
		var de *DataError
		if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &de) || de.Path != path {
			t.Errorf("%s: got %v, want ErrOutOfRange at %s", js, err, path)
		}
	}
	// What the Avro types hold but google.type does not is refused on reading.
	for _, tc := range []struct {
		field string
		value int64
	}{{"date", maxCivilDays + 1}, {"date", minCivilDays - 1}, {"time", microsPerDay}, {"time", -1}} {
		var data []byte
		if tc.field == "time" {
			data = append(data, 0)
		}
		data = appendLong(append(data, 2), tc.value)
		for range 11 - len(data) + 1 {
			data = append(data, 0)
		}
		err := c.Unmarshal(data, dynamicpb.NewMessage(md))
		if !errors.Is(err, ErrOutOfRange) {
			t.Errorf("%s %d: got %v, want ErrOutOfRange", tc.field, tc.value, err)
		}
	}
}

// TestRoundedCounted: the values rounded by the explicit lossy precisions
// are counted, and the default profile rounds nothing.
func TestRoundedCounted(t *testing.T) {
	md := calendarFile(t).Messages().ByName("Calendar")
	msgs := []string{
		`{"time":{"nanos":1500},"interval":{"startTime":"2024-05-06T07:08:09.123456789Z","endTime":"2024-05-06T07:08:09.123456Z"}}`,
		`{"times":{"a":{"nanos":1},"b":{"nanos":2000}}}`,
	}
	for _, tc := range []struct {
		o    Options
		want int64
	}{{EngineReady(), 3}, {Options{GoogleTypes: true}, 2}, {Options{Timestamps: TimestampMillis}, 2}, {Options{}, 0}} {
		_, w := writeRecords(t, md, ContainerOptions{Options: tc.o}, len(msgs), func(w *ContainerWriter, i int) error {
			return w.Write(calendarMsg(t, md, msgs[i]))
		})
		if got := w.Rounded(); got != tc.want {
			t.Errorf("%v: Rounded() = %d, want %d", tc.o, got, tc.want)
		}
	}
}

// TestEngineReadyNoEmptyRecords: no record of an EngineReady schema of any
// test type or real-world type has no fields, and messages without fields round-trip.
func TestEngineReadyNoEmptyRecords(t *testing.T) {
	mds := append(testutil.Messages(), calendarFile(t).Messages().ByName("Calendar"))
	// The real-world corpus too: Kubernetes and googleapis types hold
	// google.protobuf.Empty and messages without fields.
	for _, rt := range realworld.Types {
		md, _ := rt.Load(t, "..")
		mds = append(mds, md)
	}
	for _, md := range mds {
		s := mustSchema(t, EngineReady(), md)
		raw, _ := s.MarshalJSON()
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if x["type"] == "record" {
					if fs, _ := x["fields"].([]any); len(fs) == 0 {
						t.Errorf("%s: record %v has no fields", md.FullName(), x["name"])
					}
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
	}
	empty := calendarFile(t).Messages().ByName("Nothing")
	for _, o := range []Options{EngineReady(), {EmptyPlaceholder: true}} {
		s := mustSchema(t, o, empty)
		if got := fieldSchema(t, s, emptyPlaceholderName); got != `["null","string"]` {
			t.Errorf("%v: placeholder %s", o, got)
		}
		c := mustCodecFor(t, o, empty)
		data, err := c.Marshal(dynamicpb.NewMessage(empty))
		if err != nil || !bytes.Equal(data, []byte{0}) {
			t.Fatalf("%v: %x, %v", o, data, err)
		}
		// A writer that fills the placeholder in is read all the same.
		got := dynamicpb.NewMessage(empty)
		if err := c.Unmarshal([]byte{2, 2, 'x'}, got); err != nil || proto.Size(got) != 0 {
			t.Errorf("%v: %v, %v", o, got, err)
		}
	}
}

// TestJavaProfileStructNull: under the Java profile, a Struct's JSON null
// reads back as a null Value, which protojson formats.
func TestJavaProfileStructNull(t *testing.T) {
	st, err := structpb.NewStruct(map[string]any{"n": nil, "s": "x", "l": []any{nil, 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	_, got := mustRoundTrip(t, mustCodec(t, Options{Profile: JavaProfile}, st), st)
	if _, err := protojson.Marshal(got); err != nil {
		t.Error(err)
	}
	// A Value alone, and through the transcoder.
	v := structpb.NewNullValue()
	gv, err := protoRoundTrip(mustCodec(t, Options{Profile: JavaProfile}, v), v)
	if err != nil || !proto.Equal(v, gv) {
		t.Errorf("got %v (%v), want %v", gv, err, v)
	}
}
