package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/protoavro/protoavro/internal/testpb/avro2147pb"
	"github.com/protoavro/protoavro/internal/testutil"
	"github.com/protoavro/protoavro/protoavro"
	"google.golang.org/protobuf/proto"
)

// Java Avro 1.8 (Debian libavro-java), through java/Interop.java, which the
// tests compile with javac against the jars Debian installs. Java Avro 1.8
// reads and writes the null, deflate, snappy (snappy-java), bzip2 and xz
// codecs; zstandard came with Avro 1.9.

// javaJars are the jars of /usr/share/java that Avro 1.8 needs: Avro, its
// Jackson 1.9, and what its codecs and logging load.
var javaJars = []string{"avro.jar", "jackson-core-asl.jar", "jackson-mapper-asl.jar", "snappy-java.jar", "commons-compress.jar",
	"xz.jar", "paranamer.jar", "avro-guava-dependencies.jar", "slf4j-api.jar", "slf4j-nop.jar"}

var javaCodecs = []protoavro.Compression{protoavro.CompressionNull, protoavro.CompressionDeflate, protoavro.CompressionSnappy}

const javaReason = "libavro-java not installed: apt-get install libavro-java default-jdk-headless"

type javaInfo struct {
	exe       string
	classpath string
	version   string
	built     // compiling Interop.java
}

var javaTools = sync.OnceValue(func() *javaInfo {
	javac, err1 := exec.LookPath("javac")
	java, err2 := exec.LookPath("java")
	if err1 != nil || err2 != nil {
		return nil
	}
	var cp []string
	for _, j := range javaJars {
		p := "/usr/share/java/" + j
		if _, err := os.Stat(p); err != nil {
			if j == "avro.jar" {
				return nil
			}
			continue
		}
		cp = append(cp, p)
	}
	info := &javaInfo{exe: java}
	classes := workDir + "/java"
	out, err := exec.Command(javac, "-nowarn", "-d", classes, "-cp", strings.Join(cp, ":"), repoDir("java", "Interop.java")).CombinedOutput()
	if err != nil {
		info.err = &cmdError{"javac", err, string(out)}
		return info
	}
	info.classpath = strings.Join(append([]string{classes}, cp...), ":")
	if out, err := exec.Command(java, "-cp", info.classpath, "Interop", "version").Output(); err == nil {
		info.version = strings.TrimSpace(string(out))
	}
	return info
})

type cmdError struct {
	cmd    string
	err    error
	output string
}

func (e *cmdError) Error() string { return e.cmd + ": " + e.err.Error() + "\n" + e.output }

func (j *javaInfo) run(t *testing.T, args ...string) []byte {
	return run(t, j.exe, append([]string{"-Djava.library.path=/usr/lib/x86_64-linux-gnu/jni:/usr/lib/jni", "-cp", j.classpath, "Interop"}, args...)...)
}

func TestJavaReads(t *testing.T) {
	t.Parallel()
	j := needBuilt(t, javaTools(), javaReason)
	oursToTheirs(t, readTest{impl: "Java Avro " + j.version, codecs: javaCodecs, read: func(files []string) []byte {
		return j.run(t, append([]string{"read"}, files...)...)
	}})
}

func TestJavaWrites(t *testing.T) {
	t.Parallel()
	j := needBuilt(t, javaTools(), javaReason)
	theirsToOurs(t, writeTest{impl: "Java Avro " + j.version, codecs: javaCodecs, write: func(jobs string) []byte {
		return j.run(t, "write", jobs)
	}})
}

// TestJavaReferenceDatums reads the Java profile's reference datums
// (testdata/reference/avro2147/datums.txt: the bytes Apache Avro Java's
// ProtobufDatumWriter wrote) and the bytes protoavro's Java profile writes
// for the same messages with Java Avro's GenericDatumReader and the
// reference schema java_schema.json. Every datum must be read whole and
// hold what its protobuf message says, with unset fields read as their
// protobuf defaults (the Java profile has no presence).
func TestJavaReferenceDatums(t *testing.T) {
	t.Parallel()
	j := needBuilt(t, javaTools(), javaReason)
	schemaFile := testutil.RepoPath("testdata", "reference", "avro2147", "java_schema.json")
	schema, err := readSchema(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := protoavro.Options{Profile: protoavro.JavaProfile}.Codec((&avro2147pb.Foo{}).ProtoReflect().Descriptor())
	if err != nil {
		t.Fatal(err)
	}
	datums, err := testutil.ReferenceDatums()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]record{}
	var input bytes.Buffer
	for _, d := range datums {
		msg := &avro2147pb.Foo{}
		if err := proto.Unmarshal(d.Proto, msg); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		r, err := expectRecord(schema, msg.ProtoReflect())
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		ours, err := codec.Marshal(msg)
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		want["reference/"+d.Name], want["protoavro/"+d.Name] = r, r
		fmt.Fprintf(&input, "reference/%s %x\nprotoavro/%s %x\n", d.Name, d.Avro, d.Name, ours)
	}
	inputFile := t.TempDir() + "/datums.txt"
	if err := os.WriteFile(inputFile, input.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := j.run(t, "datums", schemaFile, inputFile)
	seen := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var o struct {
			Name     string          `json:"name"`
			Consumed bool            `json:"consumed"`
			Record   json.RawMessage `json:"record"`
		}
		if err := json.Unmarshal(line, &o); err != nil {
			t.Fatalf("%v: %.200s", err, line)
		}
		w, ok := want[o.Name]
		if !ok {
			t.Fatalf("unknown datum %q", o.Name)
		}
		seen++
		t.Run(o.Name, func(t *testing.T) {
			if !o.Consumed {
				t.Error("GenericDatumReader left bytes unread")
			}
			jv, err := testutil.DecodeJSON(o.Record)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseInterop(schema, jv)
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(nil, "", w, got, 10); len(d) > 0 {
				t.Errorf("\n  %s", strings.Join(d, "\n  "))
			}
		})
	}
	if seen != len(want) {
		t.Errorf("%d datums read, want %d", seen, len(want))
	}
	summary(t, "Java Avro %s GenericDatumReader read %d reference datums and %d datums protoavro wrote with java_schema.json",
		j.version, len(datums), len(datums))
}
