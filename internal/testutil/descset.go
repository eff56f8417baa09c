package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

// WriteDescriptorSet writes the files, as given and without their imports,
// as a serialized FileDescriptorSet in a temporary directory of t and
// returns its path.
func WriteDescriptorSet(t testing.TB, files ...*descriptorpb.FileDescriptorProto) string {
	t.Helper()
	data, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: files})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "set.binpb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
