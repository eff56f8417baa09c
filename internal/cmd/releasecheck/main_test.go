package main

import (
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

func parseMods(t *testing.T, files map[string]string) []mod {
	t.Helper()
	var mods []mod
	for _, dir := range []string{".", "kafka", "beam"} {
		text, ok := files[dir]
		if !ok {
			continue
		}
		f, err := modfile.Parse(dir+"/go.mod", []byte(text), nil)
		if err != nil {
			t.Fatal(err)
		}
		mods = append(mods, mod{dir: dir, path: f.Module.Mod.Path, file: f})
	}
	return mods
}

// TestCheckVersions: the go.mod files and go.work must agree on the one
// version the proxy holds, with no replace directive in a go.mod.
func TestCheckVersions(t *testing.T) {
	const root = "module github.com/protoavro/protoavro\n\ngo 1.26\n"
	kafka := func(v string) string {
		return "module github.com/protoavro/protoavro/kafka\n\ngo 1.26\n\nrequire github.com/protoavro/protoavro " + v + "\n"
	}
	beam := func(v string) string {
		return "module github.com/protoavro/protoavro/beam\n\ngo 1.26\n\nrequire github.com/protoavro/protoavro " + v + "\n"
	}
	work := func(v string) *modfile.WorkFile {
		w, err := modfile.ParseWork("go.work", []byte("go 1.26.0\n\nuse (\n\t.\n\t./kafka\n\t./beam\n)\n\nreplace github.com/protoavro/protoavro "+v+" => ./\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	cases := []struct {
		name    string
		files   map[string]string
		work    string
		version string
		want    string // error text, or the version
	}{
		{"agree", map[string]string{".": root, "kafka": kafka("v0.1.0"), "beam": beam("v0.1.0")}, "v0.1.0", "", "v0.1.0"},
		{"given", map[string]string{".": root, "kafka": kafka("v0.2.0"), "beam": beam("v0.2.0")}, "v0.2.0", "v0.2.0", "v0.2.0"},
		{"disagree", map[string]string{".": root, "kafka": kafka("v0.1.0"), "beam": beam("v0.2.0")}, "v0.1.0", "", "require different versions"},
		{"not in the proxy", map[string]string{".": root, "kafka": kafka("v0.1.0"), "beam": beam("v0.1.0")}, "v0.2.0", "v0.2.0", "kafka/go.mod requires github.com/protoavro/protoavro v0.1.0, a version that is not in the proxy"},
		{"replace", map[string]string{".": root, "kafka": kafka("v0.1.0") + "replace github.com/protoavro/protoavro => ../\n", "beam": beam("v0.1.0")}, "v0.1.0", "", "kafka/go.mod: replace github.com/protoavro/protoavro"},
		{"go.work behind", map[string]string{".": root, "kafka": kafka("v0.2.0"), "beam": beam("v0.2.0")}, "v0.1.0", "", "go.work: replace github.com/protoavro/protoavro v0.1.0: want"},
		{"not canonical", map[string]string{".": root, "kafka": kafka("v0.1.0"), "beam": beam("v0.1.0")}, "v0.1.0", "0.1", "want a canonical semantic version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := checkVersions(parseMods(t, c.files), work(c.work), c.version)
			if strings.HasPrefix(c.want, "v") {
				if err != nil || v != c.want {
					t.Fatalf("checkVersions = %q, %v; want %s", v, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("checkVersions = %q, %v; want an error with %q", v, err, c.want)
			}
		})
	}
}

// TestCheckSynced: a module whose build alone takes an older third-party
// version than the workspace builds with is refused, naming the versions;
// a requirement lifted in the module's own build (by the library it
// requires, say), and the repository's own modules, pass.
func TestCheckSynced(t *testing.T) {
	mods := parseMods(t, map[string]string{
		".":     "module github.com/protoavro/protoavro\n\ngo 1.26\n\nrequire (\n\tgithub.com/klauspost/compress v1.18.4\n\tgolang.org/x/sync v0.23.0 // indirect\n)\n",
		"kafka": "module github.com/protoavro/protoavro/kafka\n\ngo 1.26\n\nrequire (\n\tgithub.com/protoavro/protoavro v0.1.0\n\tgithub.com/klauspost/compress v1.20.3\n\tgolang.org/x/sync v0.22.0\n)\n",
	})
	workspace := buildList("github.com/protoavro/protoavro\ngithub.com/protoavro/protoavro/kafka\ngithub.com/klauspost/compress@v1.20.3\ngolang.org/x/sync@v0.23.0\n")
	alone := map[string]map[string]string{
		"github.com/protoavro/protoavro":       buildList("github.com/protoavro/protoavro\ngithub.com/klauspost/compress@v1.18.4\ngolang.org/x/sync@v0.23.0\n"),
		"github.com/protoavro/protoavro/kafka": buildList("github.com/protoavro/protoavro/kafka\ngithub.com/protoavro/protoavro@v0.1.0\ngithub.com/klauspost/compress@v1.20.3\ngolang.org/x/sync@v0.23.0\n"),
	}
	err := checkSynced(mods, workspace, alone)
	want := "./go.mod requires github.com/klauspost/compress v1.18.4, a build of it alone takes v1.18.4, and the workspace's tests build with v1.20.3"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "requires") != 1 {
		t.Errorf("error %v, want one problem: %q", err, want)
	}
	// kafka's x/sync v0.22.0 comes to v0.23.0 in its build alone.
	alone["github.com/protoavro/protoavro"]["github.com/klauspost/compress"] = "v1.20.3"
	if err := checkSynced(mods, workspace, alone); err != nil {
		t.Errorf("synced modules: %v", err)
	}
}
