package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/gcpopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/protoavro/protoavro/beam/internal/usage"
)

// defaultRunner is the runner beamx.Run takes when --runner is not given.
const defaultRunner = "prism"

// runnerName is the runner the run is on: --runner, or defaultRunner.
func runnerName() string {
	if *runners.Runner == "" {
		return defaultRunner
	}
	return *runners.Runner
}

// checkRunner refuses, as a usage error, a --runner that the Beam SDK in
// this program does not register (beam.Run would exit with status 1 when
// the pipeline is launched) and a runner without the flags that it fails
// on at once when they are missing (runnerNeeds).
func checkRunner(ctx context.Context) error {
	name := runnerName()
	if !runnerRegistered(name) {
		return usage.Errorf("--runner %s: no such runner in protoavro-beam (its runners: %s)", name, strings.Join(knownRunners(), ", "))
	}
	for _, need := range runnerNeeds[name] {
		if !need.given(ctx) {
			return usage.Errorf("--runner %s: %s", name, need.missing)
		}
	}
	return nil
}

// runnerNeed is a setting without which a runner fails before it submits
// the job.
type runnerNeed struct {
	missing string                         // what the error says
	given   func(ctx context.Context) bool // whether the setting is there
}

// needEndpoint is the job service of a portable runner, which it dials.
var needEndpoint = runnerNeed{
	missing: "no job service endpoint: give --endpoint HOST:PORT of the runner's job server",
	given:   func(context.Context) bool { return *jobopts.Endpoint != "" },
}

// needFlag is a flag of the runner's package that must not be empty.
func needFlag(name, missing string) runnerNeed {
	return runnerNeed{missing: missing, given: func(context.Context) bool {
		f := flag.Lookup(name)
		return f == nil || f.Value.String() != ""
	}}
}

// dataflowNeeds are what the Dataflow runner reads before it submits a
// job, found as it finds them (the project and region also from the
// environment).
var dataflowNeeds = []runnerNeed{
	{
		missing: "no Google Cloud project: give --project (or application default credentials that name one)",
		given:   func(ctx context.Context) bool { return gcpopts.GetProjectFromFlagOrEnvironment(ctx) != "" },
	},
	{
		missing: "no Google Cloud region: give --region (or set CLOUDSDK_COMPUTE_REGION)",
		given:   func(ctx context.Context) bool { return gcpopts.GetRegion(ctx) != "" },
	},
	needFlag("staging_location", "no staging location: give --staging_location gs://BUCKET/PATH"),
}

// runnerNeeds are, by runner name as the SDK registers it, the settings
// each runner of the SDK that this program links in fails on at once
// without (TestRunnerNeedsRegistered checks that they are registered).
// Prism without --endpoint starts its job server in this process.
var runnerNeeds = map[string][]runnerNeed{
	"universal":      {needEndpoint},
	"portable":       {needEndpoint},
	"PortableRunner": {needEndpoint},
	"flink":          {needEndpoint},
	"FlinkRunner":    {needEndpoint},
	"spark":          {needEndpoint},
	"SparkRunner":    {needEndpoint},
	"dataflow":       dataflowNeeds,
	"DataflowRunner": dataflowNeeds,
	"dot":            {needFlag("dot_file", "no --dot_file: give the FILE to write the pipeline's graph to")},
}

// sdkRunners are the names under which the Beam SDK's runner packages
// register their runners, aliases left out: those the program links in
// are named in the error on a runner it does not (knownRunners).
var sdkRunners = []string{"dataflow", "direct", "dot", "flink", "portable", "prism", "spark", "universal", "vet"}

// knownRunners are the names of sdkRunners that this program registers,
// defaultRunner first.
func knownRunners() []string {
	var names []string
	for _, name := range sdkRunners {
		switch {
		case !runnerRegistered(name):
		case name == defaultRunner:
			names = append([]string{name + " (the default)"}, names...)
		default:
			names = append(names, name)
		}
	}
	return names
}

var (
	probeMu sync.Mutex
	probed  = map[string]bool{} // names that runnerRegistered registered
)

// runnerRegistered reports whether the Beam SDK has a runner of that name
// in this program. The SDK keeps its registry to itself, and
// beam.RegisterRunner panics for a name it holds: a name it takes was not
// registered, and stays registered to a runner that fails.
func runnerRegistered(name string) (registered bool) {
	probeMu.Lock()
	defer probeMu.Unlock()
	if probed[name] {
		return false
	}
	defer func() {
		if recover() != nil {
			registered = true
		}
	}()
	beam.RegisterRunner(name, func(context.Context, *beam.Pipeline) (beam.PipelineResult, error) {
		return nil, fmt.Errorf("runner %s not registered", name)
	})
	probed[name] = true
	return false
}
