package protoavro

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/testpb/kitchenpb"
)

// TestParseOptionsPresetAppliesFirst: preset=engine is applied before every
// other key, wherever it stands, so the keys given with it override it in
// any order.
func TestParseOptionsPresetAppliesFirst(t *testing.T) {
	want := EngineReady()
	want.Timestamps, want.RecursionDepth = TimestampMillis, 2
	for _, s := range []string{
		"preset=engine timestamps=millis recursion=2",
		"timestamps=millis preset=engine recursion=2",
		"timestamps=millis recursion=2 preset=engine",
	} {
		got, err := ParseOptions(s)
		if err != nil || got != want {
			t.Errorf("ParseOptions(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if got, err := ParseOptions("preset=engine"); err != nil || got != EngineReady() {
		t.Errorf("ParseOptions(preset=engine) = %v, %v; want EngineReady()", got, err)
	}
}

// TestParseOptionsRefusesRepeatedKeys: a key given twice is an error naming
// the key, escaped, whatever the values.
func TestParseOptionsRefusesRepeatedKeys(t *testing.T) {
	for _, c := range []struct{ s, key string }{
		{"profile=java profile=default", `"profile"`},
		{"timestamps=millis uint64=decimal timestamps=millis", `"timestamps"`},
		{"preset=engine timestamps=micros preset=engine", `"preset"`},
		{"enums=default enums=error", `"enums"`},
		{"k\x1b[2J=1 k\x1b[2J=2", `"k\x1b[2J"`},
	} {
		_, err := ParseOptions(c.s)
		if !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), "option "+c.key+" given twice") || !safetext.Safe(err.Error()) {
			t.Errorf("ParseOptions(%q): %v; want ErrInvalidOptions naming %s given twice", c.s, err, c.key)
		}
	}
}

// TestParseOptionsJavaRefusesDefaultProfileOptions: with profile=java, every
// key the Java profile ignores is refused, before or after the profile and
// whatever its value; profile and enums are accepted.
func TestParseOptionsJavaRefusesDefaultProfileOptions(t *testing.T) {
	for _, kv := range []string{"timestamps=millis", "timestamps=nanos", "uint64=decimal", "uint64=long",
		"mapkeys=entries", "recursion=1", "recursion=0", "carrier=json", "dynamic=json", "empty=placeholder",
		"googletypes=logical", "preset=engine"} {
		for _, s := range []string{"profile=java " + kv, kv + " profile=java"} {
			_, err := ParseOptions(s)
			if want := `"` + kv + `" applies to the default profile only`; !errors.Is(err, ErrInvalidOptions) || !strings.Contains(err.Error(), want) {
				t.Errorf("ParseOptions(%q): %v; want ErrInvalidOptions with %q", s, err, want)
			}
		}
	}
	for _, s := range []string{"profile=java", "profile=java enums=default", "enums=default profile=java"} {
		if _, err := ParseOptions(s); err != nil {
			t.Errorf("ParseOptions(%q): %v", s, err)
		}
	}
}

// TestOptionsStringJavaReadsBack: under the Java profile, String leaves out
// the options the profile ignores, so that ParseOptions reads back every
// Java profile options String writes (a container file's metadata).
func TestOptionsStringJavaReadsBack(t *testing.T) {
	ignored := EngineReady()
	ignored.Profile = JavaProfile
	for _, c := range []struct {
		o    Options
		text string
		back Options
	}{
		{Options{Profile: JavaProfile}, "profile=java", Options{Profile: JavaProfile}},
		{ignored, "profile=java", Options{Profile: JavaProfile}},
		{Options{Profile: JavaProfile, Timestamps: TimestampMillis, UnknownEnums: UnknownEnumDefault}, "profile=java enums=default",
			Options{Profile: JavaProfile, UnknownEnums: UnknownEnumDefault}},
	} {
		if got := c.o.String(); got != c.text {
			t.Errorf("%+v.String() = %q, want %q", c.o, got, c.text)
		}
		if got, err := ParseOptions(c.o.String()); err != nil || got != c.back {
			t.Errorf("ParseOptions(%q) = %+v, %v; want %+v", c.o.String(), got, err, c.back)
		}
	}
}

// TestContainerJavaProfileWithIgnoredOptionsReadsBack: a container file
// written under the Java profile with options it ignores records options
// that its reader accepts, and reads back under the Java profile.
func TestContainerJavaProfileWithIgnoredOptionsReadsBack(t *testing.T) {
	in := &kitchenpb.Scalars{Uint64Field: 1<<64 - 1, StringField: "x"}
	o := EngineReady()
	o.Profile, o.Cache = JavaProfile, NewCache()
	data := writeContainer(t, in.ProtoReflect().Descriptor(), ContainerOptions{Options: o}, in)
	r, err := NewContainerReader(bytes.NewReader(data), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Metadata()[MetaOptions]); got != "profile=java" {
		t.Errorf("%s %q, want %q", MetaOptions, got, "profile=java")
	}
	readsBack(t, r, in)
}

// TestContainerJavaProfileReadsIgnoredOptionsInFile: a container file whose
// MetaOptions names, beside profile=java, options the Java profile ignores
// (a writer may record every field of its Options) reads under the Java
// profile, as the Options struct ignores them; ParseOptions, for options a
// user gives, refuses the same text.
func TestContainerJavaProfileReadsIgnoredOptionsInFile(t *testing.T) {
	const meta = "profile=java timestamps=nanos uint64=long mapkeys=text"
	if _, err := ParseOptions(meta); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("ParseOptions(%q): %v, want ErrInvalidOptions", meta, err)
	}
	in := &kitchenpb.Scalars{Uint64Field: 1<<64 - 1, StringField: "x"}
	data := writeContainer(t, in.ProtoReflect().Descriptor(), ContainerOptions{Options: Options{Profile: JavaProfile, Cache: NewCache()}}, in)
	// The same file with the longer MetaOptions.
	r, err := NewContainerReader(bytes.NewReader(withMetaOptions(t, data, meta)), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Codec().Schema().Options().Profile; p != JavaProfile {
		t.Fatalf("read under profile %v", p)
	}
	readsBack(t, r, in)
}

// readsBack checks that the next record of r is want.
func readsBack(t *testing.T, r *ContainerReader, want proto.Message) {
	t.Helper()
	m := r.NewMessage()
	if err := r.Read(m); err != nil {
		t.Fatal(err)
	}
	b, _ := proto.Marshal(m)
	got := want.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, got); err != nil || !proto.Equal(got, want) {
		t.Errorf("read %v, want %v (%v)", got, want, err)
	}
}
