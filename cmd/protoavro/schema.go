package main

// schemaCommand is "protoavro schema": print the Avro schema of a message.
var schemaCommand = &command{
	name:    "schema",
	summary: "print the Avro schema (.avsc) of a protobuf message",
	usage:   schemaUsage,
	run:     runSchema,
}

// schemaUsage is the help text of "protoavro schema".
const schemaUsage = `Usage: protoavro schema [-I DIR]... [--descriptor-set FILE]... -m NAME
                       [MAPPING FLAGS] [--options "K=V ..."]
                       [--canonical|--fingerprint] [FILE.proto...]
       protoavro schema [type flags] [--package PKG] --out-dir DIR [FILE.proto...]

Print the Avro schema of one protobuf message as indented JSON (an .avsc
file) on standard output, or write the schemas of every message of the
files (or of a package) into a directory, one .avsc file each.

The message type is looked up in the .proto files given as arguments, which
are compiled in-process together with their imports, and in the descriptor
sets. The standard google/protobuf/*.proto imports are built in. Leading
comments become Avro "doc" attributes (default profile). Flags and files may
be given in any order.

Flags:
` + typeFlagsUsage + docsUsage + mappingFlagsUsage + schemaTreeUsage + `  -h, --help             Print this help.

Exit status is 0 on success, 1 if the schema cannot be derived, and 2 for a
bad command line or input that cannot be loaded.
`

// runSchema implements "protoavro schema".
func runSchema(args []string, std stdio) error {
	fs := newFlagSet("schema")
	var types typeFlags
	types.register(fs)
	types.registerDocs(fs)
	var mapping mappingFlags
	mapping.register(fs)
	var tree schemaTree
	tree.register(fs)
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if tree.active() {
		return tree.run(&types, positional, &mapping, std)
	}
	md, err := types.resolve(std.ctx, positional)
	if err != nil {
		return err
	}
	opts, err := mapping.options("")
	if err != nil {
		return err
	}
	s, err := opts.SchemaContext(std.ctx, md)
	if err != nil {
		return err
	}
	out, err := s.JSON()
	if err != nil {
		return err
	}
	_, err = stdout(std).Write(out)
	return err
}
