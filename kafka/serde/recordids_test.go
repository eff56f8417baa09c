package serde_test

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/protoavro/protoavro/kafka/internal/kafkatest"
	"github.com/protoavro/protoavro/kafka/serde"
	"github.com/protoavro/protoavro/protoavro"
)

// TestRecordSchemaIDOutOfRange: a schema ID outside 1 to MaxSchemaID,
// which no registry holds (a record header's 0, or one above
// 2,147,483,647), is ErrUnknownID without a request, whether asked for
// directly or read from a record's header, Avro or protobuf.
func TestRecordSchemaIDOutOfRange(t *testing.T) {
	url, requests := notFound(t, "application/json", `{"error_code":404,"message":"HTTP 404 Not Found"}`)
	reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
	if err != nil {
		t.Fatal(err)
	}
	unknown := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, serde.ErrUnknownID) || errors.Is(err, serde.ErrRegistry) {
			t.Errorf("%s: %v, want ErrUnknownID (and not ErrRegistry)", what, err)
		}
	}
	for _, id := range []int{0, -1, math.MinInt32, serde.MaxSchemaID + 1, math.MaxUint32} {
		_, err := reg.SchemaByID(ctx, id)
		unknown(fmt.Sprintf("schema ID %d", id), err)
	}
	de, err := serde.NewDeserializer(reg, kafkatest.Person(t, "v2"), protoavro.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pd := serde.NewProtoDecoder(reg, protoavro.Options{})
	for _, id := range []uint32{0, serde.MaxSchemaID + 1, math.MaxUint32} {
		rec := serde.AppendHeader(nil, id)
		unknown(fmt.Sprintf("Decode, ID %d", id), de.Decode(ctx, append(rec, 0), nil))
		_, _, err := de.DecodeWire(ctx, nil, append(rec, 0))
		unknown(fmt.Sprintf("DecodeWire, ID %d", id), err)
		_, err = pd.Decode(ctx, serde.AppendProtoHeader(nil, id, []int{0}))
		unknown(fmt.Sprintf("ProtoDecoder.Decode, ID %d", id), err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests for IDs no registry holds, want none", n)
	}
	// The largest ID is asked for.
	if _, err := reg.SchemaByID(ctx, serde.MaxSchemaID); err == nil || requests.Load() != 1 {
		t.Errorf("ID %d: %v, %d requests; want it asked for", serde.MaxSchemaID, err, requests.Load())
	}
}

// TestRegistryGenericNotFound: a 404 whose error code is the generic 404
// (Confluent's registry's answer for a path it does not serve, such as one
// under a wrong base path) is ErrRegistryURL, as a 404 without a code is;
// the codes of the registry's API keep their meaning.
func TestRegistryGenericNotFound(t *testing.T) {
	for _, tc := range []struct {
		body string
		want error
	}{
		{`{"error_code":404,"message":"HTTP 404 Not Found"}`, serde.ErrRegistryURL},
		{`{"message":"Not Found"}`, serde.ErrRegistryURL},
		{`{"error_code":40403,"message":"Schema not found"}`, serde.ErrUnknownID},
		{`{"error_code":40401,"message":"Subject not found"}`, serde.ErrUnknownSubject},
		{`{"error_code":40402,"message":"Version not found"}`, serde.ErrUnknownSubject},
		{`{"error_code":40404,"message":"Subject was soft deleted"}`, serde.ErrRegistry},
	} {
		url := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, tc.body)
		})
		reg, err := serde.NewRegistry(serde.RegistryOptions{}, url)
		if err != nil {
			t.Fatal(err)
		}
		_, err = reg.SchemaByVersion(ctx, "s", 1)
		var re *serde.RegistryError
		if !errors.As(err, &re) || re.Class != tc.want {
			t.Errorf("a 404 of %s: %v, want class %v", tc.body, err, tc.want)
		}
		if tc.want == serde.ErrRegistryURL && !strings.Contains(err.Error(), "bad URL") {
			t.Errorf("a 404 of %s: %v", tc.body, err)
		}
	}
}
