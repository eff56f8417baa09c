package serde

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/protoavro/protoavro/protoavro"
)

// Level is a compatibility level of the registry.
type Level int

// The compatibility levels. BACKWARD: the new schema reads data of the
// previous version; FORWARD: the previous version reads data of the new one;
// FULL: both. The TRANSITIVE forms check every earlier version, not only the
// latest.
const (
	LevelNone Level = iota
	LevelBackward
	LevelBackwardTransitive
	LevelForward
	LevelForwardTransitive
	LevelFull
	LevelFullTransitive
)

var levelNames = [...]string{"NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}

// String returns the registry's name of the level, such as "FULL_TRANSITIVE".
func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ParseLevel parses a level name (case-insensitive).
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if strings.EqualFold(s, n) {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("serde: unknown compatibility level %q", s)
}

func (l Level) backward() bool {
	return l == LevelBackward || l == LevelBackwardTransitive || l == LevelFull || l == LevelFullTransitive
}
func (l Level) forward() bool {
	return l == LevelForward || l == LevelForwardTransitive || l == LevelFull || l == LevelFullTransitive
}
func (l Level) transitive() bool {
	return l == LevelBackwardTransitive || l == LevelForwardTransitive || l == LevelFullTransitive
}

// Incompatibility is one reason two schemas do not resolve.
type Incompatibility struct {
	// Version is the subject version checked against (0 in
	// CheckCompatibility, which numbers the previous schemas from 1).
	Version int
	// Direction is "new reads old" (backward) or "old reads new" (forward).
	Direction string
	// Path is the field path, such as "Person.address.zip".
	Path string
	// Detail says what does not resolve.
	Detail string
}

// String formats the incompatibility on one line.
func (i Incompatibility) String() string {
	return fmt.Sprintf("version %d, %s: %s: %s", i.Version, i.Direction, i.Path, i.Detail)
}

// Report is the result of a compatibility check.
type Report struct {
	// Subject is the subject checked ("" for CheckCompatibility).
	Subject string
	// Level is the level checked under.
	Level Level
	// Versions are the versions the new schema was checked against.
	Versions []int
	// Problems are every incompatibility found, field by field.
	Problems []Incompatibility
}

// Compatible reports whether no problem was found.
func (r *Report) Compatible() bool { return len(r.Problems) == 0 }

// Err returns nil when compatible, else an error wrapping ErrIncompatible
// that lists every problem.
func (r *Report) Err() error {
	if r.Compatible() {
		return nil
	}
	lines := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		lines[i] = "  " + p.String()
	}
	what := "schema"
	if r.Subject != "" {
		what = "schema for subject " + r.Subject
	}
	return fmt.Errorf("%w: %s is not %v compatible (%d problems):\n%s", ErrIncompatible, what, r.Level, len(r.Problems), strings.Join(lines, "\n"))
}

// Check checks the Avro schema newSchema (JSON) against the versions of
// subject under the subject's compatibility level, locally, by Avro's
// resolution rules. A subject that does not exist yet is compatible.
func (r *Registry) Check(ctx context.Context, subject, newSchema string) (*Report, error) {
	lvl, err := r.Compatibility(ctx, subject)
	if err != nil {
		return nil, err
	}
	return r.CheckAt(ctx, subject, lvl, newSchema)
}

// CheckAt is Check under the given level instead of the subject's.
func (r *Registry) CheckAt(ctx context.Context, subject string, lvl Level, newSchema string) (*Report, error) {
	vs, err := r.Versions(ctx, subject)
	if err != nil && !errors.Is(err, ErrUnknownSubject) {
		return nil, err
	}
	var prev []*protoavro.Schema
	var nums []int
	from := 0 // the versions the level compares with: all, or the last
	if !lvl.transitive() {
		from = max(len(vs)-1, 0)
	}
	for i, v := range vs {
		if v.Schema.Type != TypeAvro && v.Schema.Type != "" {
			return nil, fmt.Errorf("%w: %s version %d is %s, want AVRO", ErrWrongSchemaType, subject, v.Version, v.Schema.Type)
		}
		var n *protoavro.Schema
		if i >= from && lvl != LevelNone {
			// A version may take named types from other subjects.
			var refs [][]byte
			if err := r.references(ctx, v.Schema.References, func(_ Reference, s Schema) { refs = append(refs, []byte(s.Text)) }); err != nil {
				return nil, fmt.Errorf("%s version %d: %w", subject, v.Version, err)
			}
			if n, err = parseCompat(v.Schema.Text, refs, false); err != nil {
				return nil, fmt.Errorf("%s version %d: %w", subject, v.Version, err)
			}
		}
		prev = append(prev, n)
		nums = append(nums, v.Version)
	}
	rep, err := checkParsed(lvl, newSchema, prev)
	if err != nil {
		return nil, err
	}
	rep.Subject = subject
	for i := range rep.Problems {
		rep.Problems[i].Version = nums[rep.Problems[i].Version-1]
	}
	for i, v := range rep.Versions {
		rep.Versions[i] = nums[v-1]
	}
	return rep, nil
}

// CheckCompatibility checks the Avro schema newSchema against previous
// (oldest first, numbered from 1 in the report) under lvl, by Avro's
// resolution rules. Non-transitive levels check the last previous schema
// only. Every schema must parse (ParseSchema's bounds apply); one that does
// not is an error wrapping ErrBadSchema and protoavro.ErrInvalidSchema.
func CheckCompatibility(lvl Level, newSchema string, previous []string) (*Report, error) {
	prev := make([]*protoavro.Schema, len(previous))
	if lvl != LevelNone {
		from := 0
		if !lvl.transitive() {
			from = max(len(previous)-1, 0)
		}
		for i := from; i < len(previous); i++ {
			var err error
			if prev[i], err = parseCompat(previous[i], nil, false); err != nil {
				return nil, fmt.Errorf("previous schema %d: %w", i+1, err)
			}
		}
	}
	return checkParsed(lvl, newSchema, prev)
}

// checkParsed is CheckCompatibility of previous schemas parsed already
// (those the level compares with; the others may be nil).
func checkParsed(lvl Level, newSchema string, previous []*protoavro.Schema) (*Report, error) {
	rep := &Report{Level: lvl}
	if lvl == LevelNone || len(previous) == 0 {
		return rep, nil
	}
	nw, err := parseCompat(newSchema, nil, true)
	if err != nil {
		return nil, fmt.Errorf("new schema: %w", err)
	}
	from := len(previous) - 1
	if lvl.transitive() {
		from = 0
	}
	for i := len(previous) - 1; i >= from; i-- {
		old := previous[i]
		rep.Versions = append(rep.Versions, i+1)
		add := func(dir string, ps []protoavro.ResolutionProblem) {
			for _, p := range ps {
				rep.Problems = append(rep.Problems, Incompatibility{Version: i + 1, Direction: dir, Path: p.Path, Detail: p.Detail})
			}
		}
		if lvl.backward() {
			add("new reads old", protoavro.CheckResolution(nw, old))
		}
		if lvl.forward() {
			add("old reads new", protoavro.CheckResolution(old, nw))
		}
	}
	return rep, nil
}

// parseCompat parses schema text (a registered version with the schemas
// its references name, dependencies first) for the check with the bounded
// parser of protoavro.ParseSchema (the same limits); an error wraps
// ErrBadSchema and protoavro.ErrInvalidSchema. The new schema's field
// defaults must be
// valid (exact), since they decide the check. A registered version's
// invalid defaults are dropped, as ParseSchema drops them: some writers
// register them (avsc writes a long default of -2^63 as
// -9223372036854776000), and the check should not refuse every later
// version for it; its fields then count as having no default.
func parseCompat(text string, refs [][]byte, exact bool) (*protoavro.Schema, error) {
	var n *protoavro.Schema
	var err error
	if exact {
		n, err = protoavro.ParseSchemaExact([]byte(text))
	} else {
		n, err = protoavro.ParseSchemaWith([]byte(text), refs...)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSchema, err) // err is protoavro.ErrInvalidSchema
	}
	return n, nil
}
