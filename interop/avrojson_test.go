package interop

import (
	"encoding/hex"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/internal/avrojson"
	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/testutil"
)

// avroJSONSchema has every Avro type, unions of int and long, string and
// bytes, and of records in two namespaces, logical types and recursion:
// the cases where the JSON encoding of the specification can go wrong.
const avroJSONSchema = `{"type":"record","name":"All","namespace":"ns","fields":[
` + testutil.AvroPrimitiveFields + `,
 {"name":"fx","type":{"type":"fixed","name":"F2","size":2}},
 {"name":"e","type":{"type":"enum","name":"E","symbols":["RED","GREEN"]}},
 {"name":"a","type":{"type":"array","items":"double"}},
 {"name":"m","type":{"type":"map","values":"float"}},
 {"name":"u","type":["null","int","long","string","bytes",
   {"type":"record","name":"A","fields":[{"name":"x","type":"int"}]},
   {"type":"record","name":"A","namespace":"other","fields":[{"name":"y","type":"string"}]},
   "E","F2",{"type":"array","items":"E"},{"type":"map","values":"bytes"},"float","double","boolean","All"]},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"dec","type":["null",{"type":"bytes","logicalType":"decimal","precision":9,"scale":2},
   {"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":9,"scale":2}]},
 {"name":"date","type":["null",{"type":"int","logicalType":"date"}]},
 {"name":"id","type":{"type":"string","logicalType":"uuid"}}
]}`

// avroJSONDatums are JSON datums of avroJSONSchema; nonFinite marks those
// with NaN or an infinity, which Java Avro 1.8's JsonDecoder cannot read
// (it reads numbers only; its JsonEncoder writes them as strings).
var avroJSONDatums = []struct {
	name      string
	json      string
	nonFinite bool
}{
	{name: "zeros", json: `{"n":null,"b":false,"i":0,"l":0,"f":0,"d":0,"s":"","by":"","fx":"\u0000\u0000","e":"RED","a":[],"m":{},"u":null,"ts":0,"dec":null,"date":null,"id":""}`},
	{name: "negative-zeros", json: `{"n":null,"b":true,"i":0,"l":0,"f":-0.0,"d":-0.0,"s":"","by":"","fx":"\u00ff\u00ff","e":"GREEN","a":[-0.0,0],"m":{"z":-0.0},"u":{"float":-0.0},"ts":0,"dec":null,"date":null,"id":""}`},
	{name: "double-negative-zero-in-union", json: `{"n":null,"b":true,"i":0,"l":0,"f":0,"d":0,"s":"","by":"","fx":"ab","e":"GREEN","a":[],"m":{},"u":{"double":-0.0},"ts":0,"dec":null,"date":null,"id":""}`},
	{name: "extremes", json: `{"n":null,"b":true,"i":-2147483648,"l":-9223372036854775808,"f":3.4028235e38,"d":1.7976931348623157e308,"s":"x","by":"\u0000","fx":"\u0000\u00ff","e":"RED","a":[5e-324,-2.2250738585072014e-308,1e21,1e-7,0.1],"m":{"a":1.4e-45,"b":-1.17549435e-38,"c":16777216,"d":0.1,"e":1e-7},"u":{"long":9223372036854775807},"ts":-62135596800000000,"dec":{"bytes":"\u0080\u0000"},"date":{"int":-719162},"id":"00000000-0000-0000-0000-000000000000"}`},
	{name: "beyond-2^53", json: `{"n":null,"b":false,"i":2147483647,"l":9007199254740993,"f":16777216,"d":9007199254740993,"s":"","by":"","fx":"ab","e":"RED","a":[1e300],"m":{},"u":{"int":-1},"ts":253402300799999999,"dec":{"ns.D":"\u007f\u00ff\u00ff\u00ff"},"date":{"int":2932896},"id":""}`},
	{name: "strings", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"\u0000\u0001\u001f\u007f\"\\/\b\f\n\r\t é € 😀 \u2028\u2029 \ufffd","by":"","fx":"ab","e":"RED","a":[],"m":{"":0,"\u0000":1,"é😀":2,"a\"b\\c":3,"\n":4},"u":{"string":"😀"},"ts":1,"dec":null,"date":null,"id":"de305d54-75b4-431b-adb2-eb6b9e546014"}`},
	{name: "bytes", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"","by":"` + allByteValues + `","fx":"\u007f\u0080","e":"RED","a":[],"m":{},"u":{"bytes":"` + allByteValues + `"},"ts":1,"dec":null,"date":null,"id":""}`},
	{name: "union-named", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"","by":"","fx":"ab","e":"RED","a":[],"m":{},"u":{"ns.A":{"x":7}},"ts":1,"dec":null,"date":null,"id":""}`},
	{name: "union-other-namespace", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"","by":"","fx":"ab","e":"RED","a":[],"m":{},"u":{"other.A":{"y":"y"}},"ts":1,"dec":null,"date":null,"id":""}`},
	{name: "union-enum-fixed", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"","by":"","fx":"ab","e":"RED","a":[],"m":{},"u":{"array":["GREEN","RED"]},"ts":1,"dec":null,"date":null,"id":""}`},
	{name: "union-map", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"","by":"","fx":"ab","e":"RED","a":[],"m":{},"u":{"map":{"k":"\u00ff","":""}},"ts":1,"dec":null,"date":null,"id":""}`},
	{name: "recursive", json: `{"n":null,"b":false,"i":1,"l":1,"f":1,"d":1,"s":"","by":"","fx":"ab","e":"RED","a":[],"m":{},"u":{"ns.All":{"n":null,"b":true,"i":2,"l":2,"f":2.5,"d":2.5,"s":"in","by":"\u0001","fx":"cd","e":"GREEN","a":[1],"m":{"x":1},"u":{"ns.E":"GREEN"},"ts":2,"dec":null,"date":null,"id":""}},"ts":1,"dec":null,"date":null,"id":""}`},
	{name: "non-finite", nonFinite: true, json: `{"n":null,"b":false,"i":1,"l":1,"f":"NaN","d":"-Infinity","s":"","by":"","fx":"ab","e":"RED","a":["NaN","Infinity"],"m":{"i":"-Infinity"},"u":{"double":"NaN"},"ts":1,"dec":null,"date":null,"id":""}`},
}

// allByteValues is the JSON string of the bytes 0-255.
var allByteValues = func() string {
	var b strings.Builder
	for i := range 256 {
		fmt.Fprintf(&b, `\u%04x`, i)
	}
	return b.String()
}()

// TestJavaAvroJSON compares internal/avrojson, the JSON encoding of
// protoavro's tojson and fromjson, with Java Avro's JsonEncoder and
// JsonDecoder, which avro-tools tojson and fromjson use: every datum must
// mean the same after a trip through either side. Java's JSON read by
// protoavro, and protoavro's JSON read by Java, must both give the datum
// again (compared as protoavro prints it, with map entries in any order).
func TestJavaAvroJSON(t *testing.T) {
	t.Parallel()
	j := needBuilt(t, javaTools(), javaReason)
	schema, err := avroschema.Parse([]byte(avroJSONSchema))
	if err != nil {
		t.Fatal(err)
	}
	conv := avrojson.Limits{}.Compile(schema)
	dir := t.TempDir()
	schemaFile := dir + "/schema.avsc"
	if err := os.WriteFile(schemaFile, []byte(avroJSONSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	// ours is the datum as protoavro prints it, by name.
	ours := map[string][]byte{}
	nonFinite := 0
	var bins, texts strings.Builder
	for _, d := range avroJSONDatums {
		bin, _, err := conv.AppendDatum(nil, []byte(d.json))
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		js, _, err := conv.AppendJSON(nil, bin)
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		ours[d.name] = js
		fmt.Fprintf(&bins, "%s %x\n", d.name, bin)
		if d.nonFinite {
			nonFinite++
		} else {
			fmt.Fprintf(&texts, "%s %s\n", d.name, js)
		}
	}
	binFile, textFile := dir+"/datums.txt", dir+"/json.txt"
	if err := os.WriteFile(binFile, []byte(bins.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(textFile, []byte(texts.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct{ Name, JSON, Hex, Error string }
	// same reports whether the binary datum bin (from Java) prints as
	// protoavro prints the datum of name.
	same := func(t *testing.T, name string, bin []byte) {
		t.Helper()
		js, n, err := conv.AppendJSON(nil, bin)
		if err != nil || n != len(bin) {
			t.Fatalf("%x: %d of %d bytes, %v", bin, n, len(bin), err)
		}
		if got, want := testutil.JSONValue(t, js), testutil.JSONValue(t, ours[name]); !reflect.DeepEqual(got, want) {
			t.Errorf("\n got %s\nwant %s", js, ours[name])
		}
	}
	for _, r := range jsonLines[result](t, j.run(t, "tojson", schemaFile, binFile), "Java tojson") {
		t.Run("Java tojson/"+r.Name, func(t *testing.T) {
			if r.Error != "" {
				t.Fatal(r.Error)
			}
			// protoavro fromjson reads what avro-tools tojson writes.
			bin, _, err := conv.AppendDatum(nil, []byte(r.JSON))
			if err != nil {
				t.Fatalf("%s: %v", r.JSON, err)
			}
			same(t, r.Name, bin)
		})
	}
	for _, r := range jsonLines[result](t, j.run(t, "fromjson", schemaFile, textFile), "Java fromjson") {
		t.Run("Java fromjson/"+r.Name, func(t *testing.T) {
			// avro-tools fromjson reads what protoavro tojson writes.
			if r.Error != "" {
				t.Fatalf("%s: %s", ours[r.Name], r.Error)
			}
			bin, err := hex.DecodeString(r.Hex)
			if err != nil {
				t.Fatal(err)
			}
			same(t, r.Name, bin)
		})
	}
	summary(t, "Java Avro %s JsonEncoder and JsonDecoder agree with protoavro's tojson and fromjson on %d datums (%d with NaN or infinities, which its JsonDecoder cannot read)",
		j.version, len(avroJSONDatums), nonFinite)
}
