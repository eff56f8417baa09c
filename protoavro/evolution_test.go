package protoavro

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/internal/testutil/testcompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Schema evolution on read, with the two versions of
// testdata/proto/evolution/vN/person.proto: data written with one version's
// codec is read with the other's through Codec.Resolve. v1 → v2 is the
// usual direction (an old writer, a new reader); v2 → v1 (a new writer, an
// old reader) cannot resolve age and score, which v2 widened (Avro has no
// long → int or double → float), so the reverse direction uses v2 with
// those two fields kept at v1's types.

const personName protoreflect.FullName = "protoavro.test.evolution.Person"

// loadPerson compiles testdata/proto/evolution/<version>/person.proto and
// returns its Person.
func loadPerson(t testing.TB, version string) protoreflect.MessageDescriptor {
	t.Helper()
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: []string{filepath.Join("..", "testdata", "proto", "evolution", version)},
		}),
	}
	files, err := c.Compile(context.Background(), "person.proto")
	if err != nil {
		t.Fatal(err)
	}
	md := testutil.FindMessage(files[0], personName)
	if md == nil {
		t.Fatal("no Person")
	}
	return md
}

// loadPersonVariant compiles person.proto of version after replacing text
// in it, each replacement given as old, new.
func loadPersonVariant(t testing.TB, version string, replace ...string) protoreflect.MessageDescriptor {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "proto", "evolution", version, "person.proto"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for i := 0; i < len(replace); i += 2 {
		if !strings.Contains(s, replace[i]) {
			t.Fatalf("%q not in %s/person.proto", replace[i], version)
		}
		s = strings.ReplaceAll(s, replace[i], replace[i+1])
	}
	return testutil.FindMessage(testcompile.Sources(t, map[string]string{"person.proto": s}, "person.proto")[0], personName)
}

// person is a dynamic Person of md with the named fields set. Values are
// Go values: string, int32/int64, float32/float64, bool, []string, the name
// of an enum value, or a map of Address fields.
func person(t testing.TB, md protoreflect.MessageDescriptor, fields map[string]any) *dynamicpb.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	setFields(t, m, fields)
	return m
}

func setFields(t testing.TB, m protoreflect.Message, fields map[string]any) {
	t.Helper()
	for name, v := range fields {
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			t.Fatalf("%s has no field %s", m.Descriptor().FullName(), name)
		}
		switch v := v.(type) {
		case []string:
			l := m.Mutable(fd).List()
			for _, s := range v {
				l.Append(protoreflect.ValueOfString(s))
			}
		case map[string]any:
			sub := m.NewField(fd)
			setFields(t, sub.Message(), v)
			m.Set(fd, sub)
		case string:
			if fd.Kind() == protoreflect.EnumKind {
				ev := fd.Enum().Values().ByName(protoreflect.Name(v))
				if ev == nil {
					t.Fatalf("no enum value %s", v)
				}
				m.Set(fd, protoreflect.ValueOfEnum(ev.Number()))
			} else {
				m.Set(fd, protoreflect.ValueOfString(v))
			}
		default:
			m.Set(fd, protoreflect.ValueOf(v))
		}
	}
}

// evolve writes w with the writer codec and reads it with the reader codec
// resolved against the writer's schema.
func evolve(t *testing.T, writer, reader *Codec, w proto.Message) *dynamicpb.Message {
	t.Helper()
	data, err := writer.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reader.Resolve(writer.Schema())
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	got := dynamicpb.NewMessage(reader.Schema().Descriptor())
	if err := r.Unmarshal(data, got); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	// TranscodeToProto gives the same message.
	wire, err := r.TranscodeToProto(nil, data)
	if err != nil {
		t.Fatalf("TranscodeToProto: %v", err)
	}
	viaWire := dynamicpb.NewMessage(reader.Schema().Descriptor())
	if err := proto.Unmarshal(wire, viaWire); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, viaWire) {
		t.Errorf("Unmarshal and TranscodeToProto disagree:\n%v\n%v", got, viaWire)
	}
	if len(got.GetUnknown()) != 0 {
		t.Errorf("unknown fields in the result: %x", got.GetUnknown())
	}
	return got
}

func evolutionCodec(t testing.TB, o Options, md protoreflect.MessageDescriptor) *Codec {
	t.Helper()
	o.Cache = NewCache() // descriptors made at run time: keep them out of the package cache
	c := mustCodecFor(t, o, md)
	return c
}

var evolutionProfiles = []Options{{}, {Profile: JavaProfile}}

func TestEvolutionV1ToV2(t *testing.T) {
	v1, v2 := loadPerson(t, "v1"), loadPerson(t, "v2")
	for _, o := range evolutionProfiles {
		t.Run(o.Profile.String(), func(t *testing.T) {
			c1, c2 := evolutionCodec(t, o, v1), evolutionCodec(t, o, v2)
			got := evolve(t, c1, c2, person(t, v1, map[string]any{
				"name":     "Ada",
				"age":      int32(36),
				"score":    float32(0.1),
				"nickname": "countess",
				"role":     "ROLE_ADMIN",
				"address":  map[string]any{"street": "12 St James's Square", "city": "London"},
				"emails":   []string{"ada@example.com", "lovelace@example.com"},
			}))
			// Fields matched by name keep their values (int → long and
			// float → double promoted); nickname, removed in v2, is
			// skipped; phone, verified and tags, new in v2, and
			// address.postal_code stay unset.
			want := person(t, v2, map[string]any{
				"name":    "Ada",
				"age":     int64(36),
				"score":   float64(float32(0.1)),
				"role":    "ROLE_ADMIN",
				"address": map[string]any{"street": "12 St James's Square", "city": "London"},
				"emails":  []string{"ada@example.com", "lovelace@example.com"},
			})
			if !proto.Equal(got, want) {
				t.Errorf("got  %v\nwant %v", got, want)
			}
			for _, name := range []protoreflect.Name{"phone", "verified", "tags"} {
				if got.Has(v2.Fields().ByName(name)) {
					t.Errorf("%s is set", name)
				}
			}
			addr := got.Get(v2.Fields().ByName("address")).Message()
			if addr.Has(addr.Descriptor().Fields().ByName("postal_code")) {
				t.Error("address.postal_code is set")
			}
		})
	}
}

// TestEvolutionPromotionsExact checks that int → long and float → double
// keep every value exactly, to the bit, edge cases included.
func TestEvolutionPromotionsExact(t *testing.T) {
	v1, v2 := loadPerson(t, "v1"), loadPerson(t, "v2")
	ages := []int32{0, 1, -1, 63, -64, 64, math.MaxInt32, math.MinInt32}
	scores := []float32{0.1, 1.0 / 3, -2.5, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32,
		float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 16777217}
	for _, o := range evolutionProfiles {
		t.Run(o.Profile.String(), func(t *testing.T) {
			c1, c2 := evolutionCodec(t, o, v1), evolutionCodec(t, o, v2)
			ageFD, scoreFD := v2.Fields().ByName("age"), v2.Fields().ByName("score")
			for i := range max(len(ages), len(scores)) {
				age, score := ages[i%len(ages)], scores[i%len(scores)]
				got := evolve(t, c1, c2, person(t, v1, map[string]any{"age": age, "score": score}))
				if g := got.Get(ageFD).Int(); g != int64(age) {
					t.Errorf("age %d read as %d", age, g)
				}
				if g, w := math.Float64bits(got.Get(scoreFD).Float()), math.Float64bits(float64(score)); g != w {
					t.Errorf("score %v (%#x) read as %#x, want %#x", score, math.Float32bits(score), g, w)
				}
			}
		})
	}
}

func TestEvolutionV2ToV1(t *testing.T) {
	v1, v2 := loadPerson(t, "v1"), loadPerson(t, "v2")
	// v2's own schema cannot be read as v1: long → int and double → float
	// are not Avro promotions.
	for _, o := range evolutionProfiles {
		_, err := evolutionCodec(t, o, v1).Resolve(evolutionCodec(t, o, v2).Schema())
		if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "age") {
			t.Errorf("%v: Resolve(v2) with v1: %v, want ErrIncompatible naming age", o.Profile, err)
		}
	}
	// v2 with age and score at v1's types.
	v2narrow := loadPersonVariant(t, "v2", "int64 age = 2;", "int32 age = 2;", "double score = 3;", "float score = 3;")
	for _, o := range evolutionProfiles {
		t.Run(o.Profile.String(), func(t *testing.T) {
			c1, c2 := evolutionCodec(t, o, v1), evolutionCodec(t, o, v2narrow)
			for role, wantRole := range map[string]string{
				"ROLE_ADMIN": "ROLE_ADMIN",
				// Symbols new in v2 read as v1's default symbol, its first.
				"ROLE_GUEST": "ROLE_UNSPECIFIED",
				"ROLE_OWNER": "ROLE_UNSPECIFIED",
			} {
				got := evolve(t, c2, c1, person(t, v2narrow, map[string]any{
					"name":     "Grace",
					"age":      int32(85),
					"score":    float32(-1.25),
					"role":     role,
					"address":  map[string]any{"street": "1 Navy Yard", "city": "Arlington", "postal_code": "22202"},
					"emails":   []string{"grace@example.com"},
					"phone":    "+1 555 0100",
					"verified": true,
					"tags":     []string{"cobol", "navy"},
				}))
				// phone, verified, tags and address.postal_code, unknown
				// to v1, are skipped; nickname stays unset.
				want := person(t, v1, map[string]any{
					"name":    "Grace",
					"age":     int32(85),
					"score":   float32(-1.25),
					"address": map[string]any{"street": "1 Navy Yard", "city": "Arlington"},
					"emails":  []string{"grace@example.com"},
				})
				if wantRole != "ROLE_UNSPECIFIED" { // the zero value is unset in proto3
					setFields(t, want, map[string]any{"role": wantRole})
				}
				if !proto.Equal(got, want) {
					t.Errorf("role %s:\ngot  %v\nwant %v", role, got, want)
				}
			}
		})
	}
}

// TestEvolutionMatchesByName renumbers every v2 field: the reader still
// matches v1's fields by name.
func TestEvolutionMatchesByName(t *testing.T) {
	v1 := loadPerson(t, "v1")
	renumbered := loadPersonVariant(t, "v2",
		"string name = 1;", "string name = 101;",
		"int64 age = 2;", "int64 age = 102;",
		"string street = 1;", "string street = 11;",
		"string city = 2;", "string city = 1;",
		"Role role = 5;", "Role role = 2;")
	for _, o := range evolutionProfiles {
		t.Run(o.Profile.String(), func(t *testing.T) {
			got := evolve(t, evolutionCodec(t, o, v1), evolutionCodec(t, o, renumbered), person(t, v1, map[string]any{
				"name": "Ada", "age": int32(36), "role": "ROLE_USER",
				"address": map[string]any{"street": "Square", "city": "London"},
			}))
			want := person(t, renumbered, map[string]any{
				"name": "Ada", "age": int64(36), "role": "ROLE_USER",
				"address": map[string]any{"street": "Square", "city": "London"},
			})
			if !proto.Equal(got, want) {
				t.Errorf("got  %v\nwant %v", got, want)
			}
		})
	}
}

func TestEvolutionIncompatible(t *testing.T) {
	v2 := loadPerson(t, "v2")
	cases := []struct {
		name    string
		writer  protoreflect.MessageDescriptor
		mention string
	}{
		{"record of another name", testutil.FindMessage(testcompile.Sources(t, map[string]string{"other.proto": `
			syntax = "proto3";
			package protoavro.test.evolution;
			message Other { string name = 1; }`}, "other.proto")[0], "protoavro.test.evolution.Other"), "Other"},
		{"string read as long", loadPersonVariant(t, "v1", "int32 age = 2;", "string age = 2;"), "age"},
		{"bytes read as double", loadPersonVariant(t, "v1", "float score = 3;", "bytes score = 3;"), "score"},
		{"enum read as string", loadPersonVariant(t, "v1", "string name = 1;", "Role name = 1;"), "name"},
		{"array read as a single value", loadPersonVariant(t, "v1", "string name = 1;", "repeated string name = 1;"), "name"},
	}
	for _, o := range evolutionProfiles {
		reader := evolutionCodec(t, o, v2)
		for _, tc := range cases {
			t.Run(o.Profile.String()+"/"+tc.name, func(t *testing.T) {
				w := evolutionCodec(t, o, tc.writer)
				_, err := reader.Resolve(w.Schema())
				if !errors.Is(err, ErrIncompatible) {
					t.Fatalf("Resolve: %v, want ErrIncompatible", err)
				}
				if !strings.Contains(err.Error(), tc.mention) {
					t.Errorf("error %q does not mention %s", err, tc.mention)
				}
			})
		}
	}
}

// A writer union branch that cannot be resolved fails only when the data
// uses it (as in Avro Java): the optional address of a record of another
// name resolves, reads as long as it is null, and fails with a DataError
// when it is set.
func TestEvolutionIncompatibleUnionBranch(t *testing.T) {
	v2 := loadPerson(t, "v2")
	place := loadPersonVariant(t, "v1", "message Address {", "message Place {", "Address address = 6;", "Place address = 6;")
	for _, o := range evolutionProfiles {
		t.Run(o.Profile.String(), func(t *testing.T) {
			w, reader := evolutionCodec(t, o, place), evolutionCodec(t, o, v2)
			r, err := reader.Resolve(w.Schema())
			if err != nil {
				t.Fatal(err)
			}
			data, err := w.Marshal(person(t, place, map[string]any{"name": "Ada"}))
			if err != nil {
				t.Fatal(err)
			}
			got := dynamicpb.NewMessage(v2)
			if err := r.Unmarshal(data, got); err != nil {
				t.Fatal(err)
			}
			data, err = w.Marshal(person(t, place, map[string]any{"name": "Ada", "address": map[string]any{"city": "London"}}))
			if err != nil {
				t.Fatal(err)
			}
			err = r.Unmarshal(data, got)
			var de *DataError
			if !errors.Is(err, ErrIncompatible) || !errors.As(err, &de) || de.Path != "Person.address" {
				t.Errorf("Unmarshal: %v, want ErrIncompatible at Person.address", err)
			}
		})
	}
}
