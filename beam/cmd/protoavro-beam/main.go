// Command protoavro-beam converts protobuf files to sharded Avro container
// files on Apache Beam: on the prism runner in this process by default, or
// on Dataflow, Flink or Spark with the standard Beam flags.
//
// Usage:
//
//	protoavro-beam --input GLOB --output PREFIX [--format delimited|size32|jsonl]
//	    [--shards N] [--codec null|deflate|snappy|zstd] [--profile default|java]
//	    [-I DIR]... [--descriptor-set FILE]... -m FULL.NAME [FILE.proto...]
//	    [--prism_listen_all] [Beam flags: --runner, --endpoint, --environment_type, --project, ...]
//
// It reads the files matching --input (length-delimited protobuf; messages
// after 4-byte big-endian sizes, as the OpenTelemetry Collector's file
// exporter writes them, with --format size32; or JSON Lines of protojson
// objects with --format jsonl), converts every record to Avro and writes
// files PREFIX-SSSSS-of-NNNNN.avro (one per bundle, or --shards N, into
// which the bundles' files are merged whole: on prism, which often makes
// one bundle, the first shard then holds every record), each a complete
// container file with the schema, the message type and its descriptors in
// its header. The message type comes from .proto files
// compiled in-process (-I import paths, standard imports built in) or from
// a serialized FileDescriptorSet (protoc -o, buf build -o). When the
// message may hold a google.protobuf.Any, every loaded file (the .proto
// files and descriptor sets given, with their imports) is embedded in the
// headers too, so that protoavro decode resolves the packed types without
// them. Without --format, a file that starts with two zero bytes is
// refused: that is how a 4-byte size starts.
//
// Example, from the repository root (prism, in process):
//
//	cd beam && go run ./cmd/protoavro-beam -I ../testdata/proto -m protoavro.avro2147.Foo \
//	    --input '../testdata/avro2147.delimited' --output /tmp/foo --shards 2 avro2147.proto
//
// An interrupt (SIGINT, SIGTERM) cancels the job, stops the writes of the
// workers in this process, removes the temporary shard files and any final
// shard the run wrote (the final shards of an earlier run are kept unless
// the run replaced one of them), and exits with status 1. A second
// interrupt kills the process at once, leaving behind what the cleanup had
// not removed yet. A failed pipeline removes the same files. A successful
// run removes the final shards of an earlier run of the same output with
// another count (PREFIX-SSSSS-of-MMMMM.avro, MMMMM not its own), and says
// which. --async is refused while the job runs in this process (prism in
// process, the direct runner, or loopback workers), and so are a --runner
// that the program does not register and a runner without the flags it
// fails on at once without (--endpoint for flink, spark and universal;
// the project, region and --staging_location for dataflow).
//
// Exit status: 0 success, 1 a failed or interrupted pipeline, 2 a usage
// error.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	jobpb "github.com/apache/beam/sdks/v2/go/pkg/beam/model/jobmanagement_v1"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	protoavrobeam "github.com/protoavro/protoavro/beam"
	"github.com/protoavro/protoavro/beam/internal/safetext"
	"github.com/protoavro/protoavro/beam/internal/usage"
	"github.com/protoavro/protoavro/beam/internal/worker"
	"github.com/protoavro/protoavro/protoavro"
	"github.com/protoavro/protoavro/protoavro/protoload"
)

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

var (
	input     = flag.String("input", "", "`GLOB` of the input files, uncompressed (any Beam filesystem: a local path, gs://...)")
	output    = flag.String("output", "", "`PREFIX` of the output files: PREFIX-SSSSS-of-NNNNN.avro")
	format    = flag.String("format", "", "input `FORMAT`: delimited (length-delimited protobuf), size32 (each message after its size as 4 bytes, big-endian: the OpenTelemetry Collector's file exporter) or jsonl (protojson lines); without it delimited, and a file that starts with two zero bytes (a 4-byte size) is refused")
	shards    = flag.Int("shards", 0, "number of output files, at most 99999, each made of whole bundle files of the writing stage: on prism, which often makes one bundle, all the records then go to the first shard and the others are empty (see docs/beam.md); 0: one per bundle of the writing stage, as many as the runner makes")
	codec     = flag.String("codec", "null", "block codec: null, deflate, snappy or zstd")
	profile   = flag.String("profile", "default", "mapping profile: default or java")
	message   = new(string)
	listenAll = flag.Bool("prism_listen_all", false, "leave prism's job server open to every address (it has no authentication: any host that reaches it can submit jobs); by default it accepts connections from this machine only")
	cpuprof   = flag.String("cpuprofile", "", "write a CPU profile of this process (prism and the loopback worker run in it) to `FILE`")
	imports   stringList
	descSets  stringList
	protoArgs []string // the positional arguments: .proto files
)

func init() {
	protoload.RegisterFlags(flag.CommandLine, &imports, &descSets, message)
	flag.Usage = printUsage
}

// synopsis heads the help.
const synopsis = `Usage: protoavro-beam --input GLOB --output PREFIX [--format delimited|size32|jsonl]
    [--shards N] [--codec null|deflate|snappy|zstd] [--profile default|java]
    [-I DIR]... [--descriptor-set FILE]... -m FULL.NAME [FILE.proto...]
    [--prism_listen_all] [Beam flags: --runner, --endpoint, --environment_type, --project, ...]

Convert protobuf files (length-delimited, 4-byte sizes with --format size32,
or JSON Lines with --format jsonl) to sharded Avro container files
PREFIX-SSSSS-of-NNNNN.avro on Apache Beam: on the prism runner in this
process by default, or on the runner --runner names. When the message may
hold a google.protobuf.Any, the loaded .proto files and descriptor sets are
embedded in each file, so that "protoavro decode" resolves the packed types
without them. The shards of an earlier run into PREFIX with another count N
are removed once the run's are in place. Exit status: 0 success, 1 a failed
or interrupted pipeline, 2 a usage error.
`

// printUsage prints the help: the synopsis, the command's own flags, then
// the flags of the Beam SDK, which registers its flags on the same set.
func printUsage() {
	own, sdk := flag.NewFlagSet("", flag.ContinueOnError), flag.NewFlagSet("", flag.ContinueOnError)
	flag.VisitAll(func(f *flag.Flag) {
		to := sdk
		if ownFlags[f.Name] {
			to = own
		}
		to.Var(f.Value, f.Name, f.Usage)
	})
	w := flag.CommandLine.Output()
	fmt.Fprint(w, synopsis)
	fmt.Fprintln(w, "\nFlags:")
	usage.PrintFlags(w, own)
	fmt.Fprintln(w, "\nFlags of the Beam SDK (for the runners; see Beam's documentation):")
	usage.PrintFlags(w, sdk)
}

// ownFlags are the flags of the command, as opposed to the Beam SDK's.
var ownFlags = map[string]bool{
	"input": true, "output": true, "format": true, "shards": true, "codec": true, "profile": true,
	"prism_listen_all": true, "cpuprofile": true, "I": true, "descriptor-set": true, "m": true, "message": true,
}

// main runs the command and exits with its status. The first interrupt
// cancels the context of the run, which then cancels the job and removes
// its unfinished output; the handler is then removed, and interruptNotice
// printed, so that a second interrupt kills the process.
func main() {
	// Flags may follow the .proto files, as in protoavro encode.
	var err error
	if protoArgs, err = usage.ParseArgs(flag.CommandLine, os.Args[1:]); err != nil {
		os.Exit(2) // flag.CommandLine exits by itself, having said why
	}
	beam.Init()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	finished, noticed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(noticed)
		select {
		case <-ctx.Done():
			stop()
			fmt.Fprintln(os.Stderr, interruptNotice)
		case <-finished:
		}
	}()
	err = run(ctx)
	close(finished)
	<-noticed                       // the notice, if any, comes before the result
	interrupted := ctx.Err() != nil // before stop, which cancels ctx too
	stop()
	if err != nil {
		if interrupted && !errors.Is(err, errInterrupted) {
			// Interrupted before the pipeline ran (loading the types).
			err = fmt.Errorf("%w: %w", errInterrupted, err)
		}
		fmt.Fprintln(os.Stderr, "protoavro-beam:", errorText(err))
		if usage.Is(err) && !errors.Is(err, errInterrupted) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// The bounds of an error as the command prints it (errorText).
const (
	maxErrorLine  = 4096
	maxErrorLines = 64
)

// errorText is err as the command prints it. A pipeline's error holds the
// text of its workers' errors, which may quote its input: each line is
// escaped (safetext.Escape: control and format characters and invalid
// UTF-8 shown as Go escapes; tabs, which indent Beam's "caused by", kept)
// and cut to about maxErrorLine bytes, and of more than maxErrorLines lines
// the first quarter and the last ones are kept, the last being the cause.
func errorText(err error) string {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) > maxErrorLines {
		head, tail := maxErrorLines/4, maxErrorLines-maxErrorLines/4-1
		cut := fmt.Sprintf("… (%d lines)", len(lines)-head-tail)
		lines = slices.Concat(lines[:head], []string{cut}, lines[len(lines)-tail:])
	}
	for i, line := range lines {
		var sb strings.Builder
		for j, f := range strings.Split(line, "\t") {
			if j > 0 {
				if sb.Len() >= maxErrorLine {
					sb.WriteString(" …")
					break
				}
				sb.WriteByte('\t')
			}
			sb.WriteString(safetext.Escape(f, max(maxErrorLine-sb.Len(), 1)))
		}
		lines[i] = sb.String()
	}
	return strings.Join(lines, "\n")
}

// interruptNotice is printed on the first interrupt, once the signal
// handler is removed: from then on, an interrupt kills the process.
const interruptNotice = "protoavro-beam: interrupt: stopping the run and removing its unfinished output; interrupt again to kill the process at once, leaving its files behind"

// errInterrupted is the error of a run stopped by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

func run(ctx context.Context) error {
	if *input == "" || *output == "" {
		return usage.Errorf("--input and --output are required")
	}
	if *shards < 0 {
		return usage.Errorf("--shards %d: want 0 (as the runner makes bundles) or more", *shards)
	}
	if *shards > protoavrobeam.MaxShards {
		return usage.Errorf("--shards %d: at most %d (shard names number them with five digits)", *shards, protoavrobeam.MaxShards)
	}
	if err := checkRunner(ctx); err != nil {
		return err
	}
	if *jobopts.Async && jobInProcess() {
		return usage.Errorf("--async: the job would run in this process (%s), which would end it on exiting at once; leave --async out, or use a runner with a job service and workers of its own (--endpoint, --environment_type other than loopback)", inProcessWhy())
	}
	if err := checkInput(ctx, *input); err != nil {
		return err
	}
	if err := checkPrefix(*output); err != nil {
		return err
	}
	comp, err := protoavro.ParseCompression(*codec)
	if err != nil {
		return usage.Wrap(err)
	}
	prof, err := protoavro.ParseProfile(*profile)
	if err != nil {
		return usage.Wrap(err)
	}
	in := protoload.Input{
		Protos:         protoArgs,
		ImportPaths:    imports,
		DescriptorSets: descSets,
		Message:        *message,
	}
	if in.Message == "" {
		_, err := new(protoload.Types).FindMessage("") // before any file is read
		return usage.Wrap(err)
	}
	types, err := protoload.Load(ctx, in)
	if err != nil {
		return usage.Wrap(err)
	}
	md, err := types.FindMessage(in.Message)
	if err != nil {
		return usage.Wrap(err)
	}
	t, err := protoavrobeam.TypeOf(md, protoavro.Options{Profile: prof})
	if err != nil {
		return usage.Wrap(err)
	}
	// The Any values of the records resolve to every loaded type.
	if t, err = t.WithAnyTypes(types.Files()...); err != nil {
		return err
	}
	// What the workers would fail with or warn about, said before the
	// pipeline runs: the shards leave the loaded files out when they would
	// make the header too large for readers (as protoavro encode does).
	warnings, err := t.Check()
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "protoavro-beam: warning:", w)
	}
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			return usage.Wrap(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	p, s := beam.NewPipelineWithRoot()
	if _, err := protoavrobeam.Convert(s, t, protoavrobeam.Format(*format), *input, *output,
		protoavrobeam.WriteOptions{Shards: *shards, Compression: comp}); err != nil {
		return usage.Wrap(err)
	}
	snap, err := protoavrobeam.SnapshotOutput(ctx, *output, ".avro")
	if err != nil {
		return fmt.Errorf("--output %s: %w", *output, err)
	}
	// Beam's loopback mode leaves a file in the temporary directory on
	// every run (runnerlib.Execute's beamloopbackworker-*): the run gets a
	// temporary directory of its own, removed at the end.
	tmp, err := os.MkdirTemp("", "protoavro-beam-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	defer os.Setenv("TMPDIR", os.Getenv("TMPDIR"))
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return err
	}
	// A name of its own, to find the job on the job service and cancel it.
	if *jobopts.JobName == "" {
		*jobopts.JobName = "protoavro-beam-" + randomHex()
	}
	if err := startPrism(); err != nil {
		return err
	}
	// The run does not get ctx: cancelling it would make beamx.Run return
	// while the job still runs, and stop the loopback workers under it
	// (prism then panics starting one). An interrupt cancels the job on its
	// job service instead, and the run returns when the job has ended.
	if ctx.Err() != nil {
		return errInterrupted // before anything was written
	}
	runCtx, cancelRun := context.WithCancel(context.Background())
	defer cancelRun()
	ran := make(chan error, 1)
	go func() { ran <- beamx.Run(runCtx, p) }()
	var runErr error
	interrupted := false
	select {
	case runErr = <-ran:
		if runErr == nil {
			reportGone(ctx, snap)
			return nil
		}
		runErr = fmt.Errorf("pipeline failed: %w", runErr)
	case <-ctx.Done():
		interrupted = true
		runErr = errInterrupted
	}
	// Stop the job, stop the writes of this process's workers, then remove
	// what the run left. A second interrupt kills the process; the timeout
	// bounds a job service that does not answer.
	actx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	var errs []error
	state := ""
	if interrupted {
		waitForWorker(actx, ran)
		if state, err = cancelJob(actx, *jobopts.JobName, ran); err != nil {
			errs = append(errs, err)
		}
	}
	if err := protoavrobeam.StopWrites(actx); err != nil {
		errs = append(errs, err)
	}
	removed, err := snap.Discard(actx)
	if err != nil {
		errs = append(errs, fmt.Errorf("removing the unfinished output: %w", err))
	}
	if interrupted && len(errs) == 0 {
		switch state {
		case "":
			return fmt.Errorf("%w: the run stopped and its unfinished output was removed (%d files)", runErr, len(removed))
		case jobpb.JobState_CANCELLED.String():
			return fmt.Errorf("%w: the job was cancelled (job service state %s) and its unfinished output removed (%d files)", runErr, state, len(removed))
		}
		return fmt.Errorf("%w: the job ended before it could be cancelled (job service state %s); its unfinished output was removed (%d files)", runErr, state, len(removed))
	}
	return errors.Join(append([]error{runErr}, errs...)...)
}

// jobInProcess reports whether the job runs, in part, in this process:
// on prism's job server started here (startPrism), on the direct runner, or
// with loopback workers.
func jobInProcess() bool { return inProcessWhy() != "" }

// inProcessWhy says what runs the job in this process, or "".
func inProcessWhy() string {
	switch {
	case prismInProcess():
		return "the prism runner, in process: no --endpoint"
	case *runners.Runner == "direct":
		return "the direct runner"
	case strings.EqualFold(*jobopts.EnvironmentType, "loopback"):
		return "--environment_type loopback: the workers are this process"
	}
	return ""
}

// reportGone prints the final shards of an earlier run that the run's
// finalization removed (those of another shard count).
func reportGone(ctx context.Context, snap *protoavrobeam.OutputSnapshot) {
	gone, err := snap.Gone(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "protoavro-beam: warning: listing the shards of an earlier run:", errorText(err))
		return
	}
	if len(gone) == 0 {
		return
	}
	names := make([]string, 0, 6)
	for _, name := range gone[:min(len(gone), 5)] {
		names = append(names, safetext.Quote(name, 512))
	}
	if len(gone) > 5 {
		names = append(names, fmt.Sprintf("… (%d more)", len(gone)-5))
	}
	fmt.Fprintf(os.Stderr, "protoavro-beam: removed %d shards of an earlier run with another shard count: %s\n", len(gone), strings.Join(names, ", "))
}

// waitForWorker waits, on the loopback environment, until this process
// runs a worker of the job (see beam/internal/worker: prism panics when the
// job is cancelled while it starts one), or the run ends, or workerWait
// passes. Elsewhere the workers are not in this process, and it returns at
// once.
func waitForWorker(ctx context.Context, ran chan error) {
	if !strings.EqualFold(*jobopts.EnvironmentType, "loopback") {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, workerWait)
	defer cancel()
	select {
	case <-worker.Started():
	case err := <-ran:
		ran <- err // for cancelJob: ran holds one result and is ours
	case <-ctx.Done():
	}
}

// workerWait bounds the wait for the job's worker before its cancellation,
// within abortTimeout.
const workerWait = 10 * time.Second

// abortTimeout bounds the cancellation of a job and the removal of its
// output after an interrupt or a failure.
const abortTimeout = 30 * time.Second

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startPrism starts prism's job server in this process for the prism
// runner without --endpoint, as the runner itself would, but on a port
// known before the run, so that an interrupt can cancel the job there
// (the runner keeps the address it picks to itself until the run).
//
// The SDK opens the server's listener on every address (":PORT"; no
// exported API takes an address or a listener); unless --prism_listen_all,
// the command binds that socket to the loopback interface before any job
// is submitted (restrictToLoopback), so that only this machine reaches it.
// The server also carries the workers' Fn API endpoints; the loopback
// worker pool listens on 127.0.0.1 by itself.
func startPrism() error {
	if !prismInProcess() {
		return nil
	}
	// prism listens on the port it is given (it cannot report one it
	// picked itself), so a free port is picked first and released: another
	// process may take it in between, and then another port is tried.
	var port int
	var err error
	for range prismAttempts {
		if port, err = freePort(); err != nil {
			return fmt.Errorf("prism job server: %w", err)
		}
		if err = createJobServer(port); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("prism job server on port %d (after %d attempts): %w", port, prismAttempts, err)
	}
	if *listenAll {
		fmt.Fprintf(os.Stderr, prismWarning+"\n", port)
	} else if err := restrictToLoopback(port); err != nil {
		return fmt.Errorf("prism job server: %w", err)
	}
	*jobopts.Endpoint = fmt.Sprintf("localhost:%d", port)
	if *jobopts.EnvironmentType == "" {
		*jobopts.EnvironmentType = "loopback"
	}
	return nil
}

// prismInProcess reports whether the run is on the prism runner without
// --endpoint: on a prism job server that startPrism starts in this process.
func prismInProcess() bool {
	r := *runners.Runner
	return (r == "" || r == "prism" || r == "PrismRunner") && *jobopts.Endpoint == ""
}

// prismWarning is printed when prism starts with --prism_listen_all: its
// job server takes jobs from any host that reaches the port, and a job can
// run commands.
const prismWarning = "protoavro-beam: warning: --prism_listen_all: prism's job server listens on every interface, port %d, while the run lasts: a host that reaches it can submit jobs (see docs/beam.md, \"Network\")"

// prismAttempts is how many free ports startPrism tries.
const prismAttempts = 5

// freePort picks a TCP port free on loopback and releases it. A variable,
// so that a test can hand out a taken port.
var freePort = func() (int, error) {
	lis, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		return 0, err
	}
	defer lis.Close()
	return lis.Addr().(*net.TCPAddr).Port, nil
}

// createJobServer starts prism's job server on port, turning the panic
// with which prism reports a port it cannot listen on into an error.
func createJobServer(port int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	_, err = prism.CreateJobServer(context.Background(), prism.Options{Port: port})
	return err
}

// cancelJob cancels the job named name on the job service of the run
// (prism's in-process one, or that of --endpoint), waits until the run,
// whose result ran delivers, has returned, and then until the job service
// reports the job ended; it returns that state (CANCELLED, or another
// terminal state for a job that ended first). Until the job is found on
// the service (it may not be submitted yet) it looks again every 20 ms;
// the state is "" when the run ended before its job was submitted. A
// runner without a job service (Dataflow) cannot be asked from here: the
// run's context is cancelled, and the error says that the job may still
// be running.
func cancelJob(ctx context.Context, name string, ran <-chan error) (string, error) {
	endpoint := *jobopts.Endpoint
	if endpoint == "" {
		if r := *runners.Runner; r != "direct" {
			return "", fmt.Errorf("the runner %s has no job service known to protoavro-beam: job %s may still be running; cancel it with the runner's own tools", r, name)
		}
		// The direct runner runs in this process: StopWrites stops it.
		return "", nil
	}
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "", fmt.Errorf("cancel job %s: job service %s: %w", name, endpoint, err)
	}
	defer conn.Close()
	client := jobpb.NewJobServiceClient(conn)
	retry := time.NewTicker(20 * time.Millisecond)
	defer retry.Stop()
	var ids []string
	for {
		if ids, err = cancelNamed(ctx, client, name); err != nil {
			return "", fmt.Errorf("cancel job %s on %s: %w", name, endpoint, err)
		}
		if len(ids) > 0 {
			break
		}
		select {
		case <-ran:
			return "", nil // the run ended before its job was submitted
		case <-retry.C:
		case <-ctx.Done():
			return "", fmt.Errorf("cancel job %s on %s: not found: %w", name, endpoint, ctx.Err())
		}
	}
	select {
	case <-ran:
	case <-ctx.Done():
		return "", fmt.Errorf("cancel job %s on %s: the run did not end: %w", name, endpoint, ctx.Err())
	}
	// The run returns when the job's message stream ends, which may be
	// before the service has the job's final state.
	var states []string
	for _, id := range ids {
		for {
			st, err := client.GetState(ctx, &jobpb.GetJobStateRequest{JobId: id})
			if err != nil {
				return "", fmt.Errorf("cancel job %s on %s: state of %s: %w", name, endpoint, id, err)
			}
			if terminal(st.GetState()) {
				states = append(states, st.GetState().String())
				break
			}
			select {
			case <-retry.C:
			case <-ctx.Done():
				return "", fmt.Errorf("cancel job %s on %s: %s is still %s: %w", name, endpoint, id, st.GetState(), ctx.Err())
			}
		}
	}
	return strings.Join(states, ", "), nil
}

// cancelNamed cancels the jobs named name that have not ended, and returns
// the IDs of the jobs of that name.
func cancelNamed(ctx context.Context, client jobpb.JobServiceClient, name string) ([]string, error) {
	jobs, err := client.GetJobs(ctx, &jobpb.GetJobsRequest{})
	if err != nil {
		return nil, fmt.Errorf("list the jobs: %w", err)
	}
	var ids []string
	for _, j := range jobs.GetJobInfo() {
		if j.GetJobName() != name {
			continue
		}
		ids = append(ids, j.GetJobId())
		if terminal(j.GetState()) {
			continue
		}
		if _, err := client.Cancel(ctx, &jobpb.CancelJobRequest{JobId: j.GetJobId()}); err != nil {
			return ids, fmt.Errorf("%s: %w", j.GetJobId(), err)
		}
	}
	return ids, nil
}

func terminal(s jobpb.JobState_Enum) bool {
	switch s {
	case jobpb.JobState_STOPPED, jobpb.JobState_DONE, jobpb.JobState_FAILED, jobpb.JobState_CANCELLED,
		jobpb.JobState_UPDATED, jobpb.JobState_DRAINED:
		return true
	}
	return false
}
