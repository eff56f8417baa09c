package protofiles

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// NewFiles builds the files of a descriptor set as protodesc.NewFiles does,
// in a deterministic order: each file after the files it imports, the
// files in the order of the set, imports in declaration order. A set with
// several faults is reported by the same one, the first met in that order,
// on every run (protodesc.NewFiles walks a map). Callers bound the set
// first (CheckImports). A MessageSet (message_set_wire_format), which
// protodesc refuses, is built as the plain message that the conversion
// takes it for (plainMessageSets); files is not modified.
func NewFiles(files []*descriptorpb.FileDescriptorProto) (*protoregistry.Files, error) {
	files = plainMessageSets(files)
	byName := make(map[string]*descriptorpb.FileDescriptorProto, len(files))
	for _, fd := range files {
		if _, ok := byName[fd.GetName()]; ok {
			return nil, fmt.Errorf("file appears multiple times: %q", fd.GetName())
		}
		byName[fd.GetName()] = fd
	}
	r := &protoregistry.Files{}
	// state: absent from byName, not in the set; nil, being built or
	// built (built ones are deleted).
	var add func(fd *descriptorpb.FileDescriptorProto) error
	add = func(fd *descriptorpb.FileDescriptorProto) error {
		byName[fd.GetName()] = nil
		for _, dep := range fd.GetDependency() {
			depfd, ok := byName[dep]
			if depfd == nil {
				if ok {
					return fmt.Errorf("import cycle in file: %q", dep)
				}
				continue // built already, or not in the set: NewFile reports it
			}
			if err := add(depfd); err != nil {
				return err
			}
		}
		delete(byName, fd.GetName())
		f, err := protodesc.NewFile(fd, r)
		if err != nil {
			return err
		}
		return r.RegisterFile(f)
	}
	for _, fd := range files {
		if byName[fd.GetName()] == nil {
			continue // built as an import of an earlier file
		}
		if err := add(fd); err != nil {
			return nil, err
		}
	}
	return r, nil
}
