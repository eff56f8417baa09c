package avrobin

import (
	"strconv"

	"github.com/protoavro/protoavro/internal/avroschema"
	"github.com/protoavro/protoavro/internal/limits"
)

// Skipper finds the end of datums of one schema without decoding them: a
// program of one function per schema node, compiled once, that reads
// each value through a [Reader] and decides as package avrojson's
// AppendJSON does, with the same bounds on lengths, blocks, zero-size items
// and nesting. It is safe for concurrent use.
type Skipper struct {
	run skipFn
}

// skipFn skips one value at r.Pos inside depth records (-1 for the datum
// itself: see [Nested]).
type skipFn func(r *Reader, depth int) error

// NewSkipper compiles a Skipper for datums of s whose records nest at most
// maxDepth deep (0: limits.Depth), as [Nested] counts them.
func NewSkipper(s *avroschema.Node, maxDepth int) *Skipper {
	if maxDepth <= 0 {
		maxDepth = limits.Depth
	}
	c := skipCompiler{empty: RecordEmpties(s), records: map[*avroschema.Node]*skipFn{}, maxDepth: maxDepth}
	return &Skipper{run: c.compile(s)}
}

// Skip reads past one datum at r.Pos, returning an *Error on bad input.
func (k *Skipper) Skip(r *Reader) error { return k.run(r, -1) }

// RecordEmpties returns, for every record type of s, whether a value of it
// can take no bytes (avroschema.Empties), worked out once so that the map
// can be read concurrently.
func RecordEmpties(s *avroschema.Node) map[*avroschema.Node]bool {
	var e avroschema.Empties
	m := map[*avroschema.Node]bool{}
	var walk func(n *avroschema.Node)
	walk = func(n *avroschema.Node) {
		n = n.Deref()
		if _, seen := m[n]; seen {
			return
		}
		switch n.Type {
		case avroschema.Record:
			m[n] = e.CanBeEmpty(n)
			for i := range n.Fields {
				walk(n.Fields[i].Type)
			}
		case avroschema.Array:
			walk(n.Items)
		case avroschema.Map:
			walk(n.Values)
		case avroschema.Union:
			for _, b := range n.Branches {
				walk(b)
			}
		}
	}
	walk(s)
	return m
}

// EnumIndexFormat is the format of the error of an enum index out of range
// (from the index and the number of symbols).
func EnumIndexFormat(name string) string {
	return "enum " + name + " index %d out of range (%d symbols)"
}

// UnionIndexFormat is the format of the error of a union branch out of
// range (from the index and the number of branches).
const UnionIndexFormat = "union branch %d out of range (%d branches)"

// Nested checks the nesting of a record read at off inside depth others
// (-1 for the datum itself): the readers of the module read a record
// inside at most limit others, as protoavro's codecs count nesting
// (records only: the unions, arrays and maps between two records nest no
// deeper than the schema, whose JSON nests at most 256 levels). It returns
// the record's depth (0 for the datum) and whether the record is the datum
// itself, or an ErrLimit *Error.
func Nested(depth, limit, off int) (int, bool, error) {
	if depth < 0 {
		return 0, true, nil
	}
	if depth > limit {
		return depth, false, Errorf(ErrLimit, off, "more than %d nested records", limit)
	}
	return depth, false, nil
}

// Within prefixes the path of err, an *Error, with seg (see [PrefixPath]);
// other errors pass unchanged.
func Within(err error, seg string) error {
	if e, ok := err.(*Error); ok && e != nil {
		e.Elems, e.Path = PrefixPath(e.Elems, e.Path, seg)
	}
	return err
}

// skipCompiler compiles the skip functions of one schema.
type skipCompiler struct {
	empty map[*avroschema.Node]bool
	// records holds the function of each record type compiled or being
	// compiled, through which recursive types refer to themselves.
	records  map[*avroschema.Node]*skipFn
	maxDepth int
}

func (c *skipCompiler) canBeEmpty(n *avroschema.Node) bool { return c.empty[n.Deref()] }

func skipNull(*Reader, int) error { return nil }

func skipBoolean(r *Reader, _ int) error { _, err := r.Boolean(); return err }

func skipInt(r *Reader, _ int) error { _, err := r.Int(); return err }

func skipLong(r *Reader, _ int) error { _, err := r.Long(); return err }

func skipFloat(r *Reader, _ int) error { _, err := r.Fixed(4); return err }

func skipDouble(r *Reader, _ int) error { _, err := r.Fixed(8); return err }

func skipBytes(r *Reader, _ int) error { _, err := r.Bytes(); return err }

func (c *skipCompiler) compile(s *avroschema.Node) skipFn {
	s = s.Deref()
	switch s.Type {
	case avroschema.Null:
		return skipNull
	case avroschema.Boolean:
		return skipBoolean
	case avroschema.Int:
		return skipInt
	case avroschema.Long:
		return skipLong
	case avroschema.Float:
		return skipFloat
	case avroschema.Double:
		return skipDouble
	case avroschema.String, avroschema.Bytes:
		return skipBytes
	case avroschema.Fixed:
		size := s.Size
		return func(r *Reader, _ int) error { _, err := r.Fixed(size); return err }
	case avroschema.Enum:
		n, format := len(s.Symbols), EnumIndexFormat(s.Name)
		return func(r *Reader, _ int) error { _, err := r.Index(n, format); return err }
	case avroschema.Union:
		return c.union(s)
	case avroschema.Record:
		return c.record(s)
	case avroschema.Array, avroschema.Map:
		return c.block(s)
	}
	typ := s.Type
	return func(r *Reader, _ int) error { return Errorf(ErrMalformed, r.Pos, "schema type %v", typ) }
}

func (c *skipCompiler) union(s *avroschema.Node) skipFn {
	branches := make([]skipFn, len(s.Branches))
	segs := make([]string, len(s.Branches)) // as avrojson.BranchName
	for i, b := range s.Branches {
		branches[i] = c.compile(b)
		if d := b.Deref(); d.Type.Named() {
			segs[i] = "<" + d.Name + ">"
		} else {
			segs[i] = "<" + d.Type.String() + ">"
		}
	}
	return func(r *Reader, depth int) error {
		i, err := r.Index(len(branches), UnionIndexFormat)
		if err != nil {
			return err
		}
		return Within(branches[i](r, max(depth, 0)), segs[i])
	}
}

func (c *skipCompiler) record(s *avroschema.Node) skipFn {
	cell := c.records[s]
	if cell == nil {
		cell = new(skipFn)
		c.records[s] = cell
		fields := make([]skipFn, len(s.Fields))
		names := make([]string, len(s.Fields))
		for i := range s.Fields {
			fields[i] = c.compile(s.Fields[i].Type)
			names[i] = s.Fields[i].Name
		}
		empty, maxDepth := c.empty[s], c.maxDepth
		*cell = func(r *Reader, depth int) error {
			depth, top, err := Nested(depth, maxDepth, r.Pos)
			if err != nil {
				return err
			}
			if err := r.Empty.Record(empty, top, r.Pos); err != nil {
				return err
			}
			for i, f := range fields {
				if err := f(r, depth+1); err != nil {
					return Within(err, names[i])
				}
			}
			return nil
		}
	}
	// Through the cell: a recursive record's function is not complete
	// until its fields are compiled.
	return func(r *Reader, depth int) error { return (*cell)(r, depth) }
}

func (c *skipCompiler) block(s *avroschema.Node) skipFn {
	isMap := s.Type == avroschema.Map
	item := s.Items
	if isMap {
		item = s.Values
	}
	minItem := MinSize(item, c.canBeEmpty)
	if isMap {
		minItem++ // the key's length
	}
	skipItem := c.compile(item)
	return func(r *Reader, depth int) error {
		depth = max(depth, 0)
		n := 0
		for {
			count, err := r.BlockCount(minItem)
			if err != nil || count == 0 {
				return err
			}
			for range count {
				var key []byte
				if isMap {
					if key, err = r.Bytes(); err != nil {
						return Within(err, "["+strconv.Itoa(n)+"]")
					}
				}
				r.Empty.Item(minItem == 0)
				if err := skipItem(r, depth); err != nil {
					if isMap {
						return Within(err, "["+strconv.Quote(string(key))+"]")
					}
					return Within(err, "["+strconv.Itoa(n)+"]")
				}
				n++
			}
			r.Empty.Item(false)
		}
	}
}
