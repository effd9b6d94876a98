// helm-render renders a Helm chart's templates the way `helm template` does, for machines without
// Helm (this project's CI has no Helm binary and no internet). It is a check, not a replacement:
// the same Go text/template engine and Sprig function library Helm uses (Debian's
// golang-github-masterminds-sprig-dev), Helm's extra functions (include, tpl, required, toYaml,
// fromYaml, toJson, fromJson, lookup, fail) and Helm's value coalescing (maps merge key by key,
// null deletes, anything else replaces) — see https://helm.sh/docs/chart_template_guide/.
// Dependencies (Chart.yaml `dependencies`) are not rendered; the enabled ones are listed on stderr.
//
// Usage: helm-render [-f values.yaml]... [--set-json key.path=JSON]... [--release NAME] [--namespace NS] CHART_DIR
// Output: every rendered manifest as "---\n# Source: <chart>/templates/<file>\n<yaml>". Exit 1 with the
// template error on a failure.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	sprig "github.com/Masterminds/sprig"
	yaml "gopkg.in/yaml.v3"
)

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "helm-render: "+format+"\n", args...)
	os.Exit(1)
}

func readYAML(file string) map[string]any {
	raw, err := os.ReadFile(file)
	if err != nil {
		fatal("%v", err)
	}
	out := map[string]any{}
	if err := yaml.Unmarshal(raw, &out); err != nil {
		fatal("%s: %v", file, err)
	}
	return normalize(out).(map[string]any)
}

// normalize turns yaml.v3's map[string]interface{} trees into plain maps/slices with float64-free ints kept.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalize(x)
		}
		return t
	case map[any]any:
		m := map[string]any{}
		for k, x := range t {
			m[fmt.Sprint(k)] = normalize(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = normalize(x)
		}
		return t
	}
	return v
}

// coalesce merges src over dst as Helm does for user-supplied values: nested maps merge, a null
// in src deletes the key, any other value replaces.
func coalesce(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		sm, sok := v.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if sok && dok {
			dst[k] = coalesce(dm, sm)
		} else {
			dst[k] = v
		}
	}
	return dst
}

func setPath(values map[string]any, key string, value any) {
	parts := strings.Split(key, ".")
	cur := values
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = value
}

func toYAML(v any) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

type files map[string][]byte

func (f files) Get(name string) string { return string(f[name]) }

func main() {
	var valueFiles, setJSON multi
	release, namespace := "tradewind", "default"
	args := os.Args[1:]
	var chartDir string
	for i := 0; i < len(args); i++ {
		next := func() string {
			if i+1 >= len(args) {
				fatal("%s needs a value", args[i])
			}
			i++
			return args[i]
		}
		switch args[i] {
		case "-f", "--values":
			valueFiles.Set(next())
		case "--set-json":
			setJSON.Set(next())
		case "--release":
			release = next()
		case "--namespace", "-n":
			namespace = next()
		default:
			if chartDir != "" {
				fatal("unexpected argument %q", args[i])
			}
			chartDir = args[i]
		}
	}
	if chartDir == "" {
		fatal("usage: helm-render [-f values.yaml]... [--set-json key=JSON]... [--release NAME] [--namespace NS] CHART_DIR")
	}

	chart := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	values := readYAML(filepath.Join(chartDir, "values.yaml"))
	for _, f := range valueFiles {
		values = coalesce(values, readYAML(f))
	}
	for _, kv := range setJSON {
		key, raw, ok := strings.Cut(kv, "=")
		if !ok {
			fatal("--set-json %q: want key=JSON", kv)
		}
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			fatal("--set-json %q: %v", kv, err)
		}
		setPath(values, key, v)
	}

	if deps, ok := chart["dependencies"].([]any); ok {
		for _, d := range deps {
			dep, _ := d.(map[string]any)
			name, _ := dep["name"].(string)
			enabled := true
			if cond, ok := dep["condition"].(string); ok {
				cur := any(values)
				for _, p := range strings.Split(cond, ".") {
					m, _ := cur.(map[string]any)
					cur = m[p]
				}
				if b, ok := cur.(bool); ok {
					enabled = b
				}
			}
			if enabled {
				fmt.Fprintf(os.Stderr, "helm-render: dependency %q is enabled but not rendered here (helm dependency build)\n", name)
			}
		}
	}

	chartName, _ := chart["name"].(string)
	chartFiles := files{}
	var templates []string
	err := filepath.Walk(chartDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chartDir, p)
		rel = filepath.ToSlash(rel)
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "templates/") {
			templates = append(templates, rel)
		} else {
			chartFiles[rel] = raw
		}
		return nil
	})
	if err != nil {
		fatal("%v", err)
	}
	sort.Strings(templates)

	root := template.New("gotpl")
	root.Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	includeDepth := map[string]int{}
	funcs["include"] = func(name string, data any) (string, error) {
		includeDepth[name]++
		defer func() { includeDepth[name]-- }()
		if includeDepth[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data any) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return strings.ReplaceAll(buf.String(), "<no value>", ""), err
	}
	funcs["required"] = func(msg string, v any) (any, error) {
		if v == nil {
			return nil, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	funcs["fail"] = func(msg string) (string, error) { return "", errors.New(msg) }
	funcs["toYaml"] = func(v any) string { return toYAML(v) }
	funcs["toJson"] = func(v any) string { b, _ := json.Marshal(v); return string(b) }
	funcs["fromYaml"] = func(s string) map[string]any {
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return normalize(m).(map[string]any)
	}
	funcs["fromJson"] = func(s string) map[string]any {
		m := map[string]any{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["lookup"] = func(string, string, string, string) (map[string]any, error) { return map[string]any{}, nil }
	root.Funcs(funcs)

	for _, name := range templates {
		raw, _ := os.ReadFile(filepath.Join(chartDir, name))
		if _, err := root.New(path.Join(chartName, name)).Parse(string(raw)); err != nil {
			fatal("parse error: %v", err)
		}
	}

	top := map[string]any{
		"Values": values,
		"Release": map[string]any{"Name": release, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart": map[string]any{"Name": chartName, "Version": chart["version"], "AppVersion": chart["appVersion"]},
		"Capabilities": map[string]any{
			"KubeVersion": map[string]any{"Version": "v1.30.0", "Major": "1", "Minor": "30", "GitVersion": "v1.30.0"},
			"APIVersions": []string{"v1", "apps/v1", "policy/v1", "autoscaling/v2", "networking.k8s.io/v1"},
		},
		"Files": chartFiles,
	}
	var out strings.Builder
	for _, name := range templates {
		base := path.Base(name)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" {
			continue
		}
		full := path.Join(chartName, name)
		top["Template"] = map[string]any{"Name": full, "BasePath": path.Join(chartName, "templates")}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, full, top); err != nil {
			fatal("render error: %v", err)
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", full, strings.TrimSpace(text))
	}
	fmt.Print(out.String())
}
