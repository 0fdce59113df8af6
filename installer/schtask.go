package installer

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/kardianos/service"
)

// On Windows kardianos/service only knows machine-wide services, which need
// an administrator and run outside the user's session. infmem therefore
// registers a per-user Scheduled Task with a logon trigger, rather than a
// value under HKCU\Software\Microsoft\Windows\CurrentVersion\Run, because:
//
//   - Task Scheduler can restart the daemon after a failed run, like
//     Restart=on-failure and launchd's KeepAlive; a Run entry starts it once.
//   - The task can be started right after install (schtasks /Run); a Run
//     entry waits for the next logon unless we spawn the process ourselves.
//   - The task can be stopped at uninstall (schtasks /End).
//
// The task is registered from XML rather than with /SC ONLOGON flags: the
// Task Scheduler protocol (MS-TSCH) lets a non-administrator register a logon
// trigger only if it names that same user, which /SC ONLOGON (any user) does
// not, so it fails with "access denied" without elevation; and the flags cannot
// lift the default 72-hour execution limit, which would kill a long-running
// daemon on the fourth day. The XML names the user in the trigger and the
// principal, runs with least privilege in the interactive session, and sets
// ExecutionTimeLimit=PT0S (unlimited).

// windowsTaskTemplate's placeholders are replaced in a single pass with
// XML-escaped values (RenderWindowsTask).
const windowsTaskTemplate = `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>{{Description}}</Description>
    <URI>\{{Name}}</URI>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>{{UserID}}</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>{{UserID}}</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>3</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{{Command}}</Command>
      <Arguments>{{Arguments}}</Arguments>
    </Exec>
  </Actions>
</Task>
`

// RenderWindowsTask renders the Scheduled Task definition for cfg, triggered
// when userID (DOMAIN\user, as os/user reports it) logs on. The text declares
// UTF-16, which is how it must be written to disk (EncodeUTF16).
func RenderWindowsTask(cfg *service.Config, userID string) (string, error) {
	if !windowsAbs(cfg.Executable) {
		return "", fmt.Errorf("render scheduled task: the executable %q is not an absolute Windows path", cfg.Executable)
	}
	if userID == "" {
		return "", fmt.Errorf("render scheduled task: no user to trigger on")
	}
	quoted := make([]string, len(cfg.Arguments))
	for i, a := range cfg.Arguments {
		quoted[i] = windowsQuoteArg(a)
	}
	values := map[string]string{
		"Description": cfg.Description,
		"Name":        cfg.Name,
		"UserID":      userID,
		"Command":     cfg.Executable,
		"Arguments":   strings.Join(quoted, " "),
	}
	var pairs []string
	for k, v := range values {
		if err := xmlSafe(v); err != nil {
			return "", &hinted{err: fmt.Errorf("render scheduled task: %w", err), hint: Hint(err)}
		}
		var b strings.Builder
		if err := xml.EscapeText(&b, []byte(v)); err != nil {
			return "", fmt.Errorf("render scheduled task: %w", err)
		}
		pairs = append(pairs, "{{"+k+"}}", b.String())
	}
	return strings.NewReplacer(pairs...).Replace(windowsTaskTemplate), nil
}

// windowsAbs reports whether p is a drive-absolute (C:\...) or UNC path,
// independently of the OS this runs on.
func windowsAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// windowsQuoteArg quotes one argument so that CommandLineToArgvW (and the Go
// runtime on Windows) parses it back unchanged: backslashes are literal except
// before a quote, where each must be doubled.
func windowsQuoteArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\v\"") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		c := a[i]
		if c == '\\' {
			slashes++
			continue
		}
		if c == '"' {
			slashes = 2*slashes + 1
		}
		b.WriteString(strings.Repeat(`\`, slashes))
		b.WriteByte(c)
		slashes = 0
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}

// SchtasksCommands returns the schtasks.exe invocations, argument by
// argument, that register (given the path of the task XML), start, stop and
// delete the task.
func SchtasksCommands(name, xmlPath string) (create, run, end, del []string) {
	create = []string{"schtasks", "/Create", "/TN", name, "/XML", xmlPath, "/F"}
	run = []string{"schtasks", "/Run", "/TN", name}
	end = []string{"schtasks", "/End", "/TN", name}
	del = []string{"schtasks", "/Delete", "/TN", name, "/F"}
	return create, run, end, del
}

// EncodeUTF16 encodes an XML document as UTF-16LE with a byte-order mark,
// the encoding schtasks /XML reliably accepts.
func EncodeUTF16(s string) []byte {
	units := utf16.Encode([]rune(s))
	out := make([]byte, 0, 2+2*len(units))
	out = append(out, 0xFF, 0xFE)
	for _, u := range units {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// registeredTask is what matters of a task definition read back from
// Task Scheduler, which rewrites the XML it was given (adds defaults, dates,
// an author, reorders), so definitions are compared field by field.
type registeredTask struct {
	Command   string
	Arguments string
	OnLogon   bool
}

// parseTaskXML extracts the first Exec action and whether a logon trigger
// exists from `schtasks /Query /XML` output, which is UTF-16 with a BOM or
// text in the console code page depending on how it was redirected.
func parseTaskXML(raw []byte) (registeredTask, error) {
	text := string(raw)
	if len(raw) >= 2 && raw[0] == 0xFF && raw[1] == 0xFE {
		units := make([]uint16, 0, len(raw)/2)
		for i := 2; i+1 < len(raw); i += 2 {
			units = append(units, uint16(raw[i])|uint16(raw[i+1])<<8)
		}
		text = string(utf16.Decode(units))
	}
	dec := xml.NewDecoder(strings.NewReader(text))
	// The declaration may say UTF-16 although the text is now UTF-8.
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		t     registeredTask
		stack []string
		seen  bool
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return registeredTask{}, fmt.Errorf("parse task definition: %w", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			stack = append(stack, e.Name.Local)
			if e.Name.Local == "LogonTrigger" {
				t.OnLogon = true
			}
		case xml.EndElement:
			if len(stack) > 0 {
				if stack[len(stack)-1] == "Exec" {
					seen = true
				}
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if seen || len(stack) < 2 || stack[len(stack)-2] != "Exec" {
				continue
			}
			switch stack[len(stack)-1] {
			case "Command":
				t.Command += string(e)
			case "Arguments":
				t.Arguments += string(e)
			}
		}
	}
	if t.Command == "" {
		return registeredTask{}, fmt.Errorf("parse task definition: no Exec action found")
	}
	return t, nil
}

// windowsTaskMatches reports whether a registered definition runs what cfg
// asks for at logon. Windows paths are compared case-insensitively.
func windowsTaskMatches(current string, cfg *service.Config) bool {
	t, err := parseTaskXML([]byte(current))
	if err != nil {
		return false
	}
	quoted := make([]string, len(cfg.Arguments))
	for i, a := range cfg.Arguments {
		quoted[i] = windowsQuoteArg(a)
	}
	return t.OnLogon && strings.EqualFold(strings.TrimSpace(t.Command), cfg.Executable) &&
		strings.TrimSpace(t.Arguments) == strings.Join(quoted, " ")
}
