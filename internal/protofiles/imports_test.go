package protofiles

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/testutil"
)

var bounds = importWork{MaxPublicImportsFollowed, MaxImportsLookedAt}

// maxRead is the most CheckImports may read of files: each file and each
// import once, and each public import once more.
func maxRead(files []*descriptorpb.FileDescriptorProto) int {
	n := len(files)
	for _, f := range files {
		n += len(f.GetDependency()) + len(f.GetPublicDependency())
	}
	return n
}

// A chain of 20,000 files each importing the one before publicly (protodesc
// would follow 2·10⁸ public imports) is refused at the file where the
// bound is passed, having read each file and import at most twice.
func TestCheckImportsRefusesPublicImportChain(t *testing.T) {
	files := testutil.ImportChain(20_000, true)
	total, read, err := checkImports(files, bounds)
	if !errors.Is(err, ErrImportLimit) {
		t.Fatalf("error %v, want ErrImportLimit", err)
	}
	for _, want := range []string{`"f1025.proto"`, fmt.Sprintf("follow more than %d public imports", MaxPublicImportsFollowed)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if total.followed != MaxPublicImportsFollowed+1 {
		t.Errorf("followed %d, want the bound+1 (saturated)", total.followed)
	}
	if limit := maxRead(files); read > limit {
		t.Errorf("read %d files and imports, more than %d", read, limit)
	}
	if err := CheckImports(files); !errors.Is(err, ErrImportLimit) {
		t.Errorf("CheckImports: %v", err)
	}
}

// The longest chain of public imports within the bound (1,025 files,
// protodesc following 1024·1023/2 public imports) is accepted and builds;
// one more file is refused.
func TestCheckImportsAcceptsPublicImportChainWithinBound(t *testing.T) {
	files := testutil.ImportChain(1025, true)
	total, read, err := checkImports(files, bounds)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1024 * 1023 / 2); total.followed != want || total.looked != want {
		t.Errorf("work %+v, want %d followed and looked at", total, want)
	}
	if limit := maxRead(files); read > limit {
		t.Errorf("read %d files and imports, more than %d", read, limit)
	}
	reg, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: files})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.FindDescriptorByName("chain.M"); err != nil {
		t.Fatal(err)
	}
	if err := CheckImports(testutil.ImportChain(1026, true)); !errors.Is(err, ErrImportLimit) {
		t.Errorf("1,026 files: %v, want ErrImportLimit", err)
	}
}

// The work is counted as protodesc does it: the imports of every file
// reached are looked at, once per importer, public or not.
func TestCheckImportsCountsImportsLookedAt(t *testing.T) {
	for _, c := range []struct {
		name     string
		files    []*descriptorpb.FileDescriptorProto
		want     importWork
		refused  string
		fileName string
	}{
		{"plain chain of 40,000", testutil.ImportChain(40_000, false), importWork{0, 39_998}, "", ""},
		{"hub of 100 public imports, 1,000 importers", testutil.ImportHub(100, 1000, true), importWork{100_000, 100_000}, "", ""},
		{"hub of 4,096 plain imports, 4,096 importers", testutil.ImportHub(4096, 4096, false), importWork{0, 4096 * 4096}, "", ""},
		{"hub of 4,096 plain imports, 4,097 importers", testutil.ImportHub(4096, 4097, false), importWork{0, MaxImportsLookedAt + 1},
			fmt.Sprintf("look at more than %d imports", MaxImportsLookedAt), `"m4096.proto"`},
		{"hub of 1,024 public imports, 513 importers", testutil.ImportHub(1024, 513, true), importWork{MaxPublicImportsFollowed + 1, 513 * 1024},
			"public imports", `"m512.proto"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			total, read, err := checkImports(c.files, bounds)
			if c.refused == "" && err != nil {
				t.Fatal(err)
			}
			if c.refused != "" && (!errors.Is(err, ErrImportLimit) || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), c.fileName)) {
				t.Fatalf("error %v, want ErrImportLimit: %s at %s", err, c.refused, c.fileName)
			}
			if total != c.want {
				t.Errorf("work %+v, want %+v", total, c.want)
			}
			if limit := maxRead(c.files); read > limit {
				t.Errorf("read %d files and imports, more than %d", read, limit)
			}
		})
	}
}

// A lattice of public imports (each of two files per level importing both
// of the level below) makes protodesc's walk exponential: the counts
// saturate, and the set is refused having read it once.
func TestCheckImportsRefusesPublicImportLattice(t *testing.T) {
	var files []*descriptorpb.FileDescriptorProto
	for level := range 200 {
		for side := range 2 {
			f := &descriptorpb.FileDescriptorProto{Name: proto.String(fmt.Sprintf("l%d%c.proto", level, 'a'+side)), Package: proto.String("lattice")}
			if level > 0 {
				f.Dependency = []string{fmt.Sprintf("l%da.proto", level-1), fmt.Sprintf("l%db.proto", level-1)}
				f.PublicDependency = []int32{0, 1}
			}
			files = append(files, f)
		}
	}
	total, read, err := checkImports(files, bounds)
	if !errors.Is(err, ErrImportLimit) {
		t.Fatalf("error %v, want ErrImportLimit", err)
	}
	if total.followed != MaxPublicImportsFollowed+1 || total.looked < 0 {
		t.Errorf("work %+v: not saturated", total)
	}
	if limit := maxRead(files); read > limit {
		t.Errorf("read %d files and imports, more than %d", read, limit)
	}
}

// What else is wrong with a set is protodesc's to report: the check passes
// over it without failing or looping.
func TestCheckImportsLeavesOtherFaults(t *testing.T) {
	file := func(name string, deps []string, public ...int32) *descriptorpb.FileDescriptorProto {
		return &descriptorpb.FileDescriptorProto{Name: proto.String(name), Dependency: deps, PublicDependency: public}
	}
	for _, c := range []struct {
		name  string
		files []*descriptorpb.FileDescriptorProto
	}{
		{"public import cycle", []*descriptorpb.FileDescriptorProto{file("a.proto", []string{"b.proto"}, 0), file("b.proto", []string{"a.proto"}, 0)}},
		{"imports itself publicly", []*descriptorpb.FileDescriptorProto{file("a.proto", []string{"a.proto"}, 0)}},
		{"public index out of range", []*descriptorpb.FileDescriptorProto{file("a.proto", []string{"b.proto"}, 5, -1), file("b.proto", nil)}},
		{"missing import", []*descriptorpb.FileDescriptorProto{file("a.proto", []string{"nowhere.proto"}, 0)}},
		{"a name twice", []*descriptorpb.FileDescriptorProto{file("a.proto", nil), file("a.proto", []string{"a.proto"}, 0)}},
		{"no files", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := CheckImports(c.files); err != nil {
				t.Fatal(err)
			}
			if _, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: c.files}); err == nil && c.name != "no files" {
				t.Errorf("protodesc accepts it")
			}
		})
	}
}

// The file named in the error is escaped and cut.
func TestCheckImportsNamesFileSafely(t *testing.T) {
	files := testutil.ImportChain(1026, true)
	files[1025].Name = proto.String("\x1b[2J" + strings.Repeat("x", 10_000))
	err := CheckImports(files)
	if !errors.Is(err, ErrImportLimit) {
		t.Fatalf("error %v, want ErrImportLimit", err)
	}
	if msg := err.Error(); !safetext.Safe(msg) || len(msg) > 500 || !strings.Contains(msg, `\x1b[2J`) {
		t.Errorf("error %q: not escaped, cut to 200 bytes", msg)
	}
}
