package protoload

import (
	"errors"
	"fmt"

	"github.com/protoavro/protoavro/internal/limits"
)

// This file bounds .proto source before it reaches the compiler
// (protocompile), whose cost grows faster than the input on deep nesting:
// an option aggregate nested 30,000 deep (120 KB) made it build a path
// string per level and run out of memory.

// MaxSourceNesting bounds the nesting of braces, brackets, parentheses and
// angle brackets in .proto source, together: messages in messages, option
// aggregates ({...} and <...> of the text format), lists, map<K, V>. It
// is protobuf's own default recursion limit for the text format.
const MaxSourceNesting = 100

// ErrSourceLimit reports .proto source beyond MaxSourceNesting or larger
// than 64 MiB (docs/limits.md).
var ErrSourceLimit = errors.New("proto source beyond the limits")

// Prescan checks .proto source (the file name for errors) against the
// limits: its size (at most 64 MiB) and its nesting (MaxSourceNesting),
// skipping comments, strings and character literals, in one pass and no
// allocation. Its error wraps ErrSourceLimit and names the file and the
// limit, and for nesting the line. Text that does not lex (an unterminated
// string) is the compiler's to report.
func Prescan(name string, src []byte) error {
	if len(src) > limits.ProtoSource {
		return fmt.Errorf("%s: %w: more than %d bytes", name, ErrSourceLimit, limits.ProtoSource)
	}
	depth, line := 0, 1
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\n':
			line++
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				i-- // the newline is counted by the loop
			} else if i+1 < len(src) && src[i+1] == '*' {
				for i += 2; i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/'); i++ {
					if src[i] == '\n' {
						line++
					}
				}
				i++
			}
		case '"', '\'':
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			if i < len(src) && src[i] == '\n' {
				line++
			}
		case '{', '[', '(', '<':
			if depth++; depth > MaxSourceNesting {
				return fmt.Errorf("%s:%d: %w: nested more than %d levels deep (braces, brackets, parentheses and angle brackets together)",
					name, line, ErrSourceLimit, MaxSourceNesting)
			}
		case '}', ']', ')', '>':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}
