// Command benchreport writes BENCHMARKS.md from the raw output of
// scripts/bench: it is the one place where the benchmarks' baselines and
// goals are stated.
//
//	go run ./internal/cmd/benchreport -dir RAW > BENCHMARKS.md
//
// RAW holds meta.txt ("key: value" lines: the date, the commit, the machine,
// the commands) and one file per section named in the sections table below,
// each the output of `go test -bench` or lines in its format. A round is one
// run of each benchmark of a section: scripts/bench runs the test binaries
// with -test.count 1 again and again, so that the k-th lines of two
// benchmarks were measured seconds apart under the same load, and a ratio is
// computed round by round before its median is taken.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ref names one figure: a benchmark (its name without "Benchmark" and the
// -GOMAXPROCS suffix) and one of its metrics ("ns/op" when empty).
type ref struct{ bench, metric string }

func (r ref) String() string {
	if r.metric == "" || r.metric == "ns/op" {
		return r.bench
	}
	return r.bench + " " + r.metric
}

// ratio is num/den per round, with an optional goal: "<=" or ">=" value.
type ratio struct {
	label    string
	num, den ref
	op       string
	goal     float64
}

// section is one file of RAW and what the report says of it.
type section struct {
	file, title, about string
	// benches lists the benchmarks whose medians are shown, in order, and
	// the metrics shown for them (ns/op, B/op, allocs/op when nil).
	benches []string
	metrics []string
	ratios  []ratio
}

func le(label string, num, den ref, goal float64) ratio {
	return ratio{label: label, num: num, den: den, op: "≤", goal: goal}
}
func ge(label string, num, den ref, goal float64) ratio {
	return ratio{label: label, num: num, den: den, op: "≥", goal: goal}
}
func info(label string, num, den ref) ratio { return ratio{label: label, num: num, den: den} }

func ns(b string) ref { return ref{b, "ns/op"} }

// codecRatios are the ratios of a codec benchmark (prefix is the benchmark's
// name, "AVRO2147/" or "OTLPTraces/"): the codec against protobuf's own
// marshalling of the same message, and against the floor, a bare walk over
// the protobuf bytes.
func codecRatios(p string) []ratio {
	return []ratio{
		le("Marshal / proto.Marshal", ns(p+"Marshal"), ns(p+"ProtoMarshal"), 0.75),
		le("Unmarshal / proto.Unmarshal", ns(p+"Unmarshal"), ns(p+"ProtoUnmarshal"), 1.0),
		le("TranscodeToAvro / proto.Unmarshal", ns(p+"TranscodeToAvro"), ns(p+"ProtoUnmarshal"), 0.65),
		le("TranscodeToProto / proto.Unmarshal", ns(p+"TranscodeToProto"), ns(p+"ProtoUnmarshal"), 0.65),
		info("TranscodeToAvro / walk (floor)", ns(p+"TranscodeToAvro"), ns(p+"Walk")),
		info("TranscodeToProto / walk (floor)", ns(p+"TranscodeToProto"), ns(p+"Walk")),
		info("proto.Unmarshal / walk (floor)", ns(p+"ProtoUnmarshal"), ns(p+"Walk")),
	}
}

// workerRatios are the ratios of the workers benchmarks of command cmd
// ("encode" or "decode"): two workers against one, and against the
// machine's ceiling, two processes of one worker each.
func workerRatios(cmd string) []ratio {
	p := "CLI/" + cmd + "/"
	return []ratio{
		ge(cmd+" speed-up", ns(p+"workers=1"), ns(p+"workers=2"), 1.7),
		info("two "+cmd+" processes' speed-up (the machine's ceiling)", ns(p+"workers=1"), ns(p+"2-processes")),
		info(cmd+" speed-up / the ceiling", ns(p+"2-processes"), ns(p+"workers=2")),
	}
}

var sections = []section{
	{
		file:  "avro2147.txt",
		title: "Codec: the AVRO-2147 datum",
		about: "One `Foo` message holding a nested message with a 676-symbol enum (`BenchmarkAVRO2147`, `bench_test.go`). " +
			"Baselines: `proto.Marshal`/`proto.Unmarshal` of the same message; the floor, a descriptor-driven " +
			"`protowire` walk over the same bytes that produces nothing (`Walk`), and a plain copy (`Copy`). " +
			"`MarshalUncached` derives the schema and codec for every datum, as Avro Java's `ProtobufData` did " +
			"before AVRO-2147 was fixed.",
		benches: []string{"AVRO2147/SchemaCached", "AVRO2147/ProtoMarshal", "AVRO2147/ProtoUnmarshal", "AVRO2147/Walk", "AVRO2147/Copy",
			"AVRO2147/Marshal", "AVRO2147/MarshalViaWire", "AVRO2147/MarshalZZ", "AVRO2147/Unmarshal", "AVRO2147/TranscodeToAvro",
			"AVRO2147/TranscodeToProto", "AVRO2147/MarshalUncached", "AVRO2147/SchemaUncached"},
		ratios: append(codecRatios("AVRO2147/"),
			ge("MarshalUncached / Marshal (what the cache saves)", ns("AVRO2147/MarshalUncached"), ns("AVRO2147/Marshal"), 7.5)),
	},
	{
		file:  "otlp.txt",
		title: "Codec: an OpenTelemetry traces batch",
		about: "One `TracesData` batch of 512 spans with attributes, events and links (`BenchmarkOTLPTraces`, " +
			"`testdata/otlp_traces.pb`), with the same baselines and floor.",
		benches: []string{"OTLPTraces/ProtoMarshal", "OTLPTraces/ProtoUnmarshal", "OTLPTraces/Walk", "OTLPTraces/Copy",
			"OTLPTraces/Marshal", "OTLPTraces/Unmarshal", "OTLPTraces/TranscodeToAvro", "OTLPTraces/TranscodeToProto"},
		ratios: codecRatios("OTLPTraces/"),
	},
	{
		file:  "person.txt",
		title: "Codec: the Kafka bridge's records",
		about: "1,000 small, string-heavy `Person` records of `testdata/proto/evolution/v2/person.proto` (about 100 bytes " +
			"each, filled as the bridge's tests fill them; `BenchmarkPerson`, `bench_person_test.go`), one call per record, " +
			"against the same floor: the bare walk over the protobuf bytes and a copy. `ns/record` is the cost of one record.",
		benches: []string{"Person/Walk", "Person/Copy", "Person/TranscodeToAvro", "Person/TranscodeToProto"},
		metrics: []string{"ns/record", "B/op", "allocs/op"},
		ratios: []ratio{
			info("TranscodeToAvro / walk (floor)", ref{"Person/TranscodeToAvro", "ns/record"}, ref{"Person/Walk", "ns/record"}),
			info("TranscodeToProto / walk (floor)", ref{"Person/TranscodeToProto", "ns/record"}, ref{"Person/Walk", "ns/record"}),
		},
	},
	{
		file:  "libraries.txt",
		title: "Other Go Avro libraries",
		about: "The AVRO-2147 datum encoded by protoavro, by linkedin/goavro from its native map form, and by " +
			"hamba/avro from a hand-written struct (`bench/`, a module of its own so that these libraries stay " +
			"out of the library's go.mod).",
		benches: []string{"AVRO2147/Marshal", "AVRO2147/Goavro", "AVRO2147/HambaStruct"},
		ratios: []ratio{
			info("goavro / protoavro Marshal", ns("AVRO2147/Goavro"), ns("AVRO2147/Marshal")),
			info("hamba/avro / protoavro Marshal", ns("AVRO2147/HambaStruct"), ns("AVRO2147/Marshal")),
		},
	},
	{
		file:  "encode.txt",
		title: "Batch: `protoavro encode` against the sum of its parts",
		about: "`BenchmarkEncodeParts` (`cmd/protoavro`): the command on 100,000 AVRO-2147 records (`--codec null " +
			"--workers 1`, in process) against reading the same length-delimited input and `TranscodeToAvro` of " +
			"every record in one goroutine.",
		benches: []string{"EncodeParts/Command", "EncodeParts/Parts"},
		ratios:  []ratio{le("command / parts", ns("EncodeParts/Command"), ns("EncodeParts/Parts"), 1.5)},
	},
	{
		file:  "hostile.txt",
		title: "Untrusted input: a header schema of 100,000 fields in reverse order",
		about: "`BenchmarkReversedFieldsHeader` (`protoavro/hostile_test.go`): `ParseSchema` of a container header's " +
			"schema of 100,000 long fields written in reverse order (3.2 MB of JSON) and its resolution against the " +
			"message of those fields, what a container reader does before its first record. docs/limits.md bounds it " +
			"at 1 s and 256 MiB (`B/op` counts every allocation, not the peak).",
		benches: []string{"ReversedFieldsHeader"},
	},
	{
		file:  "workers.txt",
		title: "Batch: two workers against one",
		about: "`protoavro encode` and `protoavro decode` of varied AVRO-2147 records (their count is in the command) with zstd, `--workers 1` " +
			"and `--workers 2`, run as processes one after the other; scripts/bench checks that decoding gives back the input's " +
			"bytes with either count. `cpu-ns/op` is user and system CPU time, `maxrss-KB` the peak resident set. " +
			"The machine's own ceiling: `CLI/encode/2-processes` (and `CLI/decode/2-processes`) runs two independent " +
			"`encode --workers 1` (`decode --workers 1`) processes at once, each on half the records (the peak resident set is the larger one's); what two processes gain " +
			"over one is the most two workers of one process can gain on this machine.",
		benches: []string{"CLI/encode/workers=1", "CLI/encode/workers=2", "CLI/encode/2-processes", "CLI/decode/workers=1", "CLI/decode/workers=2", "CLI/decode/2-processes"},
		metrics: []string{"ns/op", "cpu-ns/op", "maxrss-KB"},
		ratios:  append(workerRatios("encode"), workerRatios("decode")...),
	},
	{
		file:  "bridge.txt",
		title: "Kafka: the bridge against a pass-through",
		about: "`BenchmarkBridge` (`kafka/bridge`): the bridge (Confluent-framed protobuf in, Confluent-framed Avro " +
			"out) and a pass-through (the same records consumed and produced unchanged by the same code) over the " +
			"same input, each run a fresh consumer group, the broker (kfake) in a child process. A round (one count) runs each " +
			"mode 4 times, interleaved in both orders, and its figures are the medians of each mode's 4 runs. A run is timed " +
			"from the commit of its first batch (after the group join and the registry lookups) to the commit of the last; a " +
			"run whose member joins the group again in that time fails; the output topic is emptied between runs. CPU per " +
			"record and allocations per record are the benchmark process's, that is the clients' and the bridge's, without " +
			"the broker's.",
		benches: []string{"Bridge"},
		metrics: []string{"passthrough-records/s", "bridge-records/s", "passthrough-cpu-µs/record", "bridge-cpu-µs/record",
			"passthrough-allocs/record", "bridge-allocs/record"},
		ratios: []ratio{
			ge("bridge / pass-through records/s", ref{"Bridge", "bridge-records/s"}, ref{"Bridge", "passthrough-records/s"}, 0.9),
			le("bridge / pass-through CPU per record", ref{"Bridge", "bridge-cpu-µs/record"}, ref{"Bridge", "passthrough-cpu-µs/record"}, 1.25),
		},
	},
	{
		file:  "beam.txt",
		title: "Beam: `protoavro-beam` on prism against `protoavro encode`",
		about: "The same AVRO-2147 records (length-delimited; their count is in the command; snappy) converted by `protoavro encode` and " +
			"by the Beam pipeline on the prism runner in one process, as processes one after the other.",
		benches: []string{"CLI/encode", "Beam/prism"},
		metrics: []string{"ns/op", "cpu-ns/op", "maxrss-KB"},
		ratios: []ratio{
			ge("Beam / encode records/s", ns("CLI/encode"), ns("Beam/prism"), 0.7),
			info("Beam / encode CPU", ref{"Beam/prism", "cpu-ns/op"}, ref{"CLI/encode", "cpu-ns/op"}),
		},
	},
}

func main() {
	dir := flag.String("dir", "", "the `directory` of scripts/bench's raw output")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "benchreport: -dir is required")
		os.Exit(2)
	}
	if err := report(os.Stdout, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func report(w io.Writer, dir string) error {
	meta, err := readMeta(filepath.Join(dir, "meta.txt"))
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Benchmarks\n\n")
	fmt.Fprintf(bw, "Generated by `scripts/bench` (which runs the benchmarks and then `internal/cmd/benchreport`); "+
		"re-run it to measure your machine. Compare ratios, not times: each ratio is taken round by round "+
		"between benchmarks run seconds apart under the same load, and its median is shown.\n\n")
	fmt.Fprintf(bw, "| | |\n|---|---|\n")
	for _, k := range []string{"date", "commit", "cpu", "cores", "memory", "go", "os", "load", "rounds"} {
		if v, ok := meta[k]; ok {
			fmt.Fprintf(bw, "| %s | %s |\n", k, v)
		}
	}
	fmt.Fprintf(bw, "\nCommand: `scripts/bench%s`\n", metaArg(meta, "args"))
	var summary []string
	for _, s := range sections {
		lines, err := readBench(filepath.Join(dir, s.file))
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(bw, "\n## %s\n\nNot measured in this run (no %s).\n", s.title, s.file)
			continue
		}
		if err != nil {
			return err
		}
		res, err := writeSection(bw, s, lines, meta["cmd."+strings.TrimSuffix(s.file, ".txt")])
		if err != nil {
			return fmt.Errorf("%s: %w", s.file, err)
		}
		summary = append(summary, res...)
	}
	fmt.Fprintf(bw, "\n## Goals\n\n| goal | median | |\n|---|---|---|\n")
	for _, l := range summary {
		fmt.Fprintln(bw, l)
	}
	return bw.Flush()
}

func metaArg(meta map[string]string, k string) string {
	if v := meta[k]; v != "" {
		return " " + v
	}
	return ""
}

// writeSection writes one section and returns its goal lines for the summary.
func writeSection(w io.Writer, s section, lines map[string][]map[string]float64, cmd string) ([]string, error) {
	fmt.Fprintf(w, "\n## %s\n\n%s\n", s.title, s.about)
	if cmd != "" {
		fmt.Fprintf(w, "\n```sh\n%s\n```\n", cmd)
	}
	metrics := s.metrics
	if metrics == nil {
		metrics = []string{"ns/op", "B/op", "allocs/op"}
	}
	fmt.Fprintf(w, "\n| benchmark | %s |\n|---|%s\n", strings.Join(metrics, " | "), strings.Repeat("---|", len(metrics)))
	for _, b := range s.benches {
		runs := lines[b]
		if len(runs) == 0 {
			return nil, fmt.Errorf("no line of benchmark %s", b)
		}
		cells := make([]string, len(metrics))
		for i, m := range metrics {
			vs := values(runs, m)
			if len(vs) == 0 {
				cells[i] = "–"
				continue
			}
			cells[i] = formatMedian(m, vs)
		}
		fmt.Fprintf(w, "| %s | %s |\n", b, strings.Join(cells, " | "))
	}
	var goals []string
	if len(s.ratios) > 0 {
		fmt.Fprintf(w, "\n| ratio | per round | median | goal |\n|---|---|---|---|\n")
	}
	for _, r := range s.ratios {
		num, den := values(lines[r.num.bench], r.num.metric), values(lines[r.den.bench], r.den.metric)
		if len(num) == 0 || len(den) == 0 {
			return nil, fmt.Errorf("ratio %s: no figures of %s or %s", r.label, r.num, r.den)
		}
		if len(num) != len(den) {
			return nil, fmt.Errorf("ratio %s: %d rounds of %s but %d of %s", r.label, len(num), r.num, len(den), r.den)
		}
		rs := make([]float64, len(num))
		texts := make([]string, len(num))
		for i := range num {
			if den[i] == 0 {
				return nil, fmt.Errorf("ratio %s: a baseline of 0 in round %d", r.label, i+1)
			}
			rs[i] = num[i] / den[i]
			texts[i] = strconv.FormatFloat(rs[i], 'f', 2, 64)
		}
		m := median(rs)
		goal, verdict := "", ""
		if r.op != "" {
			goal = fmt.Sprintf("%s %.2f", r.op, r.goal)
			verdict = "met"
			if (r.op == "≤" && m > r.goal) || (r.op == "≥" && m < r.goal) {
				verdict = "**not met**"
			}
			goals = append(goals, fmt.Sprintf("| %s: %s %s | %.2f | %s |", s.title, r.label, goal, m, verdict))
		}
		fmt.Fprintf(w, "| %s | %s | **%.2f** | %s |\n", r.label, strings.Join(texts, ", "), m, strings.TrimSpace(goal+" "+verdict))
	}
	return goals, nil
}

// values returns metric m of each line (round) of one benchmark.
func values(runs []map[string]float64, m string) []float64 {
	if m == "" {
		m = "ns/op"
	}
	var vs []float64
	for _, r := range runs {
		if v, ok := r[m]; ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// formatMedian formats the median of vs, with the spread of the rounds
// (min–max) as a percentage of the median.
func formatMedian(m string, vs []float64) string {
	med := median(vs)
	var s string
	switch m {
	case "ns/op", "cpu-ns/op":
		s = formatNs(med)
	default:
		s = formatNum(med)
	}
	if len(vs) > 1 && med != 0 && m != "allocs/op" && m != "B/op" {
		lo, hi := slices.Min(vs), slices.Max(vs)
		s += fmt.Sprintf(" (−%.0f%% +%.0f%%)", 100*(med-lo)/med, 100*(hi-med)/med)
	}
	return s
}

func formatNs(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2f s", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2f ms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2f µs", v/1e3)
	}
	return fmt.Sprintf("%.1f ns", v)
}

func formatNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e12 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// readMeta reads "key: value" lines.
func readMeta(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	meta := map[string]string{}
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(strings.TrimRight(line, "\n"), ": ")
		if !ok {
			continue
		}
		if old, dup := meta[k]; dup {
			v = old + "\n" + v
		}
		meta[k] = v
	}
	return meta, nil
}

// readBench reads the benchmark lines of a go test -bench output: for each
// benchmark (without "Benchmark" and the -GOMAXPROCS suffix), its lines in
// order, each a map of metric to value.
func readBench(path string) (map[string][]map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]map[string]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 || !strings.HasPrefix(fs[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(fs[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(fs); i += 2 {
			v, err := strconv.ParseFloat(fs[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s %q: %w", path, n, fs[i+1], fs[i], err)
			}
			m[fs[i+1]] = v
		}
		out[name] = append(out[name], m)
	}
	return out, sc.Err()
}

// median returns the median of xs (the mean of the middle two for an even
// count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
