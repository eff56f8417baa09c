package testutil

import "google.golang.org/protobuf/encoding/protowire"

// MessageSetProto is the source of msset.proto: msset.MS is a MessageSet
// (message_set_wire_format), with extensions of msset.Ext beyond the field
// numbers of a plain message (big, 1000000000) and within them (small,
// 100), reached from the record type msset.M, as Google's internal-style
// protos and protobuf's own test protos declare them.
const MessageSetProto = `syntax = "proto2";
package msset;
// MS is a MessageSet.
message MS { option message_set_wire_format = true; extensions 4 to max; }
message Ext {
  optional int32 v = 1;
  extend MS { optional Ext big = 1000000000; optional Ext small = 100; }
}
message M { optional MS ms = 1; optional int32 x = 2; repeated MS more = 3; }
`

// MessageSetItem returns the wire encoding of a MessageSet item (a group of
// field 1) of extension typeID holding an msset.Ext with v = 7.
func MessageSetItem(typeID uint64) []byte {
	tag := protowire.AppendTag
	ext := protowire.AppendVarint(tag(nil, 1, protowire.VarintType), 7)
	b := tag(nil, 1, protowire.StartGroupType)
	b = protowire.AppendVarint(tag(b, 2, protowire.VarintType), typeID)
	b = protowire.AppendBytes(tag(b, 3, protowire.BytesType), ext)
	return tag(b, 1, protowire.EndGroupType)
}
