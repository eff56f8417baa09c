package protoavro

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/protoavro/protoavro/internal/safetext"
)

// This file is the budget of a derivation: the planner (plan.go) enters
// each record it compiles here, which refuses descriptors beyond
// Options.Limits before the recursion goes deeper, and looks at the
// context every ctxEvery records.

// ctxEvery is how many records the planner compiles between two looks at
// its context.
const ctxEvery = 256

// enter accounts for a record of type md with nFields fields about to be
// compiled, nested in the records of p.path: it refuses it beyond the
// limits, and when the context is done. Every enter that succeeds is
// matched by a leave.
func (p *planner) enter(md protoreflect.MessageDescriptor, nFields int) error {
	p.path = append(p.path, md)
	p.records++
	p.fields += nFields
	var err error
	switch {
	case len(p.path) > p.lim.MaxDepth:
		err = p.limitErr("records nested more than %d deep (Limits.MaxDepth)", p.lim.MaxDepth)
	case p.records+len(p.enums) > p.lim.MaxTypes:
		err = p.limitErr("more than %d records and enums (Limits.MaxTypes)", p.lim.MaxTypes)
	case p.fields > p.lim.MaxFields:
		err = p.limitErr("more than %d fields (Limits.MaxFields)", p.lim.MaxFields)
	case p.ctx != nil && p.records%ctxEvery == 0:
		if cerr := p.ctx.Err(); cerr != nil {
			err = fmt.Errorf("protoavro: schema of %s: %w", p.typePath(), cerr)
		}
	}
	if err != nil {
		p.path = p.path[:len(p.path)-1]
	}
	return err
}

// leave ends the record enter began.
func (p *planner) leave() { p.path = p.path[:len(p.path)-1] }

// enterEnum accounts for an enum type about to be defined.
func (p *planner) enterEnum(ed protoreflect.EnumDescriptor) error {
	if p.records+len(p.enums)+1 > p.lim.MaxTypes {
		return p.limitErr("more than %d records and enums (Limits.MaxTypes), at enum %s",
			p.lim.MaxTypes, safetext.Escape(string(ed.FullName()), 200))
	}
	return nil
}

// limitErr is an error wrapping ErrSchemaLimit that names the limit and the
// path of record types from the top-level one.
func (p *planner) limitErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s, at %s", ErrSchemaLimit, fmt.Sprintf(format, args...), p.typePath())
}

// typePath returns the path of record types being compiled, outermost
// first, naming at most the outermost and innermost three, each cut to a
// few hundred bytes (names are untrusted).
func (p *planner) typePath() string {
	var sb strings.Builder
	n := len(p.path)
	for i := 0; i < n; i++ {
		if n > 8 && i == 3 {
			fmt.Fprintf(&sb, "(%d more) > ", n-6)
			i = n - 3
		}
		sb.WriteString(safetext.Escape(string(p.path[i].FullName()), 200))
		if i < n-1 {
			sb.WriteString(" > ")
		}
	}
	return sb.String()
}
