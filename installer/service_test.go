package installer

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"
)

func unixTestConfig() Options {
	return Options{
		Binary:     "/home/user/go/bin/infmem",
		DataDir:    "/home/user/My Data/infmem",
		ConfigFile: "/home/user/.config/infmem/config.toml",
	}
}

func TestServiceConfig(t *testing.T) {
	cfg := ServiceConfig(unixTestConfig())
	if cfg.Name != ServiceName || cfg.Executable != "/home/user/go/bin/infmem" {
		t.Errorf("name/executable = %q/%q", cfg.Name, cfg.Executable)
	}
	want := []string{"daemon", "--data-dir", "/home/user/My Data/infmem", "--config", "/home/user/.config/infmem/config.toml"}
	if strings.Join(cfg.Arguments, "|") != strings.Join(want, "|") {
		t.Errorf("arguments = %q, want %q", cfg.Arguments, want)
	}
	if cfg.Option[optUserService] != true {
		t.Error("not a user service")
	}
	if cfg.Option[optLogDirectory] != "/home/user/My Data/infmem/logs" {
		t.Errorf("log directory = %v", cfg.Option[optLogDirectory])
	}
	bare := ServiceConfig(Options{Binary: "/bin/infmem", DataDir: "/d"})
	if strings.Join(bare.Arguments, " ") != "daemon --data-dir /d" {
		t.Errorf("arguments without config file = %q", bare.Arguments)
	}
}

func TestRenderSystemdUnit(t *testing.T) {
	unit, err := RenderSystemdUnit(ServiceConfig(unixTestConfig()))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "infmem.service.golden", []byte(unit))
	// The reasons for our own template, checked apart from the golden file
	// so that regenerating it cannot quietly lose them.
	for _, want := range []string{
		"\nWantedBy=default.target\n",
		"\nRestart=on-failure\n",
		"\nRestartSec=",
		"\nExecStart=/home/user/go/bin/infmem \"daemon\" \"--data-dir\" \"/home/user/My Data/infmem\" \"--config\" \"/home/user/.config/infmem/config.toml\"\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q", want)
		}
	}
	if strings.Contains(unit, "multi-user.target") {
		t.Error("unit is wanted by multi-user.target, which a user instance never reaches")
	}
}

func TestRenderSystemdUnitRefusesUnsafePaths(t *testing.T) {
	for _, o := range []Options{
		{Binary: "/bin/infmem", DataDir: "/data/100%"},
		{Binary: "/bin/infmem", DataDir: "/data/$HOME"},
		{Binary: "/bin/infmem", DataDir: `/data/back\slash`},
		{Binary: "/bin/infmem", DataDir: "/data/new\nline"},
		{Binary: `/bin/in"fmem`, DataDir: "/data"},
		{Binary: "/bin/in\tfmem", DataDir: "/data"},
	} {
		if _, err := RenderSystemdUnit(ServiceConfig(o)); err == nil || Hint(err) == "" {
			t.Errorf("RenderSystemdUnit(%q, %q) error = %v, want a refusal with a hint", o.Binary, o.DataDir, err)
		}
	}
	// Quotes in arguments are escaped by the library's cmd function.
	unit, err := RenderSystemdUnit(ServiceConfig(Options{Binary: "/bin/infmem", DataDir: `/data/"quoted"`}))
	if err != nil || !strings.Contains(unit, ` "/data/\"quoted\""`) {
		t.Errorf("quoted argument: %v\n%s", err, unit)
	}
}

func TestRenderSystemdUnitNeedsOurTemplate(t *testing.T) {
	cfg := ServiceConfig(unixTestConfig())
	delete(cfg.Option, optSystemdScript)
	if _, err := RenderSystemdUnit(cfg); err == nil {
		t.Error("rendered without our template; the library's default would be used")
	}
	cfg.Option[optSystemdScript] = "{{.Path}}" // old text/template syntax
	if _, err := RenderSystemdUnit(cfg); err == nil {
		t.Error("rendered a template the library cannot render")
	}
}

func TestRenderLaunchdPlist(t *testing.T) {
	o := Options{
		Binary:  "/Users/ann/bin/infmem",
		DataDir: "/Users/ann/Library/Application Support/infmem & <co>",
	}
	plist, err := RenderLaunchdPlist(ServiceConfig(o), "/Users/ann")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "infmem.plist.golden", []byte(plist))
	for _, want := range []string{
		"<key>RunAtLoad</key>\n\t<true/>",
		"<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>",
		"<string>/Users/ann/Library/Application Support/infmem &amp; &lt;co&gt;/logs/infmem.err.log</string>",
	} {
		if !strings.Contains(plist, want) {
			t.Errorf("plist lacks %q", want)
		}
	}
	if _, err := RenderLaunchdPlist(ServiceConfig(Options{Binary: "/bin/infmem", DataDir: "/d\x01"}), "/Users/ann"); err == nil || Hint(err) == "" {
		t.Error("rendered a control character into XML")
	}
}

func windowsTestConfig() Options {
	return Options{
		Binary:     `C:\Users\Ann Lee\AppData\Local\Programs\infmem\infmem.exe`,
		DataDir:    `C:\Users\Ann Lee\AppData\Roaming\infmem`,
		ConfigFile: `C:\cfg\a"b\`,
	}
}

func TestRenderWindowsTask(t *testing.T) {
	task, err := RenderWindowsTask(ServiceConfig(windowsTestConfig()), `DESKTOP-1\Ann & Co`)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "infmem-task.xml.golden", []byte(task))
	for _, want := range []string{
		`<UserId>DESKTOP-1\Ann &amp; Co</UserId>`,
		"<ExecutionTimeLimit>PT0S</ExecutionTimeLimit>",
		"<RunLevel>LeastPrivilege</RunLevel>",
		`<Arguments>daemon --data-dir &#34;C:\Users\Ann Lee\AppData\Roaming\infmem&#34; --config &#34;C:\cfg\a\&#34;b\\&#34;</Arguments>`,
	} {
		if !strings.Contains(task, want) {
			t.Errorf("task lacks %q", want)
		}
	}
	if _, err := RenderWindowsTask(ServiceConfig(Options{Binary: "infmem.exe", DataDir: `C:\d`}), "u"); err == nil {
		t.Error("accepted a relative executable")
	}
	if _, err := RenderWindowsTask(ServiceConfig(windowsTestConfig()), ""); err == nil {
		t.Error("accepted an empty user")
	}
}

func TestSchtasksCommands(t *testing.T) {
	create, run, end, del := SchtasksCommands(ServiceName, `C:\Temp\infmem-task-1.xml`)
	var b strings.Builder
	for _, c := range [][]string{create, run, end, del} {
		b.WriteString(strings.Join(c, " | ") + "\n")
	}
	golden(t, "schtasks-commands.golden", []byte(b.String()))
}

func TestWindowsQuoteArg(t *testing.T) {
	tests := map[string]string{
		``:                 `""`,
		`plain`:            `plain`,
		`C:\no\spaces`:     `C:\no\spaces`,
		`with space`:       `"with space"`,
		`C:\dir with\`:     `"C:\dir with\\"`,
		`say "hi"`:         `"say \"hi\""`,
		`a\"b`:             `"a\\\"b"`,
		`tab	in`:           `"tab	in"`,
		`trailing\\ x\\`:   `"trailing\\ x\\\\"`,
		`C:\Program Files`: `"C:\Program Files"`,
	}
	for in, want := range tests {
		if got := windowsQuoteArg(in); got != want {
			t.Errorf("windowsQuoteArg(%q) = %q, want %q", in, got, want)
		}
		if in != "" {
			if back := parseWindowsArgs(windowsQuoteArg(in)); len(back) != 1 || back[0] != in {
				t.Errorf("round trip of %q gave %q", in, back)
			}
		}
	}
}

// parseWindowsArgs splits a command line the way CommandLineToArgvW does
// for arguments after the program name (the rules since 2008).
func parseWindowsArgs(s string) []string {
	var args []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					inQuote = !inQuote
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			have = true
		case c == '"':
			if inQuote && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				inQuote = !inQuote
			}
			have = true
		case (c == ' ' || c == '\t') && !inQuote:
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		args = append(args, cur.String())
	}
	return args
}

func TestEncodeUTF16(t *testing.T) {
	b := EncodeUTF16("<é>")
	if b[0] != 0xFF || b[1] != 0xFE {
		t.Fatalf("no UTF-16LE byte-order mark: % x", b[:2])
	}
	units := make([]uint16, 0)
	for i := 2; i < len(b); i += 2 {
		units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
	}
	if got := string(utf16.Decode(units)); got != "<é>" {
		t.Errorf("decoded %q", got)
	}
}

// exportedTask is how Task Scheduler hands a registered task back: its own
// layout, extra elements, and (from schtasks /Query /XML) UTF-16.
const exportedTask = `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Date>2025-01-01T10:00:00</Date>
    <Author>DESKTOP-1\Ann</Author>
    <URI>\infmem</URI>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>DESKTOP-1\Ann</UserId>
    </LogonTrigger>
  </Triggers>
  <Settings>
    <IdleSettings><StopOnIdleEnd>true</StopOnIdleEnd></IdleSettings>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>c:\users\ann lee\appdata\local\programs\infmem\infmem.exe</Command>
      <Arguments>daemon --data-dir "C:\Users\Ann Lee\AppData\Roaming\infmem" --config "C:\cfg\a\"b\\"</Arguments>
    </Exec>
  </Actions>
</Task>
`

func TestWindowsTaskMatches(t *testing.T) {
	cfg := ServiceConfig(windowsTestConfig())
	if !windowsTaskMatches(string(EncodeUTF16(exportedTask)), cfg) {
		t.Error("the exported form of our task (UTF-16) does not match")
	}
	if !windowsTaskMatches(exportedTask, cfg) {
		t.Error("the exported form of our task (code page text) does not match")
	}
	ours, err := RenderWindowsTask(cfg, `DESKTOP-1\Ann`)
	if err != nil {
		t.Fatal(err)
	}
	if !windowsTaskMatches(ours, cfg) {
		t.Error("our own definition does not match itself")
	}
	moved := ServiceConfig(windowsTestConfig())
	moved.Executable = `D:\infmem.exe`
	if windowsTaskMatches(exportedTask, moved) {
		t.Error("a task running another executable matches")
	}
	other := ServiceConfig(windowsTestConfig())
	other.Arguments = []string{"daemon"}
	if windowsTaskMatches(exportedTask, other) {
		t.Error("a task with other arguments matches")
	}
	if windowsTaskMatches(strings.Replace(exportedTask, "LogonTrigger", "BootTrigger", 2), cfg) {
		t.Error("a task without a logon trigger matches")
	}
	if windowsTaskMatches("not xml", cfg) {
		t.Error("garbage matches")
	}
}

func TestPlanServiceUnsupportedOS(t *testing.T) {
	e := newTestEnv(t, "linux")
	o := e.opts()
	o.goos = "freebsd"
	_, _, err := e.install(o)
	if !errors.Is(err, ErrNoServiceManager) || !strings.Contains(Hint(err), "--no-service") {
		t.Errorf("error = %v, hint %q", err, Hint(err))
	}
}
