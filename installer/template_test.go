package installer

import (
	"strings"
	"testing"
)

func TestRenderTemplate(t *testing.T) {
	funcs := map[string]tmplFunc{
		"up":  func(s string) (string, error) { return strings.ToUpper(s), nil },
		"dot": func(s string) (string, error) { return s + ".", nil },
	}
	data := map[string]any{
		"Name":  "infmem",
		"Empty": "",
		"List":  []string{"a", "b c"},
		"None":  []string(nil),
	}
	tests := []struct{ src, want string }{
		{"plain", "plain"},
		{"x={{Name}}", "x=infmem"},
		{"{{ Name | up | dot }}", "INFMEM."},
		{"{{if Name}}yes{{else}}no{{end}}", "yes"},
		{"{{if Empty}}yes{{else}}no{{end}}", "no"},
		{"{{if Empty}}yes{{end}}.", "."},
		{"{{if None}}yes{{else}}no{{end}}", "no"},
		{"{{range List}}[{{.}}]{{end}}", "[a][b c]"},
		{"{{range List}}{{. | up}},{{end}}", "A,B C,"},
		{"{{range None}}x{{end}}", ""},
		{"a  \n {{- Name -}} \n  b", "ainfmemb"},
		{"{{if List}}{{range List}}{{if Name}}{{.}}{{end}}{{end}}{{end}}", "ab c"},
	}
	for _, tt := range tests {
		got, err := renderTemplate(tt.src, data, funcs)
		if err != nil {
			t.Errorf("renderTemplate(%q): %v", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("renderTemplate(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestRenderTemplateErrors(t *testing.T) {
	data := map[string]any{"Name": "x", "List": []string{"a"}}
	tests := []struct{ src, want string }{
		{"{{Name", "unclosed"},
		{"{{.Name}}", `unknown template key ".Name"`},
		{"{{Missing}}", `unknown template key "Missing"`},
		{"{{Name | nope}}", `unknown template function "nope"`},
		{"{{List}}", "is not a string"},
		{"{{range Name}}{{end}}", "is not a list"},
		{"{{end}}", "unexpected"},
		{"{{if Name}}open", "not closed"},
		{"{{if}}{{end}}", "requires a key"},
		{"{{range List}}{{else}}{{end}}", "not closed"},
	}
	for _, tt := range tests {
		_, err := renderTemplate(tt.src, data, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("renderTemplate(%q) error = %v, want one containing %q", tt.src, err, tt.want)
		}
	}
}
