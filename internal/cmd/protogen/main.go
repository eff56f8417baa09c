// Command protogen regenerates the committed Go code for the test protos in
// testdata/proto (internal/testpb/avro2147pb, kitchenpb, legacypb,
// editionspb and the vendored OpenTelemetry protos' otlppb/...) without
// protoc: protos are compiled in-process with protocompile and the code is
// produced in-process by protoc-gen-go's generator. See package
// internal/testpb/testpbgen.
//
// Usage, from anywhere in the repository:
//
//	go run ./internal/cmd/protogen          # write the generated files
//	go run ./internal/cmd/protogen -check   # exit 1 if they are out of date
//
// The repository root is found by looking for the module's go.mod at or above
// the working directory, unless -root is given. `go generate ./internal/testpb`
// runs it too.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/protoavro/protoavro/internal/testpb/testpbgen"
)

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "protogen: "+format+"\n", args...) }
	check := flag.Bool("check", false, "regenerate into memory and exit 1 if any committed file differs, is missing or is stale")
	rootFlag := flag.String("root", "", "repository root (default: the nearest directory at or above the working directory whose go.mod declares "+testpbgen.Module+")")
	verbose := flag.Bool("v", false, "list the files written")
	testpbgen.ParseFlags("protogen [-check] [-root DIR] [-v]")

	start := *rootFlag
	if start == "" {
		start = "."
	}
	root, err := testpbgen.FindRoot(start)
	if err != nil {
		log("%v", err)
		os.Exit(2)
	}
	if *rootFlag != "" {
		abs, _ := filepath.Abs(*rootFlag)
		if abs != root {
			log("-root %s is not the module root (found %s)", *rootFlag, root)
			os.Exit(2)
		}
	}

	files, err := testpbgen.Generate(context.Background(), root)
	if err != nil {
		log("%v", err)
		os.Exit(1)
	}

	if *check {
		problems, err := testpbgen.Diff(root, files)
		if err != nil {
			log("%v", err)
			os.Exit(1)
		}
		if len(problems) > 0 {
			for _, p := range problems {
				log("%s", p)
			}
			log("generated code is out of date: run `go run ./internal/cmd/protogen`")
			os.Exit(1)
		}
		if *verbose {
			log("%d generated files up to date", len(files))
		}
		return
	}

	changed, err := testpbgen.Write(root, files)
	if err != nil {
		log("%v", err)
		os.Exit(1)
	}
	if *verbose {
		for _, p := range changed {
			log("wrote %s", p)
		}
		log("%d files generated, %d changed", len(files), len(changed))
	}
}
