package dataroot

import (
	"strings"
	"testing"
)

const testUser = "S-1-5-21-1004336348-1177238915-682003330-1001"

func TestPrivateSDDL(t *testing.T) {
	got, err := PrivateSDDL(testUser)
	if err != nil {
		t.Fatal(err)
	}
	want := "O:" + testUser + "D:P(A;OICI;FA;;;" + testUser + ")(A;OICI;FA;;;SY)"
	if got != want {
		t.Fatalf("PrivateSDDL = %q\nwant          %q", got, want)
	}
	for _, bad := range []string{"", "S-1", "S-1-", "S-1-5-", "S-1-5--1", "S-2-5-18", "s-1-5-18x", "S-1-5-18)(A;;FA;;;WD", "S-1-5-+18",
		"S-1-5-4294967296", "S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16"} {
		if s, err := PrivateSDDL(bad); err == nil {
			t.Errorf("PrivateSDDL(%q) = %q, want an error", bad, s)
		}
	}
	if _, err := PrivateSDDL("S-1-5-18"); err != nil {
		t.Errorf("SYSTEM's SID refused: %v", err)
	}
}

// ownerOnly is what a directory made by mkdirPrivate reads back as.
func ownerOnly() DACL {
	return DACL{Owner: testUser, ACEs: []ACE{
		{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit, Mask: 0x1F01FF, SID: testUser},
		{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit, Mask: 0x1F01FF, SID: SIDSystem},
	}}
}

func TestCheckDACLAcceptsPrivate(t *testing.T) {
	profile := DACL{Owner: testUser, ACEs: []ACE{ // what %AppData% hands down
		{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit | AceInherited, Mask: 0x1F01FF, SID: SIDSystem},
		{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit | AceInherited, Mask: 0x1F01FF, SID: SIDAdministrators},
		{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit | AceInherited, Mask: 0x1F01FF, SID: testUser},
	}}
	denied := ownerOnly()
	denied.ACEs = append(denied.ACEs,
		ACE{Type: AceDenied, Flags: AceObjectInherit | AceContainerInherit, Mask: 0x1F01FF, SID: SIDEveryone},
		ACE{Type: AceDenied, Mask: 0x1F01FF, SID: SIDUsers},
		ACE{Type: AceDeniedCallback, Mask: 0x1F01FF, SID: SIDAuthenticatedUsers},
		ACE{Type: AceDeniedObject, Mask: 0x1F01FF})
	harmless := ownerOnly()
	harmless.ACEs = append(harmless.ACEs,
		ACE{Type: AceAllowed, Mask: 0x00100020 | 0x80, SID: SIDEveryone}, // traverse, synchronize, read attributes
		ACE{Type: AceAllowed, Flags: AceInheritOnly, Mask: 0x1F01FF, SID: SIDUsers},
		ACE{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit | AceInheritOnly, Mask: 0x10000000, SID: sidCreatorOwner})
	adminOwned := ownerOnly()
	adminOwned.Owner = SIDAdministrators
	lower := ownerOnly()
	lower.Owner = "s-1-5-21-1004336348-1177238915-682003330-1001"
	empty := DACL{Owner: testUser}
	for name, d := range map[string]DACL{
		"owner only": ownerOnly(), "profile": profile, "deny entries": denied,
		"harmless rights": harmless, "owned by Administrators": adminOwned, "lower-case owner": lower,
		"empty DACL": empty,
	} {
		v := CheckDACL(testUser, d)
		if v.Exposure != Private {
			t.Errorf("%s: %+v, want Private", name, v)
		}
		if err := v.Err(`C:\data`, nil); err != nil {
			t.Errorf("%s: Err = %v", name, err)
		}
	}
}

func TestCheckDACLRefusesOthers(t *testing.T) {
	cases := []struct {
		name string
		aces []ACE
		want Exposure
		who  []string // text the message must hold
	}{
		{"Everyone full control", []ACE{{Type: AceAllowed, Flags: AceObjectInherit | AceContainerInherit, Mask: 0x1F01FF, SID: SIDEveryone}},
			Writable, []string{"Everyone (S-1-1-0)", "change it"}},
		{"Users read", []ACE{{Type: AceAllowed, Flags: AceInherited | AceObjectInherit | AceContainerInherit, Mask: 0x1200A9, SID: SIDUsers}},
			Readable, []string{`BUILTIN\Users (S-1-5-32-545)`, "can be read by"}},
		{"Authenticated Users modify", []ACE{{Type: AceAllowed, Flags: AceInherited, Mask: 0x1301BF, SID: SIDAuthenticatedUsers}},
			Writable, []string{`NT AUTHORITY\Authenticated Users (S-1-5-11)`}},
		{"Everyone generic read, inherit only", []ACE{{Type: AceAllowed, Flags: AceObjectInherit | AceInheritOnly, Mask: 0x80000000, SID: SIDEveryone}},
			Readable, []string{"Everyone (S-1-1-0)"}},
		{"another account", []ACE{{Type: AceAllowed, Mask: 0x1F01FF, SID: "S-1-5-21-1004336348-1177238915-682003330-1002"}},
			Writable, []string{"S-1-5-21-1004336348-1177238915-682003330-1002 change it"}},
		{"object entry", []ACE{{Type: AceAllowedObject, Mask: 0x2}},
			Writable, []string{"type 5"}},
		{"writers and readers", []ACE{
			{Type: AceAllowed, Flags: AceInherited, Mask: 0x1200A9, SID: SIDUsers},
			{Type: AceAllowed, Mask: 0x2, SID: SIDEveryone},
			{Type: AceAllowed, Flags: AceInherited, Mask: 0x40000000, SID: SIDAuthenticatedUsers},
			{Type: AceAllowed, Mask: 0x4, SID: SIDEveryone},
		}, Writable, []string{`Everyone (S-1-1-0) and NT AUTHORITY\Authenticated Users (S-1-5-11) change it`}},
	}
	for _, c := range cases {
		d := ownerOnly()
		d.ACEs = append(d.ACEs, c.aces...)
		v := CheckDACL(testUser, d)
		if v.Exposure != c.want {
			t.Errorf("%s: exposure %d, want %d (%+v)", c.name, v.Exposure, c.want, v)
			continue
		}
		err := v.Err(`C:\Users\u\AppData\Roaming\infmem`, nil)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		for _, w := range append(c.who, `C:\Users\u\AppData\Roaming\infmem`, "\nhint: in a Command Prompt: icacls \"C:\\Users\\u\\AppData\\Roaming\\infmem\" /inheritance:r") {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message lacks %q:\n%s", c.name, w, msg)
			}
		}
		if strings.Contains(msg, testUser) || strings.Contains(msg, "SYSTEM") {
			t.Errorf("%s: message names a trusted principal:\n%s", c.name, msg)
		}
	}
}

func TestCheckDACLFixRemovesOnlyExplicitEntries(t *testing.T) {
	d := ownerOnly()
	d.ACEs = append(d.ACEs,
		ACE{Type: AceAllowed, Flags: AceInherited, Mask: 0x1301BF, SID: SIDAuthenticatedUsers},
		ACE{Type: AceAllowed, Mask: 0x1F01FF, SID: SIDEveryone})
	err := CheckDACL(testUser, d).Err(`D:\mem`, nil)
	if err == nil {
		t.Fatal("no error")
	}
	_, hint, _ := strings.Cut(err.Error(), "\nhint: ")
	want := `in a Command Prompt: icacls "D:\mem" /inheritance:r /grant:r "%USERNAME%:(OI)(CI)F" "*S-1-5-18:(OI)(CI)F" && icacls "D:\mem" /remove:g *S-1-1-0`
	if hint != want {
		t.Fatalf("hint = %s\nwant   %s", hint, want)
	}
}

func TestCheckDACLOwnerAndNullDACL(t *testing.T) {
	other := "S-1-5-21-1004336348-1177238915-682003330-1002"
	d := ownerOnly()
	d.Owner = other
	v := CheckDACL(testUser, d)
	if v.Exposure != Writable || v.Owner != other {
		t.Fatalf("foreign owner: %+v", v)
	}
	lookup := func(sid string) string {
		if sid == other {
			return `PC\mallory`
		}
		return ""
	}
	err := v.Err(`C:\d`, lookup)
	if err == nil || !strings.Contains(err.Error(), `owned by PC\mallory (`+other+`), not by you`) || !strings.Contains(err.Error(), "hint: use a directory you own") {
		t.Fatalf("foreign owner: %v", err)
	}
	// A foreign owner with readers: the owner is what makes it writable.
	d.ACEs = append(d.ACEs, ACE{Type: AceAllowed, Mask: 0x1, SID: SIDUsers})
	if v := CheckDACL(testUser, d); v.Exposure != Writable || len(v.Offenders) != 0 {
		t.Fatalf("foreign owner with readers: %+v", v)
	}

	v = CheckDACL(testUser, DACL{Owner: testUser, Null: true})
	if v.Exposure != Writable {
		t.Fatalf("NULL DACL: %+v", v)
	}
	if err := v.Err(`E:\x`, nil); err == nil || !strings.Contains(err.Error(), "no access list") || !strings.Contains(err.Error(), "NTFS") {
		t.Fatalf("NULL DACL: %v", err)
	}
}
