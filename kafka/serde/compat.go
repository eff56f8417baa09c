package serde

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/protoavro/protoavro/kafka/internal/safetext"
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

// maxErrProblems bounds the problems Report.Err lists; Problems holds them
// all.
const maxErrProblems = 20

// Err returns nil when compatible, else an error wrapping ErrIncompatible
// that lists the problems: the first 20, each escaped and cut to 512 bytes,
// then the number of the others.
func (r *Report) Err() error {
	if r.Compatible() {
		return nil
	}
	var sb strings.Builder
	what := "schema"
	if r.Subject != "" {
		what = "schema for subject " + safetext.Escape(r.Subject, 256)
	}
	fmt.Fprintf(&sb, "%s is not %v compatible (%d problems):", what, r.Level, len(r.Problems))
	for i, p := range r.Problems {
		if i == maxErrProblems {
			fmt.Fprintf(&sb, "\n  ... and %d more", len(r.Problems)-i)
			break
		}
		sb.WriteString("\n  ")
		sb.WriteString(safetext.Escape(p.String(), maxErrorText))
	}
	return fmt.Errorf("%w: %s", ErrIncompatible, sb.String())
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

// CheckAt is Check under the given level instead of the subject's. It
// fetches the schemas of the versions the level compares with only: every
// one at a TRANSITIVE level, the latest at the others, none at NONE.
func (r *Registry) CheckAt(ctx context.Context, subject string, lvl Level, newSchema string) (*Report, error) {
	nums, err := r.versionNumbers(ctx, subject)
	if err != nil && !errors.Is(err, ErrUnknownSubject) {
		return nil, err
	}
	from := 0 // the versions the level compares with: all, the last, or none
	switch {
	case lvl == LevelNone:
		from = len(nums)
	case !lvl.transitive():
		from = max(len(nums)-1, 0)
	}
	prev := make([]*protoavro.Schema, len(nums))
	byID := map[int]*protoavro.Schema{} // versions of one schema ID parse once
	for i := from; i < len(nums); i++ {
		v := nums[i]
		var s Schema
		var refs [][]byte
		parsed := false
		err := r.withReferences(ctx, "schema by version", fmt.Sprintf("%s/%d", subject, v), func(ctx context.Context) error {
			var err error
			s, err = r.SchemaByVersion(ctx, subject, v)
			if err != nil {
				return err
			}
			if s.Type != TypeAvro && s.Type != "" {
				return fmt.Errorf("%w: %s version %d is %s, want AVRO", ErrWrongSchemaType, safetext.Escape(subject, 256), v, safetext.Escape(string(s.Type), 64))
			}
			if n, ok := byID[s.ID]; ok && s.ID != 0 {
				prev[i], parsed = n, true
				return nil
			}
			// A version may take named types from other subjects.
			if err := r.references(ctx, s.References, func(_ Reference, s Schema) { refs = append(refs, []byte(s.Text)) }); err != nil {
				return fmt.Errorf("%s version %d: %w", safetext.Escape(subject, 256), v, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if parsed {
			continue
		}
		if prev[i], err = parseCompat(s.Text, refs, false); err != nil {
			return nil, fmt.Errorf("%s version %d: %w", safetext.Escape(subject, 256), v, err)
		}
		byID[s.ID] = prev[i]
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
	// One schema held by several versions is checked once.
	type result struct{ backward, forward []protoavro.ResolutionProblem }
	done := map[*protoavro.Schema]result{}
	for i := len(previous) - 1; i >= from; i-- {
		old := previous[i]
		rep.Versions = append(rep.Versions, i+1)
		res, ok := done[old]
		if !ok {
			if lvl.backward() {
				res.backward = protoavro.CheckResolution(nw, old)
			}
			if lvl.forward() {
				res.forward = protoavro.CheckResolution(old, nw)
			}
			done[old] = res
		}
		add := func(dir string, ps []protoavro.ResolutionProblem) {
			for _, p := range ps {
				rep.Problems = append(rep.Problems, Incompatibility{Version: i + 1, Direction: dir, Path: p.Path, Detail: p.Detail})
			}
		}
		add("new reads old", res.backward)
		add("old reads new", res.forward)
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
