// Package mapkeys orders the keys of a protobuf map as protojson writes
// them, for walks of a message whose errors must name the same entry on
// every run (a Go map's order changes from run to run). The nested modules
// have generated copies (go run ./internal/cmd/genshared).
package mapkeys

import (
	"cmp"
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Sorted returns the keys of m in protojson's order: false before true,
// numbers by value, strings by their bytes.
func Sorted(m protoreflect.Map) []protoreflect.MapKey {
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, compare)
	return keys
}

// compare orders two keys of one map.
func compare(a, b protoreflect.MapKey) int {
	switch x := a.Interface().(type) {
	case bool:
		y := b.Bool()
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int32, int64:
		return cmp.Compare(a.Int(), b.Int())
	case uint32, uint64:
		return cmp.Compare(a.Uint(), b.Uint())
	}
	return cmp.Compare(a.String(), b.String())
}
