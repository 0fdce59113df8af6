package installer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kardianos/service"
)

// ServiceName names the login service everywhere: the systemd unit
// infmem.service, the launchd label (and ~/Library/LaunchAgents/infmem.plist),
// and the Windows Scheduled Task. The daemon runs under kardianos/service with
// the same name, which is why ServiceConfig is shared with it.
const ServiceName = "infmem"

// Keys of service.Config.Option. The library defines them unexported.
const (
	optUserService   = "UserService"
	optSystemdScript = "SystemdScript"
	optLaunchdConfig = "LaunchdConfig"
	optLogDirectory  = "LogDirectory"
	optRunAtLoad     = "RunAtLoad"
	optKeepAlive     = "KeepAlive"
)

// ServiceConfig returns the kardianos/service configuration of the login
// service: a per-user service that runs `<Binary> daemon --data-dir <DataDir>
// [--config <ConfigFile>]`, rendered with this package's systemd unit and
// launchd plist instead of the library's defaults. An empty Binary leaves the
// library to use the running executable.
func ServiceConfig(opts Options) *service.Config {
	cfg := &service.Config{
		Name:        ServiceName,
		DisplayName: "infmem",
		Description: "infmem long-term memory service for Claude Desktop",
		Executable:  opts.Binary,
		Arguments:   serviceArgs(opts),
		Option: service.KeyValue{
			optUserService:   true,
			optSystemdScript: systemdUnitTemplate,
			optLaunchdConfig: launchdPlistTemplate,
			optRunAtLoad:     true,
			optKeepAlive:     true,
		},
	}
	if opts.DataDir != "" {
		// launchd opens these log files itself, before the daemon runs.
		cfg.Option[optLogDirectory] = filepath.Join(opts.DataDir, "logs")
	}
	return cfg
}

func serviceArgs(opts Options) []string {
	args := []string{"daemon"}
	if opts.DataDir != "" {
		args = append(args, "--data-dir", opts.DataDir)
	}
	if opts.ConfigFile != "" {
		args = append(args, "--config", opts.ConfigFile)
	}
	return args
}

// systemdUnitTemplate replaces the library's unit, whose
// WantedBy=multi-user.target is never reached by a user instance, so the
// service would never start at login. It is written in the library's template
// language; the keys available are those (*systemd).Install passes.
//
// KillMode=mixed sends SIGTERM to the daemon alone, so it can stop a managed
// mongod in order; anything left after TimeoutStopSec is killed.
const systemdUnitTemplate = `[Unit]
Description={{Description}}
StartLimitIntervalSec=300
StartLimitBurst=5

[Service]
Type=simple
ExecStart={{Path | cmdEscape}}{{range Arguments}} {{. | cmd}}{{end}}
Restart=on-failure
RestartSec=5
KillMode=mixed
TimeoutStopSec=30
{{range EnvVars}}{{.}}
{{end}}
[Install]
WantedBy=default.target
`

// launchdPlistTemplate replaces the library's plist, which neither runs at
// load nor distinguishes a crash from a clean exit. KeepAlive with
// SuccessfulExit=false restarts the daemon only when it dies or fails, so a
// deliberate stop stays stopped.
const launchdPlistTemplate = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>{{Name | html}}</string>
	<key>ProgramArguments</key>
	<array>
		<string>{{Path | html}}</string>
{{range Arguments}}		<string>{{. | html}}</string>
{{end}}	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>10</integer>
{{if StandardOutPath}}	<key>StandardOutPath</key>
	<string>{{StandardOutPath | html}}</string>
{{end}}{{if StandardErrorPath}}	<key>StandardErrorPath</key>
	<string>{{StandardErrorPath | html}}</string>
{{end}}</dict>
</plist>
`

// The pipeline functions kardianos/service v1.3.0 gives systemd templates
// (cmd, cmdEscape) and launchd templates (html), with the same semantics.
var (
	systemdFuncs = map[string]tmplFunc{
		"cmd": func(s string) (string, error) {
			return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`, nil
		},
		"cmdEscape": func(s string) (string, error) {
			return strings.ReplaceAll(s, " ", `\x20`), nil
		},
	}
	launchdFuncs = map[string]tmplFunc{
		"html": func(s string) (string, error) { return plistEscaper.Replace(s), nil },
	}
	plistEscaper = strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;")
)

// execPath mirrors the library: an absolute Executable, else this process.
func execPath(cfg *service.Config) (string, error) {
	if cfg.Executable != "" {
		return filepath.Abs(cfg.Executable)
	}
	return os.Executable()
}

func optString(kv service.KeyValue, key, def string) string {
	if s, ok := kv[key].(string); ok {
		return s
	}
	return def
}

func optBool(kv service.KeyValue, key string, def bool) bool {
	if b, ok := kv[key].(bool); ok {
		return b
	}
	return def
}

func optInt(kv service.KeyValue, key string, def int) int {
	if n, ok := kv[key].(int); ok {
		return n
	}
	return def
}

func sortedEnv(vars map[string]string, f func(k, v string) string) []string {
	if len(vars) == 0 {
		return nil
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, f(k, vars[k]))
	}
	return out
}

// RenderSystemdUnit renders the user unit exactly as kardianos/service will
// write it for cfg (its SystemdScript option, the data the library's systemd
// Install builds, the library's cmd/cmdEscape functions). It refuses paths
// that a unit's ExecStart= cannot carry literally, because systemd would
// expand or unescape them.
func RenderSystemdUnit(cfg *service.Config) (string, error) {
	tmpl := optString(cfg.Option, optSystemdScript, "")
	if tmpl == "" {
		return "", fmt.Errorf("render systemd unit: the config has no %s template", optSystemdScript)
	}
	path, err := execPath(cfg)
	if err != nil {
		return "", fmt.Errorf("render systemd unit: find the executable: %w", err)
	}
	if err := systemdSafe("executable path", path, `%$\"'`); err != nil {
		return "", err
	}
	for _, a := range cfg.Arguments {
		if err := systemdSafe("argument", a, `%$\`); err != nil {
			return "", err
		}
	}
	outputFileSupport := ""
	if optBool(cfg.Option, "LogOutput", false) {
		outputFileSupport = "yes"
	}
	limitNOFILE := ""
	if n := optInt(cfg.Option, "LimitNOFILE", -1); n > -1 {
		limitNOFILE = strconv.Itoa(n)
	}
	data := map[string]any{
		"Description":       cfg.Description,
		"Path":              path,
		"Name":              cfg.Name,
		"Dependencies":      cfg.Dependencies,
		"Arguments":         cfg.Arguments,
		"ChRoot":            cfg.ChRoot,
		"WorkingDirectory":  cfg.WorkingDirectory,
		"UserName":          cfg.UserName,
		"ReloadSignal":      optString(cfg.Option, "ReloadSignal", ""),
		"PIDFile":           optString(cfg.Option, "PIDFile", ""),
		"LogDirectory":      optString(cfg.Option, optLogDirectory, "/var/log"),
		"OutputFileSupport": outputFileSupport,
		"LimitNOFILE":       limitNOFILE,
		"Restart":           optString(cfg.Option, "Restart", "always"),
		"SuccessExitStatus": optString(cfg.Option, "SuccessExitStatus", ""),
		"EnvVars":           sortedEnv(cfg.EnvVars, func(k, v string) string { return "Environment=" + k + "=" + v }),
	}
	out, err := renderTemplate(tmpl, data, systemdFuncs)
	if err != nil {
		return "", fmt.Errorf("render systemd unit: %w", err)
	}
	return out, nil
}

// systemdSafe rejects characters that ExecStart= would interpret (specifiers,
// variables, escapes) or that the library's quoting cannot protect.
func systemdSafe(what, s, forbidden string) error {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(forbidden, r) {
			return &hinted{
				err:  fmt.Errorf("render systemd unit: the %s %q contains %q, which a systemd unit cannot carry literally", what, s, r),
				hint: "choose paths without that character for the binary, the data directory and the config file",
			}
		}
	}
	return nil
}

// RenderLaunchdPlist renders the LaunchAgent plist exactly as
// kardianos/service will write it for cfg on macOS; home is the user's home
// directory, where the library puts logs when no LogDirectory is set.
func RenderLaunchdPlist(cfg *service.Config, home string) (string, error) {
	tmpl := optString(cfg.Option, optLaunchdConfig, "")
	if tmpl == "" {
		return "", fmt.Errorf("render launchd plist: the config has no %s template", optLaunchdConfig)
	}
	path, err := execPath(cfg)
	if err != nil {
		return "", fmt.Errorf("render launchd plist: find the executable: %w", err)
	}
	for _, s := range append([]string{path}, cfg.Arguments...) {
		if err := xmlSafe(s); err != nil {
			return "", &hinted{err: fmt.Errorf("render launchd plist: %w", err), hint: Hint(err)}
		}
	}
	logDir := optString(cfg.Option, optLogDirectory, "")
	if logDir == "" {
		if optBool(cfg.Option, optUserService, false) {
			logDir = home
		} else {
			logDir = "/var/log"
		}
	}
	boolName := func(key string, def bool) string {
		if optBool(cfg.Option, key, def) {
			return "true"
		}
		return "false"
	}
	data := map[string]any{
		"Name":              cfg.Name,
		"Path":              path,
		"Arguments":         cfg.Arguments,
		"ChRoot":            cfg.ChRoot,
		"UserName":          cfg.UserName,
		"WorkingDirectory":  cfg.WorkingDirectory,
		"KeepAlive":         boolName(optKeepAlive, true),
		"RunAtLoad":         boolName(optRunAtLoad, false),
		"SessionCreate":     boolName("SessionCreate", false),
		"StandardOutPath":   logDir + "/" + cfg.Name + ".out.log",
		"StandardErrorPath": logDir + "/" + cfg.Name + ".err.log",
		"EnvVars": sortedEnv(cfg.EnvVars, func(k, v string) string {
			return "\t\t<key>" + plistEscaper.Replace(k) + "</key>\n\t\t<string>" + plistEscaper.Replace(v) + "</string>"
		}),
	}
	out, err := renderTemplate(tmpl, data, launchdFuncs)
	if err != nil {
		return "", fmt.Errorf("render launchd plist: %w", err)
	}
	return out, nil
}

// xmlSafe rejects characters XML 1.0 cannot hold at all, escaped or not.
func xmlSafe(s string) error {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF {
			return &hinted{
				err:  fmt.Errorf("%q contains %q, which XML cannot carry", s, r),
				hint: "choose paths without that character for the binary, the data directory and the config file",
			}
		}
	}
	return nil
}
