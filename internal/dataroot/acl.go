package dataroot

// Windows keeps who may use a directory in its access list (DACL), not in
// mode bits. This file holds the platform-free half of keeping the data root
// private there: the security descriptor infmem gives the directories it
// creates, and the verdict on a DACL read back from disk. The Windows calls
// live in acl_windows.go; everything here is tested on every OS.
//
// What infmem grants (PrivateSDDL): full control to the owner and to SYSTEM,
// nothing inherited from the parent. SYSTEM stays because Windows services
// that act for the user (backup and restore, Volume Shadow Copy, the search
// indexer, antivirus) run as SYSTEM, and SYSTEM can read everything anyway.
// Administrators get no entry: an administrator can still take ownership
// when elevated, but that is a deliberate, audited act, and standing access
// would let any elevated tool read memories without one.
//
// What infmem accepts (CheckDACL): entries for the owner, SYSTEM and
// Administrators. Accepting Administrators adds nobody who could not take the
// directory anyway, and the profile folders (%AppData%) grant them access, so
// a data root made before infmem set its own list is not refused. Anyone else
// who can change the directory (Everyone, Users, Authenticated Users, another
// account) is refused, as a group- or world-writable directory is on Unix;
// anyone else who can only read it is reported by doctor.

import (
	"fmt"
	"strconv"
	"strings"
)

// Well-known SIDs infmem names or trusts.
const (
	SIDSystem             = "S-1-5-18"
	SIDAdministrators     = "S-1-5-32-544"
	SIDEveryone           = "S-1-1-0"
	SIDUsers              = "S-1-5-32-545"
	SIDAuthenticatedUsers = "S-1-5-11"
	sidCreatorOwner       = "S-1-3-0"
	sidOwnerRights        = "S-1-3-4"
)

// PrivateSDDL is the security descriptor, in SDDL, that infmem gives each
// directory of the data root it creates: owned by userSID, with a protected
// DACL (nothing inherited from the parent) granting full control to userSID
// and SYSTEM, inherited by every file and folder created inside (OICI).
func PrivateSDDL(userSID string) (string, error) {
	if !validSID(userSID) {
		return "", fmt.Errorf("not a security identifier: %q", userSID)
	}
	return "O:" + userSID + "D:P(A;OICI;FA;;;" + userSID + ")(A;OICI;FA;;;SY)", nil
}

// validSID accepts the string form of a SID: S-1-<authority>-<sub>... with at
// most 15 sub-authorities, all decimal numbers.
func validSID(s string) bool {
	rest, ok := strings.CutPrefix(s, "S-1-")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "-")
	if len(parts) > 16 {
		return false
	}
	for i, p := range parts {
		bits := 32
		if i == 0 {
			bits = 48 // the identifier authority
		}
		if p == "" || p[0] == '+' {
			return false
		}
		if _, err := strconv.ParseUint(p, 10, bits); err != nil {
			return false
		}
	}
	return true
}

// ACE types (the AceType of an ACE_HEADER) that grant or deny access.
const (
	AceAllowed               = 0x0
	AceDenied                = 0x1
	AceAllowedObject         = 0x5
	AceDeniedObject          = 0x6
	AceAllowedCallback       = 0x9
	AceDeniedCallback        = 0xA
	AceAllowedCallbackObject = 0xB
	AceDeniedCallbackObject  = 0xC
)

// ACE flags (the AceFlags of an ACE_HEADER) that CheckDACL looks at.
const (
	AceObjectInherit    = 0x01
	AceContainerInherit = 0x02
	AceInheritOnly      = 0x08
	AceInherited        = 0x10
)

// Access rights of a file or directory: those that change it or its
// security, and those that read what is in it. Rights outside both (read
// attributes, read the ACL, traverse, synchronize) reveal nothing stored.
const (
	writeRights = 0x0002 | // FILE_WRITE_DATA / FILE_ADD_FILE
		0x0004 | // FILE_APPEND_DATA / FILE_ADD_SUBDIRECTORY
		0x0010 | // FILE_WRITE_EA
		0x0040 | // FILE_DELETE_CHILD
		0x0100 | // FILE_WRITE_ATTRIBUTES
		0x00010000 | // DELETE
		0x00040000 | // WRITE_DAC
		0x00080000 | // WRITE_OWNER
		0x02000000 | // MAXIMUM_ALLOWED
		0x10000000 | // GENERIC_ALL
		0x40000000 // GENERIC_WRITE
	readRights = 0x0001 | // FILE_READ_DATA / FILE_LIST_DIRECTORY
		0x0008 | // FILE_READ_EA
		0x80000000 // GENERIC_READ
)

// ACE is one entry of a DACL as read from disk.
type ACE struct {
	Type  uint8  // AceAllowed, AceDenied, ...
	Flags uint8  // AceObjectInherit, AceInherited, ...
	Mask  uint32 // access rights
	// SID is the principal in string form; empty when the entry is of a
	// kind whose principal was not read.
	SID string
}

// DACL sums up a directory's security descriptor for CheckDACL.
type DACL struct {
	Owner string // the owner's SID; empty if the descriptor names none
	// Null is set when the descriptor has no DACL at all, which lets
	// everyone do everything.
	Null bool
	ACEs []ACE
}

// Exposure says how far a directory is open to other accounts.
type Exposure int

const (
	Private  Exposure = iota // only the user, SYSTEM and Administrators
	Readable                 // someone else can read what is inside
	Writable                 // someone else can change it or its access list
)

// Offender is a principal a DACL lets in.
type Offender struct {
	SID string // empty for an entry of a kind infmem does not read
	// Type is the ACE type, kept to name an entry without a SID.
	Type uint8
	// Explicit is set when at least one of its entries is the directory's
	// own rather than inherited from the parent.
	Explicit bool
}

// ACLVerdict is what CheckDACL found: the worst exposure and who causes it.
type ACLVerdict struct {
	Exposure Exposure
	// Owner is set when the directory's owner is someone else, who can
	// rewrite its access list at will.
	Owner string
	// Offenders are the principals, in DACL order, that cause Exposure.
	Offenders []Offender
	// NullDACL is set when the descriptor has no DACL.
	NullDACL bool
}

// CheckDACL decides whether a directory with DACL d is private to the user
// whose SID is user. Allow entries for the user, SYSTEM, Administrators,
// CREATOR OWNER and OWNER RIGHTS (which both stand for the owner) are fine;
// deny entries never widen access; entries that grant nothing that reads or
// changes data (traverse, read attributes) are ignored, and so are
// inherit-only entries that pass to neither files nor folders.
func CheckDACL(user string, d DACL) ACLVerdict {
	var v ACLVerdict
	if d.Owner != "" && !sameSID(d.Owner, user) && !sameSID(d.Owner, SIDSystem) && !sameSID(d.Owner, SIDAdministrators) {
		v.Exposure, v.Owner = Writable, d.Owner
	}
	if d.Null {
		v.Exposure, v.NullDACL = Writable, true
		return v
	}
	var write, read []Offender
	for _, a := range d.ACEs {
		switch a.Type {
		case AceAllowed, AceAllowedObject, AceAllowedCallback, AceAllowedCallbackObject:
		default:
			continue // deny entries and anything that grants nothing
		}
		if a.Flags&AceInheritOnly != 0 && a.Flags&(AceObjectInherit|AceContainerInherit) == 0 {
			continue
		}
		if a.SID != "" && trustedSID(a.SID, user) {
			continue
		}
		o := Offender{SID: a.SID, Type: a.Type, Explicit: a.Flags&AceInherited == 0}
		switch {
		case a.Mask&writeRights != 0:
			write = addOffender(write, o)
		case a.Mask&readRights != 0:
			read = addOffender(read, o)
		}
	}
	switch {
	case len(write) > 0:
		v.Exposure, v.Offenders = Writable, write
	case v.Exposure == Writable:
		// The owner alone decides.
	case len(read) > 0:
		v.Exposure, v.Offenders = Readable, read
	}
	return v
}

func addOffender(list []Offender, o Offender) []Offender {
	for i := range list {
		if list[i].SID == o.SID && (o.SID != "" || list[i].Type == o.Type) {
			list[i].Explicit = list[i].Explicit || o.Explicit
			return list
		}
	}
	return append(list, o)
}

func trustedSID(sid, user string) bool {
	for _, t := range []string{user, SIDSystem, SIDAdministrators, sidCreatorOwner, sidOwnerRights} {
		if sameSID(sid, t) {
			return true
		}
	}
	return false
}

// sameSID compares string SIDs; the "S" prefix is case-insensitive in SDDL.
func sameSID(a, b string) bool { return a != "" && strings.EqualFold(a, b) }

var wellKnownSIDs = map[string]string{
	SIDEveryone:           "Everyone",
	SIDUsers:              `BUILTIN\Users`,
	SIDAuthenticatedUsers: `NT AUTHORITY\Authenticated Users`,
	SIDAdministrators:     `BUILTIN\Administrators`,
	SIDSystem:             `NT AUTHORITY\SYSTEM`,
	sidCreatorOwner:       "CREATOR OWNER",
	"S-1-3-1":             "CREATOR GROUP",
	sidOwnerRights:        "OWNER RIGHTS",
	"S-1-5-1":             `NT AUTHORITY\DIALUP`,
	"S-1-5-2":             `NT AUTHORITY\NETWORK`,
	"S-1-5-4":             `NT AUTHORITY\INTERACTIVE`,
	"S-1-5-6":             `NT AUTHORITY\SERVICE`,
	"S-1-5-7":             `NT AUTHORITY\ANONYMOUS LOGON`,
	"S-1-5-32-546":        `BUILTIN\Guests`,
	"S-1-5-32-547":        `BUILTIN\Power Users`,
	"S-1-5-32-555":        `BUILTIN\Remote Desktop Users`,
	"S-1-15-2-1":          "ALL APPLICATION PACKAGES",
	"S-1-15-2-2":          "ALL RESTRICTED APPLICATION PACKAGES",
	"S-1-2-0":             "LOCAL",
	"S-1-5-113":           `NT AUTHORITY\Local account`,
}

// principal names an offender for a message: "Everyone (S-1-1-0)". lookup,
// when not nil, resolves SIDs the built-in table does not know (an account
// name on Windows); it returns "" when it cannot.
func (o Offender) principal(lookup func(sid string) string) string {
	if o.SID == "" {
		return fmt.Sprintf("an access entry of a kind infmem does not read (type %d)", o.Type)
	}
	return nameSID(o.SID, lookup)
}

func nameSID(sid string, lookup func(string) string) string {
	name := wellKnownSIDs[strings.ToUpper(sid)]
	if name == "" && lookup != nil {
		name = lookup(sid)
	}
	if name == "" {
		return sid
	}
	return name + " (" + sid + ")"
}

// Err turns a verdict on dir into an error, nil when it is Private. The
// message names who else can get in; its "hint:" line is the fix. lookup is
// as for principal.
func (v ACLVerdict) Err(dir string, lookup func(sid string) string) error {
	switch {
	case v.Exposure == Private:
		return nil
	case v.Owner != "" && len(v.Offenders) == 0 && !v.NullDACL:
		return fmt.Errorf("data root %s is owned by %s, not by you\nhint: use a directory you own, via --data-dir or INFMEM_DATA_DIR", dir, nameSID(v.Owner, lookup))
	case v.NullDACL:
		return fmt.Errorf("refusing %s: it has no access list, so every account can change it\nhint: %s; on a FAT or exFAT volume, which keeps no access lists, put the data root on NTFS via --data-dir or INFMEM_DATA_DIR", dir, v.fix(dir))
	}
	names := make([]string, len(v.Offenders))
	for i, o := range v.Offenders {
		names[i] = o.principal(lookup)
	}
	who := joinNames(names)
	if v.Exposure == Writable {
		msg := fmt.Sprintf("refusing %s: its access list lets %s change it", dir, who)
		if v.Owner != "" {
			msg += fmt.Sprintf(", and it is owned by %s, not by you", nameSID(v.Owner, lookup))
		}
		return fmt.Errorf("%s\nhint: %s", msg, v.fix(dir))
	}
	return fmt.Errorf("%s can be read by %s\nhint: %s", dir, who, v.fix(dir))
}

// fix is the Command Prompt line that makes dir private: drop what the
// parent passes down, grant the user and SYSTEM full control (inherited by
// everything inside), and remove the entries the directory itself gives
// others.
func (v ACLVerdict) fix(dir string) string {
	fix := fmt.Sprintf(`in a Command Prompt: icacls "%s" /inheritance:r /grant:r "%%USERNAME%%:(OI)(CI)F" "*%s:(OI)(CI)F"`, dir, SIDSystem)
	var remove []string
	for _, o := range v.Offenders {
		if o.Explicit && o.SID != "" {
			remove = append(remove, "*"+o.SID)
		}
	}
	if len(remove) > 0 {
		fix += fmt.Sprintf(` && icacls "%s" /remove:g %s`, dir, strings.Join(remove, " "))
	}
	if v.Owner != "" {
		fix += "; or use a directory you own, via --data-dir or INFMEM_DATA_DIR"
	}
	return fix
}

func joinNames(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " and " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
