package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/protoavro/protoavro/internal/usage"
)

// versionCommand is "protoavro version": the build's module version and
// VCS revision.
var versionCommand = &command{
	name:    "version",
	summary: "print the module version and VCS revision of this build",
	usage:   versionUsage,
	run:     runVersion,
}

// versionUsage is the help text of "protoavro version".
const versionUsage = `Usage: protoavro version
       protoavro --version

Print the version of this build of protoavro: the module path and
version, the VCS revision and time it was built from (with "modified"
when the work tree had changes), and the Go version, as the Go toolchain
recorded them in the binary (go install, go build).

Flags:
  -h, --help             Print this help.
`

// runVersion implements "protoavro version".
func runVersion(args []string, std stdio) error {
	fs := newFlagSet("version")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usage.Errorf("version takes no arguments, got %q", positional[0])
	}
	_, err = fmt.Fprintln(stdout(std), versionLine())
	return err
}

// versionLine describes the build, e.g. "protoavro
// github.com/protoavro/protoavro v0.1.0 (revision 0e01883c…, 2026-12-01T09:19:01Z)
// go1.26.8 linux/amd64".
func versionLine() string {
	var b strings.Builder
	b.WriteString("protoavro")
	info, ok := debug.ReadBuildInfo()
	if !ok {
		b.WriteString(" (no build information)")
	} else {
		version := info.Main.Version
		if version == "" {
			version = "(devel)"
		}
		fmt.Fprintf(&b, " %s %s", info.Main.Path, version)
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			fmt.Fprintf(&b, " (revision %s", rev)
			if t := settings["vcs.time"]; t != "" {
				fmt.Fprintf(&b, ", %s", t)
			}
			if settings["vcs.modified"] == "true" {
				b.WriteString(", modified")
			}
			b.WriteString(")")
		} else {
			b.WriteString(" (no VCS revision recorded)")
		}
	}
	fmt.Fprintf(&b, " %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
