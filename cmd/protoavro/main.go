package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/protoavro/protoavro/internal/safetext"
	"github.com/protoavro/protoavro/internal/usage"
	"github.com/protoavro/protoavro/protoavro"
)

// main runs the command line and exits with its status. An interrupt
// (SIGINT, SIGTERM) cancels the running command, which then removes its
// unfinished output; a second interrupt kills the process.
func main() {
	// A closed pipe on standard output is then a write error (EPIPE),
	// reported in one line, rather than a silent death by SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := runContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses of the program.
const (
	exitOK    = 0 // success, or help requested
	exitData  = 1 // the input was read but could not be processed
	exitUsage = 2 // bad command line, or input files that cannot be loaded
)

// stdio holds the standard streams a subcommand reads and writes. Tests pass
// buffers; main passes the process's streams.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
	// ctx is cancelled when the command should stop early (an interrupt).
	ctx context.Context
}

// command is one subcommand of protoavro. Each subcommand lives in its own
// file and is listed in [commands].
type command struct {
	// name is the word that selects the subcommand.
	name string
	// summary is a one-line description for the top-level usage.
	summary string
	// usage is the full help text printed by "protoavro NAME -h".
	usage string
	// run executes the subcommand with the arguments after its name. It
	// returns nil on success, an error wrapping [flag.ErrHelp] when help was
	// requested, a [usage.Error] for a bad command line or unloadable input
	// (exit status 2), and any other error when processing fails (exit status 1).
	run func(args []string, std stdio) error
}

// commands lists the subcommands in the order the top-level usage shows them.
var commands = []*command{
	schemaCommand,
	encodeCommand,
	decodeCommand,
	inspectCommand,
	tojsonCommand,
	fromjsonCommand,
	getschemaCommand,
	getmetaCommand,
	countCommand,
	catCommand,
	concatCommand,
	kafkaCommand,
	versionCommand,
}

// lookupCommand returns the subcommand called name, or nil.
func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run executes the command line args (without the program name) and returns
// the process exit status. It never calls os.Exit, so tests drive it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdin, stdout, stderr)
}

// runContext is [run] with a context whose cancellation stops the command.
func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	std := stdio{in: stdin, out: stdout, err: stderr, ctx: ctx}
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage())
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		return printHelp(std, topUsage())
	case "--version", "-version":
		name = "version"
		args = args[:1]
	case "help":
		if len(args) == 1 {
			return printHelp(std, topUsage())
		}
		if c := lookupCommand(args[1]); c != nil {
			return printHelp(std, c.usage)
		}
		name = args[1]
	}
	c := lookupCommand(name)
	if c == nil {
		fmt.Fprintf(stderr, "protoavro: unknown command %q\n\n%s", name, topUsage())
		return exitUsage
	}
	var err error
	if name == "version" && args[0] != "version" && args[0] != "help" {
		err = c.run(nil, std)
	} else {
		err = c.run(args[1:], std)
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return printHelp(std, c.usage)
	}
	return printError(std, err)
}

// printHelp prints the help text that was asked for on standard output;
// a failed write is an error (exit status 1), as for any output.
func printHelp(std stdio, text string) int {
	if _, err := io.WriteString(stdout(std), text); err != nil {
		return printError(std, err)
	}
	return exitOK
}

// printError prints the error of a command on standard error and returns
// the exit status it calls for.
func printError(std stdio, err error) int {
	// A step cut short by an interrupt (loading, deriving) reports it as
	// the interrupt it is, as the conversions do.
	if std.ctx != nil && std.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = errInterrupted
	}
	fmt.Fprintf(std.err, "protoavro: %s\n", errorLine(err))
	if usage.Is(err) {
		return exitUsage
	}
	return exitData
}

// topUsage returns the usage text of the program as a whole.
func topUsage() string {
	var b strings.Builder
	b.WriteString("Usage: protoavro <command> [arguments]\n\n")
	b.WriteString("protoavro maps protobuf messages to Avro and converts protobuf records to\nand from Avro container files.\n\nCommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	b.WriteString("\nRun \"protoavro <command> -h\" for the flags of a command, \"protoavro --version\"\nfor the version.\n")
	return b.String()
}

// maxErrorLine bounds the line errorLine renders, in bytes.
const maxErrorLine = 8 << 10

// errorLine renders err as the single line printed after "protoavro: ". It
// drops the "protoavro: " prefix that library errors carry and folds line
// breaks, so that every failure prints exactly one line. Untrusted text in
// the message (file names, names and values read from files) is escaped
// (safetext.Escape: control and format characters and invalid UTF-8,
// other text as it is) and the line cut to maxErrorLine bytes, so that
// nothing in it acts on a terminal. A google.protobuf.Any of an unknown type
// gets the hint that says how to make it known.
func errorLine(err error) string {
	msg := strings.TrimPrefix(err.Error(), "protoavro: ")
	if errors.Is(err, protoavro.ErrUnknownAnyType) {
		msg += " (" + anyHint + ")"
	}
	return safetext.Escape(strings.Join(strings.Fields(msg), " "), maxErrorLine)
}
