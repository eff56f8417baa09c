package testutil

// EmbeddedAnyProtos returns the sources of a message with an Any field
// (ev/event.proto, whose ev.Event also has a type ev.Local it may pack) and
// of a type it packs from another file (ev/payload.proto, ev.audit.AuditLog),
// imported by neither: the files that a container must embed for a reader
// to resolve the packed types. Each call returns a new map.
func EmbeddedAnyProtos() map[string]string {
	return map[string]string{
		"ev/event.proto": `syntax = "proto3";
package ev;
import "google/protobuf/any.proto";
message Event { string id = 1; google.protobuf.Any payload = 2; }
message Local { string note = 1; }
`,
		"ev/payload.proto": `syntax = "proto3";
package ev.audit;
message AuditLog { string method = 1; int64 count = 2; }
`,
	}
}

// EmbeddedAnyJSONL are JSON Lines records of ev.Event (EmbeddedAnyProtos)
// packing ev.audit.AuditLog (from the other file), ev.Local (from the
// message's own file) and nothing, one per line.
const EmbeddedAnyJSONL = `{"id":"a","payload":{"@type":"type.googleapis.com/ev.audit.AuditLog","method":"Get","count":"3"}}
{"id":"b","payload":{"@type":"type.googleapis.com/ev.Local","note":"n"}}
{"id":"c"}
`
