package protoavrobeam

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

// TestTypePublicImportChain: a Type whose descriptors are a chain of
// 20,000 files each importing the one before publicly is refused with
// ErrType and protoload.ErrImportLimit, naming the file where the bound
// was passed, as are AnyTypes beyond the bound; the longest chain within the
// bound (1,025 files) compiles.
func TestTypePublicImportChain(t *testing.T) {
	set := func(files []*descriptorpb.FileDescriptorProto) []byte {
		b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: files})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	within := set(testutil.ImportChain(1025, true))
	for _, c := range []struct {
		typ  Type
		file string
	}{
		{Type{Message: "chain.M", Descriptors: set(testutil.ImportChain(20_000, true))}, "f1025.proto"},
		// 513 files importing one that imports 1,024 publicly.
		{Type{Message: "chain.M", Descriptors: set(testutil.ImportChain(2, true)), AnyTypes: set(testutil.ImportHub(1024, 513, true))}, "m512.proto"},
	} {
		_, err := c.typ.build()
		if !errors.Is(err, ErrType) || !errors.Is(err, protoload.ErrImportLimit) || !strings.Contains(err.Error(), `at "`+c.file+`"`) {
			t.Errorf("error %v, want ErrType and ErrImportLimit at %s", err, c.file)
		}
	}
	c, err := Type{Message: "chain.M", Descriptors: within}.build()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.md.ParentFile().Path(); got != "f1024.proto" {
		t.Errorf("message of %s, want f1024.proto", got)
	}
}
