package avroschema

// Empties says which values can take no bytes in the binary encoding: null,
// a fixed of size 0, and a record whose fields all can. Such values are
// the ones readers bound by count (their size cannot bound them), so every
// reader and writer of protoavro asks this one rule. The answer is
// memoized per record, so that asking of every node of a schema costs time
// linear in its size: a record type shared by many fields, or records
// nested 30 deep with 3 fields each, cost one visit each (unmemoized,
// 3^30). A record that holds itself without a union has no finite value;
// it counts as not empty.
//
// The zero value is ready to use. It is not safe for concurrent use.
type Empties struct {
	memo map[*Node]emptiness
}

// emptiness is the memoized state of one record.
type emptiness uint8

const (
	emptyUnknown emptiness = iota
	emptyVisiting
	emptyYes
	emptyNo
)

// CanBeEmpty reports whether a value of n can take no bytes.
func (e *Empties) CanBeEmpty(n *Node) bool {
	t := n.Deref()
	switch t.Type {
	case Null:
		return true
	case Fixed:
		return t.Size == 0
	case Record:
		if e.memo == nil {
			e.memo = map[*Node]emptiness{}
		}
		switch e.memo[t] {
		case emptyYes:
			return true
		case emptyNo, emptyVisiting:
			// A record holding itself without a union has no finite value.
			return false
		}
		e.memo[t] = emptyVisiting
		state := emptyYes
		for i := range t.Fields {
			if !e.CanBeEmpty(t.Fields[i].Type) {
				state = emptyNo
				break
			}
		}
		e.memo[t] = state
		return state == emptyYes
	}
	return false
}
