package protoload

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/protoavro/protoavro/internal/limits"
	"github.com/protoavro/protoavro/internal/protofiles"
	"github.com/protoavro/protoavro/internal/usage"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// RegisterFlags defines on fs the flags that select a message type: -I
// (import paths) and --descriptor-set, both repeatable, set through
// importPaths and descriptorSets (values whose Set appends, the command's
// own list type), and -m with its alias --message, stored in message. The
// values go into an [Input].
func RegisterFlags(fs *flag.FlagSet, importPaths, descriptorSets flag.Value, message *string) {
	fs.Var(importPaths, "I", "import `DIR` for .proto files (may repeat; default \".\")")
	fs.Var(descriptorSets, "descriptor-set", "serialized FileDescriptorSet `FILE` (may repeat)")
	fs.StringVar(message, "m", "", "full `NAME` of the message")
	fs.StringVar(message, "message", "", "full `NAME` of the message (same as -m)")
}

// Input is what a command line names to load: the values of the flags of
// [RegisterFlags] and the positional .proto files.
type Input struct {
	// Protos are the .proto files, compiled with [Compile].
	Protos []string
	// ImportPaths are the -I directories; empty means ".".
	ImportPaths []string
	// DescriptorSets are the --descriptor-set files.
	DescriptorSets []string
	// Message is the -m full message name; [Resolve] requires it.
	Message string
	// SourceInfo keeps the source info of the compiled files (their
	// comments), as [Compile]'s sourceInfo.
	SourceInfo bool
	// StripSourceInfo drops the source info that the files of the
	// descriptor sets carry (protoc --include_source_info), so that no
	// loaded file has comments: protoavro derives no "doc" attributes.
	StripSourceInfo bool
}

// Resolve loads in as [Load] does and returns the descriptor of
// in.Message, found as [Types.FindMessage] finds it. Every error it returns
// is about the inputs. A program that also meets google.protobuf.Any
// values calls [Load] and [Types.FindMessage] instead, to keep the
// [Types.Resolver] of the same files.
func Resolve(ctx context.Context, in Input) (protoreflect.MessageDescriptor, error) {
	if in.Message == "" {
		return nil, errNoMessage
	}
	ts, err := Load(ctx, in)
	if err != nil {
		return nil, err
	}
	return ts.FindMessage(in.Message)
}

// Load reads the descriptor sets of in, then compiles its .proto files
// (whose imports may come from the sets), and indexes the types of all
// their files. Standard imports that a descriptor set lacks are supplied
// from the copies built into the program. Every error it returns is about
// the inputs; the commands exit with status 2 for it.
func Load(ctx context.Context, in Input) (*Types, error) {
	if len(in.Protos) == 0 && len(in.DescriptorSets) == 0 {
		return nil, usage.Errorf("no input: give .proto files or --descriptor-set")
	}
	ts := newTypes()
	var setFiles *protoregistry.Files
	for _, name := range in.DescriptorSets {
		files, err := readDescriptorSet(name, in.StripSourceInfo)
		if err != nil {
			return nil, err
		}
		setFiles = mergeFiles(setFiles, files)
	}
	if len(in.Protos) > 0 {
		paths := in.ImportPaths
		if len(paths) == 0 {
			paths = []string{"."}
		}
		files, err := Compile(ctx, in.Protos, paths, setFiles, in.SourceInfo)
		if err != nil {
			return nil, usage.Wrap(err)
		}
		for _, f := range files {
			ts.add(f)
		}
		ts.roots = files
	}
	if setFiles != nil {
		setFiles.RangeFiles(func(f protoreflect.FileDescriptor) bool {
			ts.add(f)
			return true
		})
	}
	ts.index()
	return ts, nil
}

// NewTypes builds the files of a FileDescriptorSet, such as the output of
// protoc --include_imports -o or buf build -o, and indexes their types: its
// [Types.Resolver] is the way to resolve google.protobuf.Any values from a
// descriptor set. Standard imports (google/protobuf/*.proto) that the set
// lacks are supplied from the copies built into the program; any other
// missing import is an error. set is not modified.
func NewTypes(set *descriptorpb.FileDescriptorSet) (*Types, error) {
	files, err := buildSet(set)
	if err != nil {
		return nil, err
	}
	ts := newTypes()
	files.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		ts.add(f)
		return true
	})
	ts.index()
	return ts, nil
}

// Types is the set of protobuf files loaded for one command line: the
// compiled .proto files with everything they import, and the files of the
// descriptor sets, with their messages indexed by name.
type Types struct {
	// files lists every loaded file once, compiled files and their imports
	// first, in load order.
	files []protoreflect.FileDescriptor
	// roots are the compiled .proto files named on the command line.
	roots []protoreflect.FileDescriptor
	// seen holds the paths of files, to add each once.
	seen map[string]bool
	// messages indexes every message by full name, map entries excluded.
	// The first file that defines a name wins.
	messages map[protoreflect.FullName]protoreflect.MessageDescriptor
	// others indexes the enums and services by full name, for the hint
	// when -m names one.
	others map[protoreflect.FullName]string
	// registry holds every file of files that does not clash with an
	// earlier one; types resolves its messages and extensions.
	registry *protoregistry.Files
	types    *dynamicpb.Types
}

// newTypes returns an empty Types.
func newTypes() *Types {
	return &Types{
		seen:     make(map[string]bool),
		messages: make(map[protoreflect.FullName]protoreflect.MessageDescriptor),
		others:   make(map[protoreflect.FullName]string),
	}
}

// Files returns every loaded file once: the compiled files and their
// imports first, in load order, then those of the descriptor sets.
func (ts *Types) Files() []protoreflect.FileDescriptor { return ts.files }

// Roots returns the compiled .proto files named on the command line, in
// order, without their imports.
func (ts *Types) Roots() []protoreflect.FileDescriptor { return ts.roots }

// Registry returns every loaded file in a registry, to look descriptors up
// by name or path. Where two files define the same name, the first of
// [Types.Files] is kept.
func (ts *Types) Registry() *protoregistry.Files { return ts.registry }

// Resolver returns the message and extension types of every loaded file.
// It resolves the type URLs of google.protobuf.Any values: it serves as
// protojson's MarshalOptions.Resolver and UnmarshalOptions.Resolver, and
// as protoavro.Options.AnyResolver.
func (ts *Types) Resolver() *dynamicpb.Types { return ts.types }

// index builds the registry and the resolver of the loaded files.
func (ts *Types) index() {
	ts.registry = new(protoregistry.Files)
	for _, f := range ts.files {
		_ = ts.registry.RegisterFile(f) // a clashing name keeps the first definition
	}
	ts.types = dynamicpb.NewTypes(ts.registry)
}

// add adds f and, transitively, its imports.
func (ts *Types) add(f protoreflect.FileDescriptor) {
	if ts.seen[f.Path()] {
		return
	}
	ts.seen[f.Path()] = true
	ts.files = append(ts.files, f)
	ts.addMessages(f.Messages())
	ts.addEnums(f.Enums())
	for i := range f.Services().Len() {
		ts.others[f.Services().Get(i).FullName()] = "a service"
	}
	imports := f.Imports()
	for i := range imports.Len() {
		if imp := imports.Get(i); imp.FileDescriptor != nil && !imp.IsPlaceholder() {
			ts.add(imp.FileDescriptor)
		}
	}
}

// addMessages indexes mds and their nested messages.
func (ts *Types) addMessages(mds protoreflect.MessageDescriptors) {
	for i := range mds.Len() {
		md := mds.Get(i)
		if md.IsMapEntry() || md.IsPlaceholder() {
			continue
		}
		if _, dup := ts.messages[md.FullName()]; !dup {
			ts.messages[md.FullName()] = md
		}
		ts.addMessages(md.Messages())
		ts.addEnums(md.Enums())
	}
}

// addEnums indexes eds as other kinds.
func (ts *Types) addEnums(eds protoreflect.EnumDescriptors) {
	for i := range eds.Len() {
		ts.others[eds.Get(i).FullName()] = "an enum"
	}
}

// errNoMessage is the error of an empty -m.
var errNoMessage = usage.Errorf("missing -m: name the message type, e.g. -m acme.v1.Order")

// FindMessage returns the message called name (a leading "." is allowed).
// For an empty name, a name that is an enum or a service, or one that is
// unknown, it returns an error about the input; for an unknown one, the
// error suggests up to three of the closest known names.
func (ts *Types) FindMessage(name string) (protoreflect.MessageDescriptor, error) {
	if name == "" {
		return nil, errNoMessage
	}
	full := protoreflect.FullName(strings.TrimPrefix(name, "."))
	if md, ok := ts.messages[full]; ok {
		return md, nil
	}
	if kind, ok := ts.others[full]; ok {
		return nil, usage.Errorf("-m %s is %s, not a message", name, kind)
	}
	names := make([]string, 0, len(ts.messages))
	for n := range ts.messages {
		names = append(names, string(n))
	}
	if s := suggest(string(full), names, 3); len(s) > 0 {
		quoted := make([]string, len(s))
		for i, n := range s {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		return nil, usage.Errorf("unknown message %q; did you mean %s?", name, strings.Join(quoted, ", "))
	}
	return nil, usage.Errorf("unknown message %q", name)
}

// suggest returns up to n names close to query, closest first: names whose
// last components equal query (ignoring case), then names within a small
// edit distance of it (ignoring case). Ties are broken alphabetically.
func suggest(query string, names []string, n int) []string {
	type scored struct {
		name string
		dist int
	}
	q := strings.ToLower(query)
	limit := max(2, len([]rune(q))/3)
	var cands []scored
	for _, name := range names {
		l := strings.ToLower(name)
		d := levenshtein(q, l)
		if strings.HasSuffix(l, "."+q) {
			d = 0
		}
		if d <= limit {
			cands = append(cands, scored{name, d})
		}
	}
	slices.SortFunc(cands, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, n)
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

// levenshtein returns the edit distance between a and b, counted in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// readDescriptorSet reads a serialized FileDescriptorSet and builds its
// files, without their source info if strip. Standard imports (google/protobuf/*.proto) that the set lacks, as
// in the output of protoc -o without --include_imports, are supplied from
// the copies built into the program.
func readDescriptorSet(name string, strip bool) (*protoregistry.Files, error) {
	data, err := limits.ReadFile(name, limits.DescriptorSet)
	if err != nil {
		return nil, usage.Errorf("--descriptor-set: %w", err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		return nil, usage.Errorf("--descriptor-set %s: not a serialized FileDescriptorSet: %w", name, err)
	}
	if strip {
		for _, f := range set.GetFile() {
			f.SourceCodeInfo = nil
		}
	}
	files, err := buildSet(&set)
	if err != nil {
		return nil, usage.Errorf("--descriptor-set %s: %w", name, err)
	}
	return files, nil
}

// buildSet builds the files of set, with the standard imports it lacks
// added (to a copy: set is not modified). An import that is missing
// otherwise is an error that says how to make a complete set.
func buildSet(set *descriptorpb.FileDescriptorSet) (*protoregistry.Files, error) {
	full := &descriptorpb.FileDescriptorSet{File: slices.Clone(set.GetFile())}
	addStandardImports(full)
	if err := CheckImports(full); err != nil {
		return nil, err
	}
	files, err := protofiles.NewFiles(full.File)
	if err != nil {
		if m := unresolvedRE.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%w (the set lacks %s: make it with protoc --include_imports; buf build includes imports)", err, m[1])
		}
		return nil, err
	}
	return files, nil
}

// unresolvedRE finds the import that protodesc could not resolve.
var unresolvedRE = regexp.MustCompile(`could not resolve import "([^"]+)"`)

// addStandardImports appends to set the standard files that its files
// import but it does not contain, with their own imports.
func addStandardImports(set *descriptorpb.FileDescriptorSet) {
	have := make(map[string]bool)
	for _, f := range set.GetFile() {
		have[f.GetName()] = true
	}
	std := protocompile.WithStandardImports(protocompile.ResolverFunc(func(string) (protocompile.SearchResult, error) {
		return protocompile.SearchResult{}, fs.ErrNotExist
	}))
	for i := 0; i < len(set.File); i++ { // set.File grows as standard files are added
		for _, dep := range set.File[i].GetDependency() {
			if have[dep] {
				continue
			}
			res, err := std.FindFileByPath(dep)
			if err != nil || res.Desc == nil {
				continue // protodesc.NewFiles reports it
			}
			have[dep] = true
			set.File = append(set.File, protodesc.ToFileDescriptorProto(res.Desc))
		}
	}
}

// mergeFiles adds the files of src to dst, which may be nil, and returns
// dst. A file whose path dst already holds is skipped, so the first
// descriptor set that defines a file wins.
func mergeFiles(dst, src *protoregistry.Files) *protoregistry.Files {
	if dst == nil {
		return src
	}
	src.RangeFiles(func(f protoreflect.FileDescriptor) bool {
		if _, err := dst.FindFileByPath(f.Path()); err != nil {
			_ = dst.RegisterFile(f) // a conflicting name keeps the first definition
		}
		return true
	})
	return dst
}
