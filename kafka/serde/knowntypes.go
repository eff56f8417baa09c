package serde

import (
	_ "embed"
	"sync"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// knownTypesSet is a serialized FileDescriptorSet of the files Confluent's
// serializers treat as built in and never register as schema references:
// confluent/meta.proto, confluent/type/decimal.proto and google/type/*.proto
// (google/protobuf/*.proto are protocompile's standard imports). It is
// written by kafka/js/knowntypes.js from the descriptors of
// @confluentinc/schemaregistry.
//
//go:embed knowntypes.binpb
var knownTypesSet []byte

// knownTypes returns the files of knownTypesSet by path.
var knownTypes = sync.OnceValue(func() map[string]*descriptorpb.FileDescriptorProto {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(knownTypesSet, &set); err != nil {
		panic("serde: knowntypes.binpb: " + err.Error()) // embedded at build time
	}
	m := make(map[string]*descriptorpb.FileDescriptorProto, len(set.File))
	for _, f := range set.File {
		m[f.GetName()] = f
	}
	return m
})

// knownTypesResolver finds the files of knownTypes.
var knownTypesResolver = protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
	if f, ok := knownTypes()[path]; ok {
		return protocompile.SearchResult{Proto: f}, nil
	}
	return protocompile.SearchResult{}, protoregistry.NotFound
})
