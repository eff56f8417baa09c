package protoavro

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// recordName returns the Avro full name of the record of md at a level of
// recursion: the type's name at level 0, and "<name>_depth<level>" below,
// so that every level's record has a valid name of its own.
func (p *planner) recordName(md protoreflect.MessageDescriptor, level int) (string, error) {
	name, err := p.typeName(md)
	if err != nil || level == 0 {
		return name, err
	}
	return name + "_depth" + strconv.Itoa(level), nil
}

// typeName returns the Avro full name of a message or enum type.
//
// Default profile: the simple name is the protobuf name and the namespace is
// the protobuf package followed by the enclosing message names, joined with
// dots, so the Avro full name equals the protobuf full name.
//
// Java profile: the namespace ProtobufData derives from the Java options
// (java_package or the package, then the outer class name unless
// java_multiple_files), with enclosing messages joined by "." where Java
// writes "$", which is not valid in an Avro name.
func (p *planner) typeName(d protoreflect.Descriptor) (string, error) {
	var full string
	if p.opts.Profile == JavaProfile {
		full = javaFullName(d)
	} else {
		full = string(d.FullName())
	}
	if err := checkName(full); err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidName, d.FullName(), err)
	}
	return full, nil
}

// avroPrimitives are the names no named type may take (Avro specification, "Names").
var avroPrimitives = map[string]bool{
	"null": true, "boolean": true, "int": true, "long": true,
	"float": true, "double": true, "bytes": true, "string": true,
}

// checkName validates an Avro full name.
func checkName(full string) error {
	for part := range strings.SplitSeq(full, ".") {
		if part == "" {
			return fmt.Errorf("empty name part in %q", full)
		}
		for i, r := range part {
			letter := r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_'
			if !letter && (i == 0 || r < '0' || r > '9') {
				return fmt.Errorf("%q is not a valid Avro name part (in %q)", part, full)
			}
		}
	}
	simple := full[strings.LastIndexByte(full, '.')+1:]
	if avroPrimitives[simple] {
		return fmt.Errorf("%q is an Avro primitive type name", simple)
	}
	return nil
}

// javaFullName reproduces ProtobufData.getNamespace plus the simple name.
func javaFullName(d protoreflect.Descriptor) string {
	f := d.ParentFile()
	var parts []string
	if f != nil {
		opts, _ := f.Options().(*descriptorpb.FileOptions)
		pkg := string(f.Package())
		if opts != nil && opts.JavaPackage != nil {
			pkg = opts.GetJavaPackage()
		}
		if pkg != "" {
			parts = append(parts, pkg)
		}
		if !opts.GetJavaMultipleFiles() {
			outer := opts.GetJavaOuterClassname()
			if opts == nil || opts.JavaOuterClassname == nil {
				outer = javaCamelCase(strings.TrimSuffix(path.Base(f.Path()), path.Ext(f.Path())))
			}
			if outer != "" {
				parts = append(parts, outer)
			}
		}
	}
	var inner []string
	for p := d.Parent(); p != nil; p = p.Parent() {
		if m, ok := p.(protoreflect.MessageDescriptor); ok {
			inner = append([]string{string(m.Name())}, inner...)
		}
	}
	parts = append(parts, inner...)
	parts = append(parts, string(d.Name()))
	return strings.Join(parts, ".")
}

// javaCamelCase is ProtobufData.toCamelCase: split on "_", then each part
// capitalised and the rest lower-cased.
func javaCamelCase(s string) string {
	var sb strings.Builder
	for part := range strings.SplitSeq(s, "_") {
		if part == "" {
			continue
		}
		sb.WriteString(strings.ToUpper(part[:1]))
		sb.WriteString(strings.ToLower(part[1:]))
	}
	return sb.String()
}
