// Command releasecheck checks that every module of the repository can be
// used from outside it, as it would be once tagged: it writes each module
// listed in go.work (the library and the nested ones: kafka/, beam/, ...),
// as its tracked files stand in the working tree, at one version into a
// file-based module proxy, then, in an empty temporary directory, with
// GOWORK=off, no replace directive and no access to the checkout, builds and
// runs a small module that imports the library, kafka/serde and the Beam
// transforms, and installs every command (cmd/* of each module) from the
// proxy with go install.
//
// Before that it checks the go.mod files: no published module has a
// replace directive (go install refuses such a module), and every
// requirement of one module of the repository on another names the version
// the proxy holds. The builds use a module cache of their own, removed at
// the end, so that no module built from the working tree is left in the
// user's; third-party modules come from the user's module cache, or from
// $GOPROXY.
//
// Usage, from its directory, which go.work does not list
// (scripts/release-check runs it so):
//
//	GOWORK=off go run . [-version vX.Y.Z] [-proxy DIR]
//
// The version is by default the one the nested modules require of the
// library (they must agree). With -proxy, it only writes the proxy into DIR
// and stops: RELEASING.md uses that to run go mod tidy in a nested module
// before the version it requires is tagged.
//
// Modules whose path has an internal element, such as this command's own,
// are development tools: not published, not checked, and not in go.work
// (their dependencies would change the versions the workspace builds
// with); they build with GOWORK=off.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	version := flag.String("version", "", "the `VERSION` to publish every module at (default: the version the nested modules require of the library)")
	proxyOnly := flag.String("proxy", "", "only write the module proxy into `DIR`, an absolute path (file://DIR as GOPROXY), and stop")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: releasecheck [-version vX.Y.Z] [-proxy DIR]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	if err := run(*version, *proxyOnly); err != nil {
		fmt.Fprintln(os.Stderr, "release-check:", err)
		os.Exit(1)
	}
	if *proxyOnly == "" {
		fmt.Printf("release-check: ok in %v\n", time.Since(start).Round(time.Second))
	}
}

// mod is one module of the repository.
type mod struct {
	dir  string // relative to the repository root, "." for the library
	path string // module path
	file *modfile.File
}

func run(version, proxyOnly string) error {
	repo, err := output("", nil, "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	repo = strings.TrimSpace(repo)
	mods, work, err := readModules(repo)
	if err != nil {
		return err
	}
	if version, err = checkVersions(mods, work, version); err != nil {
		return err
	}

	tmp, err := os.MkdirTemp("", "release-check-")
	if err != nil {
		return err
	}
	defer removeAll(tmp)
	proxy := proxyOnly
	if proxy == "" {
		proxy = filepath.Join(tmp, "proxy")
	} else if !filepath.IsAbs(proxy) {
		return fmt.Errorf("-proxy %s: want an absolute directory", proxy)
	}
	var cmds []string
	for _, m := range mods {
		c, err := writeModule(repo, proxy, m, version)
		if err != nil {
			return err
		}
		cmds = append(cmds, c...)
	}
	fmt.Printf("release-check: %d modules at %s in file://%s\n", len(mods), version, filepath.ToSlash(proxy))
	if proxyOnly != "" {
		return nil
	}

	realCache, err := output("", nil, "go", "env", "GOMODCACHE")
	if err != nil {
		return err
	}
	realProxy, err := output("", nil, "go", "env", "GOPROXY")
	if err != nil {
		return err
	}
	// The repository's modules go into a module cache of their own, new on
	// every run: the go command takes a module cache's contents as
	// immutable (it indexes them once, in the build cache, by directory), so
	// a module built from an earlier working tree at the same version must
	// never be found there. Third-party modules come from the user's module
	// cache, read as a proxy, or from $GOPROXY; with -trimpath, what is
	// compiled from them is found in the build cache on the next run.
	root := mods[0].path
	env := []string{
		"GOWORK=off",
		"GOFLAGS=-mod=mod -modcacherw -trimpath",
		"GOPROXY=" + fileURL(proxy) + "," + fileURL(filepath.Join(strings.TrimSpace(realCache), "cache", "download")) + "," + strings.TrimSpace(realProxy),
		"GONOSUMDB=" + root, // the modules of the proxy are not in the checksum database yet
		"GONOPROXY=", "GOPRIVATE=",
		"GOMODCACHE=" + filepath.Join(tmp, "modcache"),
		"GOBIN=" + filepath.Join(tmp, "bin"),
		"GOTOOLCHAIN=local",
	}

	// Each module's build list alone, as its users get it, against the
	// workspace's, with which its tests ran.
	list, err := output(repo, []string{"GOWORK=" + filepath.Join(repo, "go.work")}, "go", "list", "-m", "-f", listFormat, "all")
	if err != nil {
		return err
	}
	alone := map[string]map[string]string{}
	for _, m := range mods {
		dir := filepath.Join(tmp, "alone", filepath.FromSlash(m.dir))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, name := range []string{"go.mod", "go.sum"} {
			data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(m.dir), name))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		l, err := output(dir, env, "go", "list", "-m", "-f", listFormat, "all")
		if err != nil {
			return fmt.Errorf("%s alone: %w", m.dir, err)
		}
		alone[m.path] = buildList(l)
	}
	if err := checkSynced(mods, buildList(list), alone); err != nil {
		return err
	}

	outside := filepath.Join(tmp, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return err
	}
	goMod := "module example.com/outside\n\ngo 1.26.0\n"
	if err := os.WriteFile(filepath.Join(outside, "go.mod"), []byte(goMod), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outside, "main.go"), []byte(outsideMain), 0o644); err != nil {
		return err
	}
	get := []string{"get"}
	for _, m := range mods {
		get = append(get, m.path+"@"+version)
	}
	steps := [][]string{get, {"mod", "tidy"}, {"build", "-o", "outside", "."}}
	for _, args := range steps {
		if _, err := output(outside, env, "go", args...); err != nil {
			return fmt.Errorf("the outside module: %w", err)
		}
	}
	if f, err := os.ReadFile(filepath.Join(outside, "go.mod")); err != nil {
		return err
	} else if mf, err := modfile.Parse("go.mod", f, nil); err != nil || len(mf.Replace) > 0 {
		return fmt.Errorf("the outside module's go.mod has a replace directive or does not parse (%v):\n%s", err, f)
	}
	out, err := output(outside, env, filepath.Join(outside, "outside"))
	if err != nil {
		return fmt.Errorf("the outside module: %w", err)
	}
	fmt.Print(indent(out))

	for _, c := range cmds {
		if _, err := output(outside, env, "go", "install", c+"@"+version); err != nil {
			return err
		}
		// -h exits with status 0 or 2 (protoc-gen-avro's, meant for
		// protoc); either way it prints the program's usage.
		name := path.Base(c)
		h := exec.Command(filepath.Join(tmp, "bin", name), "-h")
		h.Dir = outside
		out, err := h.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 2) || !bytes.Contains(out, []byte(name)) {
			return fmt.Errorf("%s -h: %v, printed:\n%s", name, err, out)
		}
		fmt.Printf("release-check: go install %s@%s: ok\n", c, version)
	}
	return nil
}

// readModules returns the modules listed in go.work, the library first,
// and go.work itself. Every go.mod tracked by git must be listed there.
func readModules(repo string) ([]mod, *modfile.WorkFile, error) {
	data, err := os.ReadFile(filepath.Join(repo, "go.work"))
	if err != nil {
		return nil, nil, err
	}
	work, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		return nil, nil, err
	}
	used := map[string]bool{}
	var mods []mod
	for _, u := range work.Use {
		dir := path.Clean(filepath.ToSlash(u.Path))
		used[dir] = true
		data, err := os.ReadFile(filepath.Join(repo, dir, "go.mod"))
		if err != nil {
			return nil, nil, err
		}
		f, err := modfile.Parse(path.Join(dir, "go.mod"), data, nil)
		if err != nil {
			return nil, nil, err
		}
		if f.Module == nil {
			return nil, nil, fmt.Errorf("%s/go.mod has no module line", dir)
		}
		if slices.Contains(strings.Split(f.Module.Mod.Path, "/"), "internal") {
			return nil, nil, fmt.Errorf("go.work lists %s, a development tool: its dependencies would change the versions every module of the workspace builds with", dir)
		}
		mods = append(mods, mod{dir: dir, path: f.Module.Mod.Path, file: f})
	}
	if len(mods) == 0 || mods[0].dir != "." {
		return nil, nil, errors.New("go.work must list the library (.) first")
	}
	tracked, err := output(repo, nil, "git", "ls-files", "-z", "--", "go.mod", ":(glob)**/go.mod")
	if err != nil {
		return nil, nil, err
	}
	for _, name := range strings.Split(strings.TrimRight(tracked, "\x00"), "\x00") {
		if name == "" || used[path.Dir(name)] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(name)))
		if err != nil {
			return nil, nil, err
		}
		if p := modfile.ModulePath(data); !slices.Contains(strings.Split(p, "/"), "internal") {
			return nil, nil, fmt.Errorf("%s (%s) is not in go.work: add it with go work use ./%s", name, p, path.Dir(name))
		}
	}
	return mods, work, nil
}

// checkVersions checks the go.mod files of mods and go.work's replace
// directives against the version every module is published at (version,
// or by default the one the nested modules require), and returns it.
func checkVersions(mods []mod, work *modfile.WorkFile, version string) (string, error) {
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.path] = true
	}
	var problems []string
	required := map[string][]string{} // version -> "kafka/go.mod requires P"
	for _, m := range mods {
		for _, r := range m.file.Replace {
			problems = append(problems, fmt.Sprintf("%s/go.mod: replace %s: go install refuses a module with a replace directive, and a user's build ignores it (use go.work)", m.dir, r.Old.Path))
		}
		for _, r := range m.file.Require {
			if ours[r.Mod.Path] {
				required[r.Mod.Version] = append(required[r.Mod.Version], fmt.Sprintf("%s/go.mod requires %s %s", m.dir, r.Mod.Path, r.Mod.Version))
			}
		}
	}
	if version == "" {
		switch len(required) {
		case 0:
			return "", errors.New("no module requires another: give -version")
		case 1:
			for v := range required {
				version = v
			}
		default:
			var all []string
			for _, rs := range required {
				all = append(all, rs...)
			}
			slices.Sort(all)
			return "", fmt.Errorf("the nested modules require different versions of the repository's modules; every module is published at one version:\n\t%s", strings.Join(all, "\n\t"))
		}
	}
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return "", fmt.Errorf("version %q: want a canonical semantic version such as v0.1.0", version)
	}
	for v, rs := range required {
		if v != version {
			for _, r := range rs {
				problems = append(problems, r+", a version that is not in the proxy (every module is written at "+version+")")
			}
		}
	}
	for _, r := range work.Replace {
		if ours[r.Old.Path] && r.Old.Version != version {
			problems = append(problems, fmt.Sprintf("go.work: replace %s %s: want the version the modules require, %s", r.Old.Path, r.Old.Version, version))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return "", errors.New(strings.Join(problems, "\n"))
	}
	return version, nil
}

// listFormat is the format of go list -m that buildList parses.
const listFormat = "{{.Path}}@{{.Version}}"

// buildList parses the output of go list -m -f listFormat all: the version
// selected for each module path (none for the main or workspace modules).
func buildList(list string) map[string]string {
	selected := map[string]string{}
	for line := range strings.Lines(list) {
		p, v, ok := strings.Cut(strings.TrimSpace(line), "@")
		if ok && v != "" && !strings.HasPrefix(p, "go:") {
			selected[p] = v
		}
	}
	return selected
}

// checkSynced checks that every third-party requirement of mods comes, in
// a build of the module alone (alone, by module path: its build list with
// GOWORK=off, as its users get it), to the version the workspace builds
// with (workspace, the workspace's build list): the tests run with the
// workspace's versions, so a module built with an older one would reach
// its users as a combination no test ran. go work sync writes the
// workspace's versions into the go.mod files.
func checkSynced(mods []mod, workspace map[string]string, alone map[string]map[string]string) error {
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.path] = true
	}
	var problems []string
	for _, m := range mods {
		for _, r := range m.file.Require {
			w, ok := workspace[r.Mod.Path]
			if ours[r.Mod.Path] || !ok {
				continue
			}
			if v := alone[m.path][r.Mod.Path]; semver.Compare(w, v) > 0 {
				problems = append(problems, fmt.Sprintf("%s/go.mod requires %s %s, a build of it alone takes %s, and the workspace's tests build with %s", m.dir, r.Mod.Path, r.Mod.Version, v, w))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	return fmt.Errorf("%s\n(go work sync writes the workspace's versions into the go.mod files)", strings.Join(problems, "\n"))
}

// writeModule writes m at version into the file proxy and returns the
// import paths of its commands (its cmd/* directories).
func writeModule(repo, proxy string, m mod, version string) ([]string, error) {
	esc, err := module.EscapePath(m.path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(proxy, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	names, err := output(repo, nil, "git", "ls-files", "-z", "--", m.dir)
	if err != nil {
		return nil, err
	}
	var files []modzip.File
	cmdDirs := map[string]bool{}
	for _, name := range strings.Split(strings.TrimRight(names, "\x00"), "\x00") {
		if name == "" {
			continue
		}
		rel := name
		if m.dir != "." {
			rel = strings.TrimPrefix(name, m.dir+"/")
		}
		full := filepath.Join(repo, filepath.FromSlash(name))
		info, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		} else if err != nil {
			return nil, err
		}
		files = append(files, file{rel: rel, full: full, info: info})
		if parts := strings.Split(rel, "/"); len(parts) == 3 && parts[0] == "cmd" && strings.HasSuffix(parts[2], ".go") && !strings.HasSuffix(parts[2], "_test.go") {
			cmdDirs[parts[0]+"/"+parts[1]] = true
		}
	}
	var zbuf bytes.Buffer
	mv := module.Version{Path: m.path, Version: version}
	if err := modzip.Create(&zbuf, mv, files); err != nil {
		return nil, fmt.Errorf("%s: %w", m.dir, err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, m.dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	for name, data := range map[string][]byte{
		version + ".zip":  zbuf.Bytes(),
		version + ".mod":  gomod,
		version + ".info": info,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	var cmds []string
	for d := range cmdDirs {
		cmds = append(cmds, m.path+"/"+d)
	}
	slices.Sort(cmds)
	return cmds, nil
}

// file is a tracked file of a module, as the working tree holds it.
type file struct {
	rel, full string
	info      fs.FileInfo
}

func (f file) Path() string                 { return f.rel }
func (f file) Lstat() (fs.FileInfo, error)  { return f.info, nil }
func (f file) Open() (io.ReadCloser, error) { return os.Open(f.full) }

// output runs name with args in dir, with env added to the environment,
// and returns its standard output; an error holds its standard error.
func output(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, stderr.Bytes(), stdout.Bytes())
	}
	return stdout.String() + stderr.String(), nil
}

func fileURL(dir string) string { return "file://" + filepath.ToSlash(dir) }

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "\t" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t") + "\n"
}

// removeAll removes dir, making the read-only directories of a module
// cache writable first.
func removeAll(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}
