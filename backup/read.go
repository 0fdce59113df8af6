package backup

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"

	"github.com/infmem/infmem/mongostore"
)

// Magic numbers of the layers a backup may have.
var (
	ageMagic      = []byte("age-encryption.org/")
	ageArmorMagic = []byte(armor.Header)
	gzipMagic     = []byte{0x1f, 0x8b}
	// archiveMagic is mongo-tools' archive.MagicNumber, little-endian.
	archiveMagic = []byte{0x6d, 0xe2, 0x99, 0x81}
)

// fileFacts is what reading a backup file learned about the file itself.
type fileFacts struct {
	path       string
	size       int64
	encryption string
	manifest   *Manifest
	sha256     string
}

// readOptions configures one read of a backup file.
type readOptions struct {
	keys Keys
	// copyTo, when set, receives the decrypted but still compressed stream,
	// so a restore can replay exactly what was verified.
	copyTo io.Writer
	// sink is told every document and the end of every collection.
	sink archiveSink
	// progress is told how many bytes of the file have been read.
	progress func(done, total int64)
}

// readBackupFile decrypts, decompresses and parses the whole backup at
// path, and checks it against its manifest. Any problem with the file
// comes back as a *RefusedError.
func readBackupFile(ctx context.Context, path string, o readOptions) (*archiveSummary, *fileFacts, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open backup: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open backup: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, refuse(name, ErrNotBackup, "it is not a regular file")
	}
	facts := &fileFacts{path: path, size: fi.Size()}
	if facts.size == 0 {
		return nil, nil, refuse(name, ErrEmpty, "the file is empty (0 bytes)")
	}
	if facts.manifest, err = readManifest(path); err != nil {
		return nil, nil, refuse(name, ErrDamaged, "%v; move the manifest away to use the backup without it", err)
	}
	if m := facts.manifest; m != nil && m.Size != facts.size {
		if facts.size < m.Size {
			return nil, nil, refuse(name, ErrTruncated, "the file is truncated: it has %d bytes, its manifest says %d", facts.size, m.Size)
		}
		return nil, nil, refuse(name, ErrDamaged, "the file has %d bytes, its manifest says %d: it was changed after it was written", facts.size, m.Size)
	}

	sum := sha256.New()
	counted := &progressReader{r: io.TeeReader(f, sum), total: facts.size, report: o.progress}
	raw := bufio.NewReaderSize(counted, 1<<16)
	head, _ := raw.Peek(len(ageArmorMagic))

	var payload io.Reader = raw
	var decryptErr *stickyReader
	switch {
	case bytes.HasPrefix(head, ageMagic) || bytes.HasPrefix(head, ageArmorMagic):
		facts.encryption = EncryptionRecipients
		var src io.Reader = raw
		if bytes.HasPrefix(head, ageArmorMagic) {
			src = armor.NewReader(raw)
		}
		dec, err := decrypt(src, o.keys)
		if err != nil {
			return nil, nil, classifyDecryptErr(name, err, o.keys, facts, f)
		}
		if dec.passphrase {
			facts.encryption = EncryptionPassphrase
		}
		decryptErr = &stickyReader{r: dec.r}
		payload = decryptErr
	case bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, archiveMagic):
		facts.encryption = EncryptionNone
	default:
		return nil, nil, refuse(name, ErrNotBackup, "it is neither age-encrypted nor a gzip-compressed mongodump archive")
	}

	if o.copyTo != nil {
		payload = io.TeeReader(payload, o.copyTo)
	}
	summary, inflateErr, err := readPayload(ctx, payload, o.sink)
	if err == nil {
		// Read to the end so the checksum covers the whole file; anything
		// after the archive is an error the layers above already reported.
		_, err = io.Copy(io.Discard, raw)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if counted.err != nil {
			return nil, nil, fmt.Errorf("cannot read backup %s: %w", name, counted.err)
		}
		// Damage in a layer often shows first as garbage in the layer
		// below; reading each layer to its end makes it report its own
		// authentication or checksum failure, so the blame is exact.
		if decryptErr != nil && decryptErr.err == nil {
			_, _ = io.Copy(io.Discard, decryptErr)
		}
		if inflateErr != nil && inflateErr.err == nil {
			_, _ = io.Copy(io.Discard, inflateErr)
		}
		return nil, nil, classifyReadErr(name, err, decryptErr, inflateErr)
	}
	facts.sha256 = hex.EncodeToString(sum.Sum(nil))
	if err := checkAgainstManifest(name, facts, summary); err != nil {
		return nil, nil, err
	}
	if summary.schemaVersion > mongostore.SchemaVersion {
		return nil, nil, refuse(name, ErrNewerSchema, "it holds schema version %d, and this infmem understands only up to %d; upgrade infmem to restore it", summary.schemaVersion, mongostore.SchemaVersion)
	}
	return summary, facts, nil
}

// readPayload reads the decrypted stream: a gzip-compressed or plain archive.
func readPayload(ctx context.Context, payload io.Reader, sink archiveSink) (*archiveSummary, *stickyReader, error) {
	br := bufio.NewReaderSize(payload, 1<<16)
	head, err := br.Peek(4)
	if err != nil && len(head) == 0 {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%w: the decrypted content is empty", errNotInfmem)
		}
		return nil, nil, err
	}
	var archiveIn io.Reader
	var inflate *stickyReader
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		inflate = &stickyReader{r: zr}
		ab := bufio.NewReaderSize(inflate, 1<<16)
		if inner, err := ab.Peek(4); err == nil && !bytes.Equal(inner, archiveMagic) {
			return nil, inflate, fmt.Errorf("%w: it decompresses, but not to a mongodump archive", errNotInfmem)
		}
		archiveIn = ab
	case bytes.HasPrefix(head, archiveMagic):
		archiveIn = br
	default:
		return nil, nil, fmt.Errorf("%w: it decrypts, but not to a mongodump archive", errNotInfmem)
	}
	summary, err := readArchive(ctx, archiveIn, sink)
	if err != nil {
		return nil, inflate, err
	}
	// The archive ends where its last block does; gzip checks its CRC only
	// at the end of the stream, and trailing bytes must be refused.
	if n, err := io.Copy(io.Discard, archiveIn); err != nil {
		return nil, inflate, err
	} else if n > 0 {
		return nil, inflate, fmt.Errorf("%w: %d bytes follow the end of the archive", errArchive, n)
	}
	return summary, inflate, nil
}

type decrypted struct {
	r          io.Reader
	passphrase bool
}

// refuseAll is an identity that matches nothing. Decrypting with it alone
// still parses the header and reports the kinds of its recipients.
type refuseAll struct{}

func (refuseAll) Unwrap([]*age.Stanza) ([]byte, error) { return nil, age.ErrIncorrectIdentity }

func decrypt(src io.Reader, keys Keys) (*decrypted, error) {
	ids, err := keys.identities()
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		ids = []age.Identity{refuseAll{}}
	}
	// Tell which identity matched by wrapping each one.
	var matched age.Identity
	wrapped := make([]age.Identity, len(ids))
	for i, id := range ids {
		wrapped[i] = recordingIdentity{id: id, matched: &matched}
	}
	r, err := age.Decrypt(src, wrapped...)
	if err != nil {
		return nil, err
	}
	_, isScrypt := matched.(*age.ScryptIdentity)
	return &decrypted{r: r, passphrase: isScrypt}, nil
}

type recordingIdentity struct {
	id      age.Identity
	matched *age.Identity
}

func (r recordingIdentity) Unwrap(s []*age.Stanza) ([]byte, error) {
	key, err := r.id.Unwrap(s)
	if err == nil {
		*r.matched = r.id
	}
	return key, err
}

// classifyDecryptErr turns an age header failure into a refusal.
func classifyDecryptErr(name string, err error, keys Keys, facts *fileFacts, f *os.File) error {
	var nomatch *age.NoIdentityMatchError
	if !errors.As(err, &nomatch) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return refuse(name, ErrTruncated, "the file ends inside its encryption header")
		}
		return refuse(name, ErrDamaged, "its encryption header is damaged (%v)", err)
	}
	scrypt := slices.Contains(nomatch.StanzaTypes, "scrypt")
	// A damaged header looks like a wrong key; the manifest's checksum
	// tells them apart. Only a file that does not match it is damaged.
	if !keys.empty() && facts.manifest != nil {
		matches, err := fileMatches(f, facts.manifest.SHA256)
		if err != nil {
			return fmt.Errorf("cannot read backup %s: %w", name, err)
		}
		if !matches {
			return refuse(name, ErrDamaged, "the file does not match the checksum in its manifest: it was changed or damaged after it was written")
		}
	}
	switch {
	case scrypt && keys.Passphrase == nil:
		facts.encryption = EncryptionPassphrase
		return refuse(name, ErrKeyNeeded, "it is encrypted with a passphrase, and none was given")
	case scrypt:
		return refuse(name, ErrWrongPassphrase, "the passphrase is wrong")
	case len(keys.Identities) == 0:
		return refuse(name, ErrKeyNeeded, "it is encrypted to an age key (%s), and no identity file was given", strings.Join(nomatch.StanzaTypes, ", "))
	case keys.IdentityFile != "":
		return refuse(name, ErrWrongKey, "no identity in %s can decrypt it; it was encrypted to other keys", keys.IdentityFile)
	}
	return refuse(name, ErrWrongKey, "none of the identities given can decrypt it; it was encrypted to other keys")
}

// fileMatches reports whether the whole file hashes to want.
func fileMatches(f *os.File, want string) (bool, error) {
	h := sha256.New()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == want, nil
}

// classifyReadErr turns a failure while reading the payload into a
// refusal, blaming the outermost layer that failed: the encryption's
// authentication first, then the compression's checksum, then the archive.
func classifyReadErr(name string, err error, decryptErr, inflateErr *stickyReader) error {
	if decryptErr != nil && decryptErr.err != nil {
		if errors.Is(decryptErr.err, io.ErrUnexpectedEOF) {
			return refuse(name, ErrTruncated, "the file ends before its encrypted content does")
		}
		return refuse(name, ErrDamaged, "its encrypted content fails authentication: the file is truncated, damaged, or was modified after it was written")
	}
	if inflateErr != nil && inflateErr.err != nil {
		ierr := inflateErr.err
		var corrupt flate.CorruptInputError
		switch {
		case errors.Is(ierr, io.ErrUnexpectedEOF):
			return refuse(name, ErrTruncated, "the file ends before its compressed content does")
		case errors.Is(ierr, gzip.ErrChecksum) || errors.Is(ierr, gzip.ErrHeader) || errors.As(ierr, &corrupt):
			return refuse(name, ErrDamaged, "its compressed content is damaged (%v)", ierr)
		}
	}
	switch {
	case errors.Is(err, errNotInfmem):
		return refuse(name, ErrNotBackup, "%v", strings.TrimPrefix(err.Error(), errNotInfmem.Error()+": "))
	case errors.Is(err, gzip.ErrHeader):
		return refuse(name, ErrDamaged, "its compressed content is damaged (%v)", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return refuse(name, ErrTruncated, "the archive inside ends early: %v", err)
	case errors.Is(err, errArchive):
		return refuse(name, ErrDamaged, "the archive inside is damaged: %v", strings.TrimPrefix(err.Error(), errArchive.Error()+": "))
	}
	return refuse(name, ErrDamaged, "it cannot be read: %v", err)
}

func checkAgainstManifest(name string, facts *fileFacts, s *archiveSummary) error {
	m := facts.manifest
	if m == nil {
		return nil
	}
	if m.SHA256 != facts.sha256 {
		return refuse(name, ErrDamaged, "the file does not match the checksum in its manifest: it was changed or damaged after it was written")
	}
	for _, c := range s.collections {
		if want, ok := m.Collections[c.name]; ok && want != c.docs {
			return refuse(name, ErrDamaged, "%s holds %d documents, its manifest says %d", c.name, c.docs, want)
		}
	}
	for coll := range m.Collections {
		if s.collection(coll) == nil {
			return refuse(name, ErrDamaged, "its manifest lists %s, which the archive lacks", coll)
		}
	}
	return nil
}

// stickyReader remembers the first error other than io.EOF its reader
// returned, so a failure can be blamed on the right layer even after
// mongo-tools' parser has rewrapped it as text.
type stickyReader struct {
	r   io.Reader
	err error
}

func (s *stickyReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// progressReader counts bytes read and reports them every megabyte.
type progressReader struct {
	r      io.Reader
	n      int64
	last   int64
	total  int64
	report func(done, total int64)
	err    error
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if err != nil && err != io.EOF && p.err == nil {
		p.err = err
	}
	if p.report != nil && (p.n-p.last >= 1<<20 || err == io.EOF) {
		p.last = p.n
		p.report(p.n, p.total)
	}
	return n, err
}

// EncryptionOf says how the backup at path is encrypted (EncryptionNone,
// EncryptionRecipients or EncryptionPassphrase) from its header alone, so
// a caller knows which key to ask for. It does not verify the file.
func EncryptionOf(path string) (string, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot open backup: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(len(ageArmorMagic))
	switch {
	case len(head) == 0:
		return "", refuse(name, ErrEmpty, "the file is empty (0 bytes)")
	case bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, archiveMagic):
		return EncryptionNone, nil
	case !bytes.HasPrefix(head, ageMagic) && !bytes.HasPrefix(head, ageArmorMagic):
		return "", refuse(name, ErrNotBackup, "it is neither age-encrypted nor a gzip-compressed mongodump archive")
	}
	var src io.Reader = br
	if bytes.HasPrefix(head, ageArmorMagic) {
		src = armor.NewReader(br)
	}
	// Decrypting with an identity that matches nothing reads only the
	// header and reports the kinds of recipient it names.
	_, err = age.Decrypt(src, refuseAll{})
	var nomatch *age.NoIdentityMatchError
	if !errors.As(err, &nomatch) {
		return "", refuse(name, ErrDamaged, "its encryption header is damaged")
	}
	if slices.Contains(nomatch.StanzaTypes, "scrypt") {
		return EncryptionPassphrase, nil
	}
	return EncryptionRecipients, nil
}
