package usage

import (
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"
)

// PrintFlags writes what PrintDefaults writes, with two dashes before the
// names longer than a letter: the same flags, arguments, usage lines and
// defaults.
func TestPrintFlagsIsPrintDefaultsWithTwoDashes(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("brokers", "127.0.0.1:9092", "seed `BROKERS`, comma-separated")
	fs.String("group", "", "consumer `GROUP`")
	fs.Int("batch", 10000, "most `RECORDS` per batch")
	fs.Int("zero", 0, "an int with no default shown")
	fs.Bool("check", true, "run the gate")
	fs.Bool("dev", false, "development mode")
	fs.Duration("ttl", 0, "time to live")
	fs.Duration("wait", 3*time.Second, "how long to wait\nsecond line")
	fs.Bool("q", false, "quiet")
	fs.Func("I", "import `DIR`", func(string) error { return nil })
	var want strings.Builder
	fs.SetOutput(&want)
	fs.PrintDefaults()
	var got strings.Builder
	PrintFlags(&got, fs)

	dashed := regexp.MustCompile(`(?m)^  -(\w\w)`).ReplaceAllString(want.String(), "  --$1")
	if got.String() != dashed {
		t.Errorf("PrintFlags:\n%s\nwant:\n%s", got.String(), dashed)
	}
	for _, line := range []string{
		"  --brokers BROKERS\n    \tseed BROKERS, comma-separated (default \"127.0.0.1:9092\")\n",
		"  --batch RECORDS\n    \tmost RECORDS per batch (default 10000)\n",
		"  --check\n    \trun the gate (default true)\n",
		"  --dev\n    \tdevelopment mode\n",
		"  -q\tquiet\n",
		"  -I DIR\n    \timport DIR\n",
		"  --wait duration\n    \thow long to wait\n    \tsecond line (default 3s)\n",
	} {
		if !strings.Contains(got.String(), line) {
			t.Errorf("PrintFlags lacks %q:\n%s", line, got.String())
		}
	}
	if strings.Contains(got.String(), "(default 0") || strings.Contains(got.String(), `(default "")`) {
		t.Errorf("PrintFlags shows a zero default:\n%s", got.String())
	}
}
